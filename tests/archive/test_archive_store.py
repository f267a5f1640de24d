"""The object store's own settings (CHIPCOST_S3_*) beside AWS's (AWS_*), on moto's S3 server
(a test double for S3): the archive and the lake find the store there, AWS's variables keep
meaning AWS, and a store left in AWS_ENDPOINT_URL is refused saying what to set."""

from __future__ import annotations

import duckdb
import pytest

from chipcost import archive
from chipcost.core.errors import ArchiveError, WarehouseError
from chipcost.core.runs import OK
from chipcost.core.settings import Settings, SourceSettings
from chipcost.extract.aws import bulk as aws_bulk
from chipcost.pipeline.collect import collect_source
from chipcost.warehouse import lake
from tests.pg_server import free_port
from tests.s3_server import ENDPOINT_ENV, forget_clients
from tests.s3_server import client as s3_client

STAMP = "2026-11-20T060000Z"


def aws_of_its_own(monkeypatch) -> None:
    """AWS credentials and an endpoint of AWS's, none of them the store's."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAAWSNOTTHESTORE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-not-the-store")
    # Nothing listens there: had the archive used it, every write would fail.
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")


def test_the_archive_uses_the_store_of_chipcost_s3_not_aws_endpoint_url(s3_bucket, monkeypatch):
    aws_of_its_own(monkeypatch)
    forget_clients()
    root = f"s3://{s3_bucket}/archive"
    archive.ArchiveWriter(root, STAMP, "runpod").write(b'{"a": 1}', "https://x.test/a")
    key = f"archive/{STAMP}/runpod/manifest.json"
    assert s3_client().head_object(Bucket=s3_bucket, Key=key)["ContentLength"] > 0
    [run] = archive.run_directories(root)
    assert [p.data for p in archive.read_payloads(run, "runpod")] == [b'{"a": 1}']


def test_aws_bulk_runs_with_its_archive_on_the_store(s3_bucket, tmp_path):
    """The audit: the store's keys in AWS_* made aws-bulk skip ("credentials found") and the
    API sources call the store. In CHIPCOST_S3_*, boto3 finds no AWS credentials: aws-bulk
    reads AWS's public files (a local server with recorded ones) into the store."""
    from tests.extract.test_aws_bulk_fetch import FIXTURES
    from tests.price_files_server import serve

    with serve(FIXTURES) as files:
        settings = Settings(
            data_dir=tmp_path,
            db_path=tmp_path / "w.duckdb",
            sources=SourceSettings(aws_price_list_url=files.url, aws_regions=("us-east-1",)),
            archive_url=f"s3://{s3_bucket}/archive",
        )
        result = collect_source(aws_bulk.SOURCE, settings=settings, stamp=STAMP)
    assert result.status == OK, result.message
    assert result.records
    listed = s3_client().list_objects_v2(Bucket=s3_bucket, Prefix=f"archive/{STAMP}/aws-bulk/")
    names = {o["Key"].rsplit("/", 1)[1] for o in listed["Contents"]}
    assert "manifest.json" in names and "0004.csv.gz" in names


@pytest.mark.parametrize("variable", ["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"])
def test_a_store_left_in_aws_endpoint_url_is_refused_saying_what_to_set(
    s3_bucket, s3_endpoint, monkeypatch, variable
):
    monkeypatch.delenv(ENDPOINT_ENV)
    monkeypatch.setenv(variable, s3_endpoint)
    with pytest.raises(ArchiveError) as refused:
        archive.ArchiveWriter(f"s3://{s3_bucket}/x", STAMP, "runpod")
    said = str(refused.value)
    assert said.startswith(f"{variable}='{s3_endpoint}' is set and the archive s3://")
    assert f"set CHIPCOST_S3_ENDPOINT_URL='{s3_endpoint}'" in said
    assert f"then unset {variable}" in said and "\n" not in said
    # A local archive has nothing to do with it.
    assert archive.location("plain/directory").name == "directory"


def test_half_a_key_pair_is_refused(s3_bucket, monkeypatch):
    monkeypatch.delenv("CHIPCOST_S3_SECRET_ACCESS_KEY")
    with pytest.raises(ArchiveError, match="CHIPCOST_S3_ACCESS_KEY_ID is set without CHIPCOST_S3_"):
        archive.run_directories(f"s3://{s3_bucket}/x")


def test_the_lake_takes_the_same_store(s3_bucket, s3_endpoint, monkeypatch):
    """The lake's DuckDB secret comes from CHIPCOST_S3_* too: httpfs writes and reads there."""
    aws_of_its_own(monkeypatch)
    data = f"s3://{s3_bucket}/lake"
    con = duckdb.connect()
    try:
        con.execute(f"INSTALL '{lake.extension_file(*lake.HTTPFS)}'").fetchall()
        con.execute("LOAD httpfs").fetchall()
        lake._s3_secret(con, data)
        con.execute(f"COPY (SELECT 42 AS answer) TO '{data}/probe.parquet'").fetchall()
        assert con.execute(f"SELECT answer FROM '{data}/probe.parquet'").fetchall() == [(42,)]
    finally:
        con.close()
    head = s3_client().head_object(Bucket=s3_bucket, Key="lake/probe.parquet")
    assert head["ContentLength"] > 0
    monkeypatch.delenv(ENDPOINT_ENV)
    with pytest.raises(WarehouseError, match="is set and the lake's data s3://.* CHIPCOST_S3_"):
        lake._s3_secret(duckdb.connect(), data)
