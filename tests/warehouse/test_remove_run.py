"""`remove-run` restates from every remaining fact: after it, the warehouse holds what a replay
of the archive without that run makes, table by table, for the oldest, a middle and the newest
run, in a DuckDB file and in a lake (its catalog on a real PostgreSQL), a collect loading into
the lake meanwhile included.

The runs are the bundled sample archive's, replayed for real (`chipcost collect --replay`).
"""

from __future__ import annotations

import shutil
import threading
from datetime import timedelta
from pathlib import Path

import duckdb
import polars as pl
import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.settings import Settings, Warehouse
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse import remove_run as removal
from chipcost.warehouse.changes import change_events, price_moves
from chipcost.warehouse.db import connect
from chipcost.warehouse.remove_run import remove_run
from tests import warehouses
from tests.collecting import collect
from tests.lake_support import replay, settings_for

RUNS = warehouses.sample_runs()
OLDEST, MIDDLE, NEWEST = 0, len(RUNS) // 2, len(RUNS) - 1

# Each table as a replay would write it, without what differs on every replay: run ids (named
# by the archived run instead), load times, seconds taken and the version that loaded it.
# The notes a source said when it was collected (a price jump "since" the run before) are
# what was said then, and are not restated; the spot interruption buckets of the run before a
# removed one are not in the warehouse to put back (docs/operations.md): their values are.
TABLES = {
    "price_history": """
        SELECT h.* EXCLUDE (first_run_id, last_run_id), f.archive_run, l.archive_run
        FROM price_history h LEFT JOIN runs f ON f.run_id = h.first_run_id
        LEFT JOIN runs l ON l.run_id = h.last_run_id""",
    "current_prices": "SELECT * FROM current_prices",
    "per_chip_prices": "SELECT * FROM per_chip_prices",
    "runs": "SELECT * EXCLUDE (run_id, started_at, finished_at, chipcost_version) FROM runs",
    "source_runs": "SELECT * EXCLUDE (run_id, seconds, notes) FROM source_runs",
    "observations": "SELECT * EXCLUDE (run_id) FROM observations",
    "rejects": "SELECT * EXCLUDE (run_id) FROM rejects",
    "spot_interruptions": (
        "SELECT * EXCLUDE (observed_at, payload_ref) FROM spot_interruptions"
    ),
}


def tables(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple]]:
    return {
        name: sorted(map(repr, con.execute(sql).fetchall())) for name, sql in TABLES.items()
    }


def report_frames(con: duckdb.DuckDBPyConnection) -> dict[str, pl.DataFrame]:
    """The report's changes over the whole sample: its events and its moves."""
    start = RUNS[0].name[:10] + " 00:00:00+00"
    end = RUNS[-1].name[:10] + " 23:59:59+00"
    [(start, end)] = con.execute(
        "SELECT ?::TIMESTAMPTZ, ?::TIMESTAMPTZ", [start, end]
    ).fetchall()
    return {
        "events": change_events(con, start, end).drop("payload_ref"),
        "moves": price_moves(con, start, end, end - timedelta(days=7)),
    }


def replay_without(root: Path, skipped: int | None, runs: list[Path] = RUNS) -> Path:
    """`chipcost collect --replay` of the archive without run `skipped`, into a new file."""
    archive = root / "archive"
    for i, run in enumerate(runs):
        if i != skipped:
            shutil.copytree(run, archive / run.name)
    db = warehouses.new(root / "w.duckdb")
    collect(replay=str(archive), db=str(db), data_dir=str(root / "data"))
    return db


def run_id_of(con: duckdb.DuckDBPyConnection, archive_run: str) -> str:
    [(run_id,)] = con.execute(
        "SELECT run_id FROM runs WHERE archive_run = ?", [archive_run]
    ).fetchall()
    return run_id


def assert_same(removed: duckdb.DuckDBPyConnection, replayed: duckdb.DuckDBPyConnection):
    ours, theirs = tables(removed), tables(replayed)
    for name in TABLES:
        assert ours[name] == theirs[name], name
    ours, theirs = report_frames(removed), report_frames(replayed)
    for name, frame in ours.items():
        assert frame.sort(frame.columns).equals(theirs[name].sort(frame.columns)), name


@pytest.mark.parametrize("removed", [OLDEST, MIDDLE, NEWEST], ids=["oldest", "middle", "newest"])
def test_removing_a_run_of_a_file_leaves_what_a_replay_without_it_makes(tmp_path, removed):
    db = warehouses.sample(tmp_path / "all.duckdb")
    con = open_warehouse(Warehouse(str(db)))
    try:
        history_before = con.execute("SELECT min(valid_from) FROM price_history").fetchall()
        remove_run(con, run_id_of(con, RUNS[removed].name))
    finally:
        con.close()
    expected = replay_without(tmp_path / "without", removed)
    with connect(Warehouse(str(db)), read_only=True) as ours:
        with connect(Warehouse(str(expected)), read_only=True) as theirs:
            assert_same(ours, theirs)
            if removed != OLDEST:  # the history still starts where it did
                got = ours.execute("SELECT min(valid_from) FROM price_history").fetchall()
                assert got == history_before
