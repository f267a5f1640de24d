"""`chipcost sql` has a time, a memory and a temporary-disk limit, each configurable and named
when hit. On main at 368c4bd a runaway query ran until killed, holding the file (a collect
then failed its lock wait), or spilled next to the warehouse until the disk was nearly full."""

from __future__ import annotations

import gc
import os
import threading
import time
import weakref
from pathlib import Path

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.sql_limits import SqlLimits, sql_limits
from chipcost.warehouse.reader import open_reader
from chipcost.warehouse.readonly import read_rows
from tests.cli_runner import chipcost as run_chipcost
from tests.helpers import loaded_warehouse, record

RUNAWAY = "SELECT count(*) FROM range(1000000000) a, range(1000000000) b"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return loaded_warehouse(tmp_path_factory.mktemp("limits") / "w.duckdb", [record()])


def test_a_runaway_query_is_stopped_at_its_time_limit(db):
    started = time.monotonic()
    with pytest.raises(ChipcostError, match=r"ran past 1 s \(CHIPCOST_SQL_TIMEOUT\)"):
        read_rows(db, RUNAWAY, limits=SqlLimits(timeout=1.0))
    assert time.monotonic() - started < 15


def test_a_closed_read_is_not_held_until_its_time_limit(db):
    """The limit's timer waits out the read's time, but holds its connection weakly: a
    process that goes on (the Python API's) frees a read it has closed and dropped."""
    con = open_reader(db, limits=SqlLimits(timeout=600.0))
    assert con.execute("SELECT count(*) FROM price_history").fetchone() == (1,)
    held = weakref.ref(con)
    con.close()
    del con
    gc.collect()
    assert held() is None


def test_reads_in_their_time_limit_share_one_thread(db):
    """Twenty reads open at once (a process of the Python API's) wait out their limits on one
    thread, not a thread each."""
    before = threading.active_count()
    cons = [open_reader(db, limits=SqlLimits(timeout=600.0)) for _ in range(20)]
    try:
        assert threading.active_count() <= before + 1
    finally:
        for con in cons:
            con.close()


def test_a_read_past_its_limit_is_stopped_while_later_ones_wait(db):
    """The limit of each read is its own: one with a long limit opened first does not hold
    back the interrupt of a short one opened after it."""
    patient = open_reader(db, limits=SqlLimits(timeout=600.0))
    try:
        started = time.monotonic()
        with pytest.raises(ChipcostError, match=r"ran past 1 s"):
            read_rows(db, RUNAWAY, limits=SqlLimits(timeout=1.0))
        assert time.monotonic() - started < 15
        assert patient.execute("SELECT count(*) FROM price_history").fetchone() == (1,)
    finally:
        patient.close()


def test_a_query_past_its_memory_is_stopped_naming_the_limit(db):
    big = "SELECT list(range) FROM range(50000000) GROUP BY range % 3"
    with pytest.raises(ChipcostError, match="CHIPCOST_SQL_MEMORY"):
        read_rows(db, big, limits=SqlLimits(memory="64MB", temp="1MB"))


def test_an_ordinary_query_reads_within_the_limits(db):
    result = read_rows(db, "SELECT count(*) AS n FROM price_history", limits=SqlLimits())
    assert result.rows == [(1,)]


def test_the_cli_takes_its_limits_from_the_environment(db):
    env = {**os.environ, "CHIPCOST_SQL_TIMEOUT": "1"}
    started = time.monotonic()
    done = run_chipcost("sql", RUNAWAY, "--db", str(db), env=env)
    assert done.returncode == 1 and "CHIPCOST_SQL_TIMEOUT" in done.stderr
    assert "Traceback" not in done.stderr and time.monotonic() - started < 30


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"CHIPCOST_SQL_TIMEOUT": "soon"}, "CHIPCOST_SQL_TIMEOUT='soon'"),
        ({"CHIPCOST_SQL_MEMORY": "lots"}, "CHIPCOST_SQL_MEMORY='lots'"),
        ({"CHIPCOST_SQL_TEMP": "-1GB"}, "CHIPCOST_SQL_TEMP='-1GB'"),
    ],
)
def test_a_malformed_limit_is_refused_naming_it(env, said, monkeypatch):
    for name, text in env.items():
        monkeypatch.setenv(name, text)
    with pytest.raises(ChipcostError, match=said):
        sql_limits()


def test_limits_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("CHIPCOST_SQL_TIMEOUT", "5")
    monkeypatch.setenv("CHIPCOST_SQL_MEMORY", "512MB")
    found = sql_limits()
    assert found == SqlLimits(timeout=5.0, memory="512MB", temp="1GB")
