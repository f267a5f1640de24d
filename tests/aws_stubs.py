"""Shared by the AWS API source tests: recorded payloads, stubbed boto3 clients, a bare AWS env."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.stub import Stubber

from chipcost.core.payload import Payload
from tests.sources import payload

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FETCHED_AT = datetime(2026, 11, 14, 6, 0, 3, tzinfo=UTC)


def fixture_bytes(source: str, name: str) -> bytes:
    return (FIXTURES / source / name).read_bytes()


def fixture_json(source: str, name: str) -> dict[str, Any]:
    return json.loads(fixture_bytes(source, name))


def recorded(
    source: str, name: str, request: dict[str, Any] | None = None, data: bytes | None = None
) -> Payload:
    """A recorded fixture as the archive hands it to parse()."""
    url = f"https://example.invalid/{source}"
    return payload(source, name, url, FETCHED_AT, data, request, stamp="fixtures")


def with_datetimes(body: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """A recorded body as boto3 returns it: ISO timestamps in `fields` parsed to datetimes."""

    def convert(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: datetime.fromisoformat(v) if k in fields else convert(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [convert(v) for v in value]
        return value

    return convert(body)


def stubbed(service: str, region: str = "us-east-1") -> tuple[Any, Stubber]:
    """A real boto3 client with test keys and no retries, and its Stubber."""
    client = boto3.client(
        service,
        region_name=region,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}),
    )
    return client, Stubber(client)


def clear_aws_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No AWS credentials anywhere boto3 looks (environment, files, instance metadata)."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        empty = tmp_path / name.lower()
        empty.write_text("")
        monkeypatch.setenv(name, str(empty))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def no_aws_env(tmp_path: Path) -> dict[str, str]:
    """A collector process's environment: this one's, with no AWS credentials anywhere boto3
    looks, so AWS's public feeds run (as clear_aws_env does for this process)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {
        **clean,
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def collector_env(tmp_path: Path) -> dict[str, str]:
    """no_aws_env for a collector whose data is the test's directory, its log quiet."""
    return {
        **no_aws_env(tmp_path),
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "CHIPCOST_DATA_DIR": str(tmp_path),
    }
