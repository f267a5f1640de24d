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
from chipcost.core.settings import Warehouse
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse import remove_run as removal
from chipcost.warehouse.changes import change_events, price_moves
from chipcost.warehouse.db import connect
from chipcost.warehouse.remove_run import remove_run
from tests import warehouses
from tests.collecting import collect
from tests.lake_support import LakeTemplate, copy_of, replay, settings_for

RUNS = warehouses.sample_runs()
OLDEST, MIDDLE, NEWEST = 0, len(RUNS) // 2, len(RUNS) - 1

# Each table as a replay would write it, without what differs on every replay: run ids (named
# by the archived run instead), load times, seconds taken and the version that loaded it.
# The notes a source said when it was collected (a price jump "since" the run before) are
# what was said then, and are not restated; the spot interruption buckets of the run before a
# removed one are not in the warehouse to put back (docs/operations.md): their values are.
# A removed run's reference rates are put back under the first later run whose file holds
# them, as a replay reads them there (warehouse/remove_run.py): day, currency and rate compared.
TABLES = {
    "fx_rates": "SELECT day, currency, per_eur, source FROM fx_rates",
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
    "spot_interruptions": ("SELECT * EXCLUDE (observed_at, payload_ref) FROM spot_interruptions"),
}


def tables(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple]]:
    return {name: sorted(map(repr, con.execute(sql).fetchall())) for name, sql in TABLES.items()}


def report_frames(con: duckdb.DuckDBPyConnection) -> dict[str, pl.DataFrame]:
    """The report's changes over the whole sample: its events and its moves."""
    start = RUNS[0].name[:10] + " 00:00:00+00"
    end = RUNS[-1].name[:10] + " 23:59:59+00"
    [(start, end)] = con.execute("SELECT ?::TIMESTAMPTZ, ?::TIMESTAMPTZ", [start, end]).fetchall()
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


# The lake's cases on the sample's first four runs: each removal wants a lake of its own.
FOUR = RUNS[:4]


@pytest.fixture(scope="module")
def four_without(tmp_path_factory) -> dict[int, Path]:
    """The replays of the four runs without each one, into files, made once for the module."""
    root = tmp_path_factory.mktemp("four")
    return {i: replay_without(root / str(i), i, FOUR) for i in (0, 1, 3)}


@pytest.fixture(scope="module")
def loaded_lakes(pg_server, lake_template, tmp_path_factory) -> dict[int, LakeTemplate]:
    """Lakes holding the first two, three and four runs, replayed once for the module and
    kept as templates: each test removes from a copy of its own."""
    made = {}
    for count in (2, 3, 4):
        root = tmp_path_factory.mktemp(f"lake{count}")
        lake = copy_of(pg_server, lake_template, root / "lake-data")
        replay(settings_for(lake, root), FOUR[:count])
        database = lake.url.split("dbname=")[1].split()[0]
        made[count] = LakeTemplate(database, root / "lake-data")
    return made


def _lake_of(pg_server, loaded_lakes, tmp_path: Path, count: int) -> Warehouse:
    """A lake of the test's own holding the first `count` runs."""
    return copy_of(pg_server, loaded_lakes[count], tmp_path / "lake-data")


@pytest.mark.parametrize("removed", [0, 1, 3], ids=["oldest", "middle", "newest"])
def test_removing_a_run_of_a_lake_leaves_what_a_replay_without_it_makes(
    pg_server, loaded_lakes, tmp_path, four_without, removed
):
    lake = _lake_of(pg_server, loaded_lakes, tmp_path, 4)
    con = open_warehouse(lake)
    try:
        remove_run(con, run_id_of(con, FOUR[removed].name))
    finally:
        con.close()
    with connect(lake, read_only=True) as ours:
        with connect(Warehouse(str(four_without[removed])), read_only=True) as theirs:
            assert_same(ours, theirs)


def test_a_removal_during_a_collect_into_the_lake_is_rerun_on_its_snapshot(
    pg_server, loaded_lakes, tmp_path, four_without
):
    """The collect loads the fourth run while the second is removed: one of the two commits
    conflicts and is rerun, and the lake ends as a replay of runs one, three and four."""
    lake = _lake_of(pg_server, loaded_lakes, tmp_path, 3)
    remover = open_warehouse(lake)
    removed = run_id_of(remover, FOUR[1].name)
    barrier, errors = threading.Barrier(2), []

    def removing() -> None:
        barrier.wait()
        try:
            remove_run(remover, removed)
        except Exception as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=removing)
    thread.start()
    barrier.wait()
    replay(settings_for(lake, tmp_path), FOUR[3:])
    thread.join()
    remover.close()
    assert errors == []
    with connect(lake, read_only=True) as ours:
        with connect(Warehouse(str(four_without[1])), read_only=True) as theirs:
            assert_same(ours, theirs)


def test_a_removal_that_keeps_conflicting_is_one_line_and_changes_nothing(
    pg_server, loaded_lakes, tmp_path, monkeypatch
):
    """Another writer commits during every attempt (a collect loading run after run): after
    the loader's number of attempts, one line saying what to do, and the lake as it was."""
    lake = _lake_of(pg_server, loaded_lakes, tmp_path, 2)
    other = open_warehouse(lake)
    restate = removal.restate_since

    def while_another_commits(con, since) -> None:
        restate(con, since)
        other.execute("UPDATE load_claim SET claimed_at = now()")  # its own commit

    monkeypatch.setattr(removal, "restate_since", while_another_commits)
    con = open_warehouse(lake)
    try:
        before = tables(con)
        run_id = run_id_of(con, FOUR[0].name)
        with pytest.raises(ChipcostError) as refused:
            remove_run(con, run_id)
        assert tables(con) == before
    finally:
        con.close()
        other.close()
    said = str(refused.value)
    assert "\n" not in said
    assert f"run {run_id} was not removed: other writers changed the warehouse" in said
    assert f"`chipcost remove-run {run_id}` again" in said


def test_with_older_observations_pruned_the_newest_run_is_restated_and_an_old_one_refused(
    tmp_path, monkeypatch
):
    """Observations kept two days: the newest run's removal reads nothing older than the day
    before it and still equals the replay without it; the oldest run's would need observations
    the window has pruned, so it is refused, nothing changed, naming the way out."""
    monkeypatch.setenv("CHIPCOST_OBSERVATIONS_DAYS", "2")
    db = replay_without(tmp_path / "all", None)
    expected = replay_without(tmp_path / "without", NEWEST)
    con = open_warehouse(Warehouse(str(db)))
    try:
        assert con.execute("SELECT min(observed_at) FROM observations").fetchall()[0][0].day == 19
        before = tables(con)
        with pytest.raises(ChipcostError) as refused:
            remove_run(con, run_id_of(con, RUNS[OLDEST].name))
        assert tables(con) == before
        remove_run(con, run_id_of(con, RUNS[NEWEST].name))
    finally:
        con.close()
    said = str(refused.value)
    assert "later run(s), from 2026-11-15 06:00 UTC, are older than the observations" in said
    assert "Replay the archive without this run into a new warehouse" in said
    with connect(Warehouse(str(db)), read_only=True) as ours:
        with connect(Warehouse(str(expected)), read_only=True) as theirs:
            got, want = tables(ours), tables(theirs)
            for name in ("price_history", "current_prices", "per_chip_prices", "runs"):
                assert got[name] == want[name], name
