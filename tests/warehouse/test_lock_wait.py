"""Opening a warehouse another process holds: a bounded wait, said aloud, the holder named."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chipcost.core.errors import WarehouseBusy
from chipcost.warehouse.db import connect
from chipcost.warehouse.lock_wait import describe_holder
from tests import warehouses
from tests.holders import holding, release

WAIT_LOG = "chipcost.progress.wait"
PYTHON = Path(sys.executable).name


def release_when_waiting(holder: subprocess.Popen) -> logging.Handler:
    """A log handler that lets the holder go once the opener says it is waiting."""

    class Release(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("waiting for"):
                release(holder)

    return Release()


@pytest.fixture
def db(tmp_path) -> Path:
    return warehouses.new(tmp_path / "w.duckdb")


@pytest.fixture
def wait_log() -> Iterator[logging.Logger]:
    logger = logging.getLogger(WAIT_LOG)
    level, propagate = logger.level, logger.propagate
    logger.setLevel(logging.INFO)
    logger.propagate = True  # to caplog's handler (an in-process CLI run turns it off)
    yield logger
    logger.setLevel(level)
    logger.propagate = propagate


@pytest.mark.parametrize("writer_waits", [True, False])
def test_an_opener_waits_for_the_holder_then_opens(db, wait_log, writer_waits, caplog):
    # A writer waits for a reader; a reader waits for a writer.
    with holding(db, read_only=writer_waits) as holder:
        release = release_when_waiting(holder)
        wait_log.addHandler(release)
        try:
            with caplog.at_level(logging.INFO, logger=WAIT_LOG):
                con = connect(db, read_only=not writer_waits, wait=120)
        finally:
            wait_log.removeHandler(release)
        con.close()
        assert holder.returncode == 0, "the opener got in only after the holder let go"
    messages = [r.getMessage() for r in caplog.records if r.name == WAIT_LOG]
    assert f"process {holder.pid} ({PYTHON} -c)" in messages[0]
    assert messages[-1] == f"{db} is free: going on"


def test_a_writer_gives_up_after_its_wait_and_names_the_holder(db, wait_log, caplog):
    with holding(db, read_only=True) as holder:
        with caplog.at_level(logging.INFO, logger=WAIT_LOG):
            with pytest.raises(WarehouseBusy) as caught:
                connect(db, wait=0.5)
    message = str(caught.value)
    assert f"is in use by process {holder.pid} ({PYTHON} -c): waited 0.5 s" in message
    assert "CHIPCOST_LOCK_WAIT" in message
    assert "import duckdb" not in message, "a command line is shown up to its first non-word"
    assert any(r.getMessage().startswith("waiting for") for r in caplog.records)


def test_a_reader_that_meets_a_writer_says_a_write_is_under_way(db):
    with holding(db, read_only=False) as holder:
        with pytest.raises(WarehouseBusy, match=f"process {holder.pid} .*which is writing it"):
            connect(db, read_only=True, wait=0.2)


def test_the_holder_is_described_from_its_command_line():
    mine = describe_holder(f"Conflicting lock is held in /usr/bin/python3 (PID {os.getpid()})")
    assert mine.startswith(f"process {os.getpid()} (python")
    gone = describe_holder("Conflicting lock is held in /opt/bin/duckdb (PID 999999999)")
    assert gone == "process 999999999 (duckdb)"
    assert describe_holder("IO Error: Could not set lock on file") == "another process"
