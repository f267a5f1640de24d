"""An S3-protocol endpoint for tests: moto's server mode on 127.0.0.1 (a test double for S3)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from tests.pg_server import free_port

ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
}


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
