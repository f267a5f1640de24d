"""A full disk while archiving fails the source in one line saying what to do, not
"unexpected OSError ... This is a bug in chipcost" (main at 368c4bd). The disk is real: a
tmpfs of 64 KB, filled up, under the data directory (skipped where mounting is not allowed)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest

from chipcost.core.disk import no_room
from chipcost.core.runs import FAILED
from chipcost.core.settings import Settings, SourceSettings
from chipcost.extract import _http, registry, runpod
from chipcost.extract.aws import _public as _aws_public
from chipcost.pipeline.pending import mark_pending
from tests.disks import small_disk
from tests.fault_server import fault_server, respond
from tests.paths import FIXTURES
from tests.price_files_server import serve

STAMP = "2026-11-23T060000Z"

BODY = (FIXTURES / "runpod" / "gpu-types.json").read_bytes()


@pytest.fixture
def full_disk(tmp_path: Path):
    with _full(tmp_path / "disk") as disk:
        yield disk


@contextmanager
def _full(disk: Path) -> Iterator[Path]:
    """A tmpfs of 64 KB mounted at `disk` (made), filled up; unmounted after."""
    with small_disk(disk, "64k"):
        _fill(disk / "filler")
        yield disk


def _fill(path: Path) -> None:
    """Write zeros until the disk refuses (ENOSPC), closing the file whatever it says."""
    handle = path.open("wb", buffering=0)
    try:
        while True:
            handle.write(b"\0" * 4096)
    except OSError:
        pass
    finally:
        try:
            handle.close()
        except OSError:
            pass


def test_a_full_disk_fails_the_source_saying_so(full_disk, tmp_path, monkeypatch):
    from chipcost.pipeline.collect import collect_source

    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)
    with fault_server(respond(200, BODY)) as server:
        monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
        settings = Settings(data_dir=full_disk, db_path=tmp_path / "w.duckdb")
        result = collect_source(registry()["runpod"], settings=settings, stamp="2026-11-23T060000Z")
    assert result.status == FAILED
    assert "the disk holding" in result.message and "is full" in result.message
    assert "CHIPCOST_DATA_DIR" in result.message and "bug" not in result.message


@pytest.fixture
def full_downloads(tmp_path: Path):
    """A data directory whose downloads are a full disk, its archive on a disk with room."""
    with _full(tmp_path / "data" / "downloads"):
        yield tmp_path / "data"


def _no_part_left(data: Path) -> None:
    assert not [p.name for p in (data / "downloads").rglob("*") if ".part" in p.name]


def test_a_full_disk_under_the_downloads_names_it_not_the_archive(
    full_downloads, tmp_path, monkeypatch
):
    # The archive's disk has room: it was named all the same, and index.csv.part was left.
    from chipcost.pipeline.collect import collect_source

    monkeypatch.setattr(_aws_public, "credentials_origin", lambda: "")
    with serve(FIXTURES / "aws-bulk") as server:
        sources = SourceSettings(aws_price_list_url=server.url, aws_regions=("us-east-1",))
        settings = Settings(data_dir=full_downloads, db_path=tmp_path / "w.duckdb", sources=sources)
        result = collect_source(registry()["aws-bulk"], settings=settings, stamp=STAMP)
    assert result.status == FAILED
    disk = full_downloads / "downloads"
    assert f"the disk holding {disk}/offers/" in result.message
    assert f"index.csv.part (the file system at {disk}) is full" in result.message
    assert "the archive" not in result.message
    _no_part_left(full_downloads)


def test_a_backfill_on_a_full_disk_stops_its_version_naming_the_file(full_downloads, tmp_path):
    # It was "error: a disk is full (No space left on device): the write failed", naming nothing.
    from chipcost.pipeline.backfill import backfill

    with serve(FIXTURES / "aws-bulk") as server:
        sources = SourceSettings(aws_price_list_url=server.url)
        settings = Settings(data_dir=full_downloads, db_path=tmp_path / "w.duckdb", sources=sources)
        outcomes = backfill(settings, date(2025, 5, 1), ("us-east-1",), sleep=lambda s: None)
    [stopped] = [o for o in outcomes if o.status == "failed"]
    disk = full_downloads / "downloads"
    assert f"index.csv.part (the file system at {disk}) is full" in stopped.message
    _no_part_left(full_downloads)


def test_a_pending_marker_on_a_full_disk_names_it_and_leaves_no_part(full_disk, tmp_path):
    # It left pending/<run>.json.part (0 bytes) for good, and its error named no file.
    settings = Settings(data_dir=full_disk, db_path=tmp_path / "w.duckdb")
    (full_disk / "pending").mkdir(exist_ok=True)
    with pytest.raises(OSError) as failed:
        mark_pending(settings, STAMP)
    marker = full_disk / "pending" / f"{STAMP}.json"
    assert failed.value.filename == str(marker)
    assert f"the disk holding {marker} (the file system at {full_disk}) is full" in no_room(
        failed.value
    )
    assert list((full_disk / "pending").iterdir()) == []
