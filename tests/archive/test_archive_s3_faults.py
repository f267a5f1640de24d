"""An archive on S3 whose endpoint stalls or refuses mid-archive, during a backfill.

The endpoint is moto's server (a test double for S3) behind a proxy (tests/s3_proxy.py)
that lets the first PUTs through, then holds or cuts every request: of the two versions in
effect since May 2025, the first is archived and loaded, the second is cut off part-way. The
backfill must stop with one line naming the archive object and what to do, every manifest on
S3 must list only payloads that landed whole, and the next run, with the endpoint back, must
load the rest.
"""

from __future__ import annotations

from datetime import date

import pytest

from chipcost import archive
from chipcost.archive import store, writer
from chipcost.core.settings import Settings, SourceSettings
from chipcost.pipeline.backfill import backfill
from tests.pipeline.test_backfill import FIXTURES, V2, V3, history, utc
from tests.price_files_server import serve
from tests.s3_proxy import proxying
from tests.s3_server import ENDPOINT_ENV, forget_clients
from tests.s3_server import client as s3_client

# PUTs of the first version: three indexes and one region file, each followed by its manifest.
FIRST_VERSION_PUTS = 8


def settings(tmp_path, bucket: str, url: str) -> Settings:
    return Settings(
        data_dir=tmp_path,
        db_path=tmp_path / "w.duckdb",
        sources=SourceSettings(aws_price_list_url=url),
        archive_url=f"s3://{bucket}/archive",
    )


def run(config: Settings):
    return backfill(config, date(2025, 5, 1), ("us-east-1",), sleep=lambda seconds: None)


@pytest.mark.parametrize("how", ["stall", "refuse"])
def test_an_endpoint_failing_mid_archive_stops_plainly_and_the_next_run_recovers(
    how, s3_bucket, s3_endpoint, monkeypatch, tmp_path
):
    # A stalled request gives up after seconds, not the minutes a real archive allows.
    normal, normal_put = store.S3_OPTIONS["config_kwargs"], writer.PUT_SECONDS
    quick = {"connect_timeout": 2, "read_timeout": 2, "retries": {"max_attempts": 2}}
    monkeypatch.setitem(store.S3_OPTIONS, "config_kwargs", quick)
    monkeypatch.setattr(writer, "PUT_SECONDS", 4.0)
    with serve(FIXTURES) as files, proxying(s3_endpoint, FIRST_VERSION_PUTS + 1, how) as proxy:
        monkeypatch.setenv(ENDPOINT_ENV, proxy.url)
        forget_clients()
        config = settings(tmp_path, s3_bucket, files.url)
        first = run(config)
        assert [(o.version.version, o.status) for o in first] == [(V2, "loaded"), (V3, "failed")]
        message = first[-1].message
        assert f"s3://{s3_bucket}/archive/2025-06-01T000000Z/aws-bulk/" in message
        assert "CHIPCOST_ARCHIVE" in message and "run again" in message
        assert "\n" not in message
        proxy.heal()
        # The endpoint is back: the next run has the usual deadlines (under load, moto on
        # this process's threads can take more than the seconds allowed above).
        monkeypatch.setitem(store.S3_OPTIONS, "config_kwargs", normal)
        monkeypatch.setattr(writer, "PUT_SECONDS", normal_put)
        forget_clients()
        _every_listed_payload_landed(s3_bucket)
        # Each run is a new process in use: no listing cached by the checks above.
        forget_clients()
        second = run(config)
        forget_clients()
        assert {V2, V3} <= _versions_archived(s3_bucket)
    assert [o.status for o in second] == ["already loaded", "loaded"]
    assert history(tmp_path / "w.duckdb", "p5.48xlarge") == [
        (utc("2025-04-01"), utc("2025-06-01"), "changed", 98.32),
        (utc("2025-06-01"), None, None, 55.04),
    ]


def _every_listed_payload_landed(bucket: str) -> None:
    """Each manifest on S3 lists payloads that exist whole (read_payloads checks sha256)."""
    for run_dir in archive.run_directories(f"s3://{bucket}/archive"):
        for source in archive.archived_sources(run_dir):
            for payload in archive.read_payloads(run_dir, source):
                assert payload.data


def _versions_archived(bucket: str) -> set[str]:
    found = set()
    for run_dir in archive.run_directories(f"s3://{bucket}/archive"):
        for payload in archive.read_payloads(run_dir, "aws-bulk"):
            if payload.request.get("kind") == "ec2":
                found.add(payload.request["version"])
    return found


def test_the_proxy_passes_requests_until_told(s3_bucket, s3_endpoint, monkeypatch):
    with proxying(s3_endpoint, 1, "refuse") as proxy:
        s3 = s3_client(proxy.url)
        s3.put_object(Bucket=s3_bucket, Key="a", Body=b"1")
        assert proxy.puts == 1 and not proxy.failing.is_set()
