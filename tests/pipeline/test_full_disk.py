"""A full disk while archiving fails the source in one line saying what to do, not
"unexpected OSError ... This is a bug in chipcost" (main at 368c4bd). The disk is real: a
tmpfs of 64 KB, filled up, under the data directory (skipped where mounting is not allowed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from chipcost.core.runs import FAILED
from chipcost.core.settings import Settings
from chipcost.extract import _http, registry, runpod
from tests.fault_server import fault_server, respond
from tests.paths import FIXTURES

BODY = (FIXTURES / "runpod" / "gpu-types.json").read_bytes()


@pytest.fixture
def full_disk(tmp_path: Path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.decode().strip()})")
    try:
        _fill(disk / "filler")
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)


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
