"""An S3-protocol endpoint for tests: moto's server mode on 127.0.0.1 (a test double for S3)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.pg_server import free_port

# The store's settings, as a deployment gives them (docs/deploy.md, "Object storage"); the
# endpoint is added by the fixture. No AWS_* variable: those are AWS's own.
ENV = {
    "CHIPCOST_S3_ACCESS_KEY_ID": "testing",
    "CHIPCOST_S3_SECRET_ACCESS_KEY": "testing",
    "CHIPCOST_S3_REGION": "us-east-1",
}
ENDPOINT_ENV = "CHIPCOST_S3_ENDPOINT_URL"


@contextmanager
def running() -> Iterator[str]:
    """The endpoint URL of a fresh moto server, stopped at the end."""
    from moto.server import ThreadedMotoServer

    # One line per request on stderr would bury a failing test's report.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def forget_clients() -> None:
    """fsspec keeps one client per options: a test that moves the endpoint starts afresh."""
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()


def client(endpoint: str | None = None) -> Any:
    """A boto3 S3 client of the test itself, on `endpoint` or the store's endpoint now set."""
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint or os.environ[ENDPOINT_ENV],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    )
