"""The raw archive on an S3-protocol endpoint (moto's server: a test double for S3)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from chipcost import archive
from chipcost.archive import store
from chipcost.core.errors import ArchiveError
from chipcost.core.settings import Settings, Warehouse
from chipcost.warehouse.db import connect
from tests import warehouses
from tests.lake_support import history, replay, settings_for
from tests.pg_server import free_port
from tests.s3_proxy import proxying
from tests.s3_server import ENDPOINT_ENV, forget_clients
from tests.s3_server import client as s3_client

MiB = 1 << 20


def _upload(bucket: str, local, prefix: str) -> None:
    s3 = s3_client()
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        s3.upload_file(str(path), bucket, f"{prefix}/{path.relative_to(local)}")


def test_payloads_written_to_s3_read_back_with_their_manifest(s3_bucket):
    root = f"s3://{s3_bucket}/archive"
    writer = archive.ArchiveWriter(root, "2026-11-20T060000Z", "runpod")
    first = writer.write(b'{"a": 1}', "https://api.example.test/a")
    writer.write(b'{"b": 2}', "https://api.example.test/b")
    assert first.ref == "2026-11-20T060000Z/runpod/0001.json.gz"
    raw = s3_client().get_object(
        Bucket=s3_bucket, Key="archive/2026-11-20T060000Z/runpod/manifest.json"
    )
    manifest = json.loads(raw["Body"].read())
    assert [p["name"] for p in manifest["payloads"]] == ["0001.json.gz", "0002.json.gz"]
    [run] = archive.run_directories(root)
    assert run.name == "2026-11-20T060000Z"
    assert archive.archived_sources(run) == ["runpod"]
    payloads = archive.read_payloads(run, "runpod")
    assert [p.data for p in payloads] == [b'{"a": 1}', b'{"b": 2}']


def test_a_changed_object_fails_its_sha256_check(s3_bucket):
    root = f"s3://{s3_bucket}/archive"
    archive.ArchiveWriter(root, "2026-11-20T060000Z", "runpod").write(b"{}", "u")
    s3_client().put_object(
        Bucket=s3_bucket,
        Key="archive/2026-11-20T060000Z/runpod/0001.json.gz",
        Body=gzip.compress(b'{"x": 1}'),
    )
    forget_clients()
    with pytest.raises(ArchiveError, match="does not match its sha256"):
        archive.read_payloads(archive.run_directories(root)[0], "runpod")


def test_the_sample_replayed_from_s3_loads_what_the_local_copy_loads(
    s3_bucket, s3_endpoint, sample_runs, tmp_path, monkeypatch
):
    # Two runs, not three: runs listed in order, each object read once, a second run's
    # history on the first's; a third run only added uploads and replays of the same kind.
    archive_copy = tmp_path / "archive"
    for run in sample_runs[:2]:
        shutil.copytree(run, archive_copy / run.name)
    _upload(s3_bucket, archive_copy, "sample")
    from_s3 = Warehouse(str(tmp_path / "s3.duckdb"))
    # The same two runs replayed from the local archive: the test run's shared replay of them.
    local = Warehouse(str(warehouses.sample(tmp_path / "l.duckdb", first=2)))
    with proxying(s3_endpoint, fail_after=10**9, how="refuse") as proxy:  # it only watches
        monkeypatch.setenv(ENDPOINT_ENV, proxy.url)
        forget_clients()
        runs = archive.run_directories(f"s3://{s3_bucket}/sample")
        assert [r.name for r in runs] == sorted(p.name for p in archive_copy.iterdir())
        replay(settings_for(from_s3, tmp_path), runs)
    # Each object is read with one GET (no HEAD first), each run's keys with one listing.
    objects = sorted(
        f"/{s3_bucket}/sample/{p.relative_to(archive_copy)}"
        for p in archive_copy.rglob("*")
        if p.is_file()
    )
    reads = sorted(r.removeprefix("GET ") for r in proxy.requests if "list-type=2" not in r)
    assert reads == objects
    listings = [r for r in proxy.requests if "list-type=2" in r]
    assert 1 <= len(listings) <= 2 + len(runs), listings
    a, b = connect(from_s3, read_only=True), connect(local, read_only=True)
    try:
        assert history(a) == history(b) and len(history(a)) > 50
    finally:
        a.close()
        b.close()


def refusing_endpoint(monkeypatch) -> None:
    """Nothing listens there; one attempt, not botocore's retries with their back-off."""
    monkeypatch.setenv(ENDPOINT_ENV, f"http://127.0.0.1:{free_port()}")
    monkeypatch.setitem(store.S3_OPTIONS, "config_kwargs", {"retries": {"max_attempts": 1}})


def test_an_endpoint_that_refuses_is_one_line_and_leaves_no_manifest(
    s3_bucket, monkeypatch, tmp_path
):
    refusing_endpoint(monkeypatch)
    forget_clients()
    writer = archive.ArchiveWriter(f"s3://{s3_bucket}/archive", "2026-11-20T060000Z", "runpod")
    with pytest.raises(ArchiveError, match="CHIPCOST_ARCHIVE") as error:
        writer.write(b"{}", "u")
    assert "\n" not in str(error.value)
    assert writer.manifest["payloads"] == []


@pytest.mark.parametrize(
    ("url", "absent", "brings"),
    [
        ("s3://bucket/x", "upath", "universal-pathlib"),
        ("s3://bucket/x", "s3fs", "s3fs"),
        ("https://user:secret@example.com/archive", "aiohttp", "aiohttp"),
    ],
)
def test_an_archive_url_without_the_lake_extra_says_what_to_install(
    monkeypatch, url, absent, brings
):
    # A base install has no universal-pathlib (upath) nor s3fs: simulated by blocking the import.
    monkeypatch.setitem(sys.modules, absent, None)
    with pytest.raises(ArchiveError) as error:
        archive.location(url)
    said = str(error.value)
    assert "needs chipcost's `lake` extra: in chipcost's clone run scripts/setup.sh lake" in said
    assert said.endswith(f"(it brings {brings})") and "secret" not in said
    assert archive.location("plain/directory") == Path("plain/directory")


def test_settings_read_the_archive_url(monkeypatch, tmp_path):
    from chipcost.core.settings import load_settings

    monkeypatch.setenv("CHIPCOST_ARCHIVE", "s3://bucket/prefix")
    assert load_settings(db=tmp_path / "w.duckdb").archive_root == "s3://bucket/prefix"
    monkeypatch.delenv("CHIPCOST_ARCHIVE")
    settings = load_settings(db=tmp_path / "w.duckdb", data_dir=tmp_path)
    assert settings.archive_root == tmp_path / "archive"
    assert isinstance(settings, Settings)


def test_a_lake_keeps_its_parquet_files_on_s3(
    s3_bucket, s3_endpoint, pg_server, lake_template, tmp_path
):
    """A copy of the migrated lake, its data path on S3 (its reference tables' files put
    there): what the load writes is a Parquet file on S3, read back from there."""
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.load import load_run
    from tests.helpers import day, record, run_of

    data = f"s3://{s3_bucket}/lake/"
    database = pg_server.new_database(template=lake_template.database)
    pg_server.psql(
        f"UPDATE ducklake_metadata SET value = '{data}' WHERE key = 'data_path' AND scope IS NULL",
        database=database,
    )
    for path in sorted(p for p in lake_template.data.rglob("*") if p.is_file()):
        key = f"lake/{path.relative_to(lake_template.data)}"
        s3_client().upload_file(str(path), s3_bucket, key)
    lake = Warehouse("ducklake:postgres:" + pg_server.conninfo(database), data)
    con = open_warehouse(lake)
    load_run(con, run_of([record(price_per_hour=1.0)], day(0)))
    con.execute("CALL ducklake_flush_inlined_data('lake')")
    con.close()
    reader = connect(lake, read_only=True)
    try:
        assert reader.execute("SELECT price_per_hour FROM price_history").fetchall() == [(1.0,)]
        listed = "SELECT data_file FROM ducklake_list_files('lake', 'price_history')"
        written = [row[0] for row in reader.execute(listed).fetchall()]
    finally:
        reader.close()
    # The template holds no price: price_history's files are the load's own, on S3.
    assert written and all(f.startswith(data) and f.endswith(".parquet") for f in written)
    keys = {
        o["Key"] for o in s3_client().list_objects_v2(Bucket=s3_bucket, Prefix="lake/")["Contents"]
    }
    assert {f.removeprefix(f"s3://{s3_bucket}/") for f in written} <= keys


def test_an_endpoint_that_refuses_a_read_is_one_line_naming_the_object(s3_bucket, monkeypatch):
    run = f"s3://{s3_bucket}/archive/2026-11-20T060000Z"
    refusing_endpoint(monkeypatch)
    forget_clients()
    with pytest.raises(ArchiveError, match="check the URL, endpoint and credentials") as error:
        archive.read_payloads(run, "runpod")
    assert f"cannot read {run}/runpod/manifest.json (" in str(error.value)
    assert "\n" not in str(error.value)


def test_an_object_larger_than_the_payload_limit_is_refused_without_downloading_it(
    s3_bucket, s3_endpoint, monkeypatch
):
    root = f"s3://{s3_bucket}/archive"
    writer = archive.ArchiveWriter(root, "2026-11-20T060000Z", "runpod")
    writer.write(b'{"a": 1}', "https://api.example.test/a")
    # Replaced by 16 MiB that do not compress: over a 1 MiB limit before inflating a byte.
    key = "archive/2026-11-20T060000Z/runpod/0001.json.gz"
    s3_client().put_object(Bucket=s3_bucket, Key=key, Body=os.urandom(16 * MiB))
    with proxying(s3_endpoint, fail_after=10**9, how="refuse") as proxy:  # it only watches
        monkeypatch.setenv(ENDPOINT_ENV, proxy.url)
        forget_clients()
        [run] = archive.run_directories(root)
        with pytest.raises(ArchiveError, match=r"larger than 1 MiB even compressed.*MAX_MB"):
            archive.read_payloads(run, "runpod", max_bytes=MiB)
    assert proxy.answered_bytes < 2 * MiB, f"{proxy.answered_bytes / MiB:.1f} MiB downloaded"
