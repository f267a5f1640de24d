"""Every read opens the warehouse one way (warehouse/reader.py): it waits for a writer the
reader wait, runs within the read limits (time, memory, temporary disk; named when hit) and
spills into a temporary directory of its own, never beside the warehouse."""

from __future__ import annotations

import logging
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

import chipcost
from chipcost.core.errors import ChipcostError
from chipcost.reports.alerts import large_moves
from tests import warehouses
from tests.helpers import loaded_warehouse, record
from tests.holders import holding, release

WAIT_LOG = "chipcost.progress.wait"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("reads") / "w.duckdb"
    offers = [record(region=f"region-{i:04d}", price_per_hour=10.0 + i) for i in range(2000)]
    return loaded_warehouse(path, offers)


class _ReleaseWhenWaiting(logging.Handler):
    """Lets the writer go once the reader says it is waiting for it."""

    def __init__(self, holder: subprocess.Popen) -> None:
        super().__init__()
        self.holder = holder
        self.waited = False

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("waiting for"):
            self.waited = True
            release(self.holder)


READERS = {
    "site": lambda db, out: ["site", "--out", str(out), "--db", str(db)],
    "sources": lambda db, out: ["sources", "--db", str(db)],
    "history": lambda db, out: ["history", "--chip", "H100", "--db", str(db)],
    "report": lambda db, out: ["report", "--dry-run", "--db", str(db)],
}


@pytest.mark.parametrize("command", list(READERS))
def test_every_reader_waits_for_a_writer(warehouse, tmp_path, run, command):
    logger = logging.getLogger(WAIT_LOG)
    with holding(warehouse, read_only=False) as holder:
        released = _ReleaseWhenWaiting(holder)
        logger.addHandler(released)
        try:
            done = run(*READERS[command](warehouse, tmp_path / "site"))
        finally:
            logger.removeHandler(released)
    assert released.waited, f"{command} did not wait for the writer"
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_alerts_and_the_api_wait_for_a_writer(warehouse):
    logger = logging.getLogger(WAIT_LOG)
    level = logger.level
    logger.setLevel(logging.INFO)
    for read in (
        lambda: large_moves(warehouse, datetime(2026, 1, 1, tzinfo=UTC), 5.0),
        lambda: chipcost.sources(db=warehouse),
    ):
        with holding(warehouse, read_only=False) as holder:
            released = _ReleaseWhenWaiting(holder)
            logger.addHandler(released)
            try:
                read()
            finally:
                logger.removeHandler(released)
        assert released.waited
    logger.setLevel(level)


@pytest.fixture(scope="module")
def years(tmp_path_factory) -> Path:
    """2,000 offers in force every day since 2019: a history read of 5 million offer-days,
    a second or more of work (a time limit of 0.2 s is met in the middle of it)."""
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.load import load_run
    from tests.helpers import run_of

    path = tmp_path_factory.mktemp("years") / "w.duckdb"
    offers = [record(region=f"region-{i:04d}", price_per_hour=10.0 + i) for i in range(2000)]
    con = open_warehouse(warehouses.new(path))
    for when in (datetime(2019, 1, 1, 6, tzinfo=UTC), datetime(2026, 11, 1, 6, tzinfo=UTC)):
        load_run(con, run_of(offers, when))
    con.close()
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["history", "--chip", "H100", "--format", "csv"],
        ["index", "--chip", "H100", "--since", "2026-01-01"],
        ["prices", "--format", "json"],
        ["site", "--out", "SITE"],
        ["report", "--dry-run"],
        ["cost", "--model", "llama-3-70b", "--workload", "inference"],
    ],
)
def test_every_read_is_held_to_its_memory_and_names_it(warehouse, tmp_path, run, args):
    args = [str(tmp_path / "site") if a == "SITE" else a for a in args]
    done = run(*args, "--db", str(warehouse), env={"CHIPCOST_SQL_MEMORY": "1MB"})
    assert done.returncode == 1, (done.stdout[-500:], done.stderr[-1500:])
    assert "Traceback" not in done.stderr
    said = " ".join(done.stderr.split())
    assert "the read needed more than 1MB of memory (CHIPCOST_SQL_MEMORY)" in said, said
    assert not list(warehouse.parent.glob("*.tmp")), "spilled beside the warehouse"


@pytest.mark.parametrize(
    "args",
    [
        ["history", "--chip", "H100", "--since", "2019-01-01", "--format", "csv"],
        ["index", "--since", "2019-01-01"],
    ],
)
def test_a_long_read_is_stopped_at_its_time_and_names_it(years, run, args):
    done = run(*args, "--db", str(years), env={"CHIPCOST_SQL_TIMEOUT": "0.2"})
    assert done.returncode == 1, (done.stdout[-500:], done.stderr[-1500:])
    assert "Traceback" not in done.stderr
    said = " ".join(done.stderr.split())
    assert "the read ran past 0.2 s (CHIPCOST_SQL_TIMEOUT) and was stopped" in said, said


def test_the_api_is_held_to_the_limits(years, monkeypatch):
    monkeypatch.setenv("CHIPCOST_SQL_TIMEOUT", "0.2")
    with pytest.raises(ChipcostError, match=r"ran past 0\.2 s \(CHIPCOST_SQL_TIMEOUT\)"):
        chipcost.history(chip="H100", since="2019-01-01", db=years)
