"""A replay stopped by a full disk under its warehouse says what a replay stopped by a signal
says (the runs loaded, each whole, into which warehouse) and its own next step: room on that
disk, then the same command, which loads the rest. The disk is real: a tmpfs, filled up as the
first run's load commits (skipped where mounting is not allowed)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import duckdb
import pytest

from chipcost.core.disk import mount_of
from chipcost.core.errors import WarehouseError
from tests.cli_runner import chipcost
from tests.collecting import collect
from tests.disks import small_disk
from tests.pipeline.test_full_disk import _fill

SOURCES = ("lambda", "runpod")


@pytest.fixture
def disk(tmp_path: Path):
    with small_disk(tmp_path / "disk", "32m") as disk:
        yield disk


@pytest.fixture
def archive(tmp_path: Path, sample_runs: list[Path]) -> Path:
    """Three sample runs of two small sources each: a replay of a few seconds."""
    for run in sample_runs[:3]:
        for source in SOURCES:
            shutil.copytree(run / source, tmp_path / "archive" / run.name / source)
    return tmp_path / "archive"


class _FillsOnLoad(logging.Handler):
    """Fills the disk once the first run's load has committed: the next one finds no room."""

    def __init__(self, disk: Path) -> None:
        super().__init__()
        self.disk = disk

    def emit(self, record: logging.LogRecord) -> None:
        filler = self.disk / "filler"
        if getattr(record, "loaded_run", None) and not filler.exists():
            _fill(filler)


def _runs(db: Path) -> list[tuple[str, int]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        counted = "SELECT count(*) FROM observations o WHERE o.run_id = r.run_id"
        return con.execute(
            f"SELECT archive_run, ({counted}) FROM runs r ORDER BY archive_run"
        ).fetchall()
    finally:
        con.close()


def test_a_replay_stopped_by_a_full_disk_says_the_runs_loaded_and_its_own_next_step(
    disk, archive, tmp_path
):
    # On 2be067ce: "...; the warehouse keeps what was committed before it; runs archived but
    # not loaded are loaded by the next `chipcost collect`", which found no pending run.
    env = {**os.environ, "CHIPCOST_DATA_DIR": str(tmp_path / "data"), "CHIPCOST_TRACEBACK": "0"}
    db = disk / "w.duckdb"
    replay = ("collect", "--replay", str(archive), "--db", str(db))
    first, *_ = runs = sorted(p.name for p in archive.iterdir())
    progress = logging.getLogger("chipcost.progress")
    filler = _FillsOnLoad(disk)
    progress.addHandler(filler)
    try:
        stopped = chipcost(*replay, env=env)
    finally:
        progress.removeHandler(filler)
    assert stopped.returncode == 1 and "Traceback" not in stopped.stderr, _tail(stopped)
    [said] = [line for line in stopped.stderr.splitlines() if line.startswith("error:")]
    assert said == f"error: {_stopped_words(db, first)}"
    assert [run for run, _ in _runs(db)] == [first]  # as said, read through the log kept
    (disk / "filler").unlink()
    again = chipcost(*replay, env=env)
    assert again.returncode == 0, _tail(again)
    # The log left by the stop did no harm: the same runs, each once, as a replay with room.
    whole = tmp_path / "whole.duckdb"
    with_room = chipcost("collect", "--replay", str(archive), "--db", str(whole), env=env)
    assert with_room.returncode == 0, _tail(with_room)
    assert [run for run, _ in _runs(db)] == runs
    assert _runs(db) == _runs(whole)


def _stopped_words(db: Path, first: str) -> str:
    """What a replay of three runs stopped by a full disk after its first says."""
    wal = Path(f"{db}.wal")
    return (
        f"the disk holding {wal} (the file system at {mount_of(wal)}) is full (No space left on "
        f"device): 1 of 3 runs loaded ({first}) into {db}, each whole; nothing of the run under "
        f"way. Free some space on that disk (keep {wal}: it holds what is not yet written into "
        "the warehouse's file), then run the same command again to load the rest (loaded runs "
        "are skipped)"
    )


def test_a_replay_called_from_python_says_the_same_on_a_full_disk(disk, archive, tmp_path):
    # It said the live collection's "...; runs archived but not loaded are loaded by the next
    # `chipcost collect`": the command line's words were its own, after the collection's.
    db = disk / "w.duckdb"
    first = min(p.name for p in archive.iterdir())
    progress = logging.getLogger("chipcost.progress")
    filler, level = _FillsOnLoad(disk), progress.level
    progress.addHandler(filler)
    progress.setLevel(logging.INFO)  # as the command line's progress sets it: loads are info
    try:
        with pytest.raises(WarehouseError) as stopped:
            collect(replay=str(archive), db=str(db), data_dir=str(tmp_path / "data"))
    finally:
        progress.removeHandler(filler)
        progress.setLevel(level)
    assert str(stopped.value) == _stopped_words(db, first)
    assert [run for run, _ in _runs(db)] == [first]


def _tail(ran) -> str:
    return ran.stderr[-2000:]
