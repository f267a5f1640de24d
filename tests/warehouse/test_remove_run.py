"""`remove-run` restates from every remaining fact: after it, the warehouse holds what a replay
of the archive without that run makes, table by table, for the oldest, the middle and the newest
of three runs in a DuckDB file, and for the middle one (a run before it and a run after it to
restate) in a lake (its catalog on a real PostgreSQL), a collect loading into the lake
meanwhile included. The removal runs the same statements in both kinds and at every position
(warehouse/remove_run.py: only a lake's commit is retried); that both kinds read and load
alike is test_conformance.py's.

The runs are the bundled sample archive's first three, replayed for real (`chipcost collect
--replay`); each replay is made once for the module and each test removes from a copy of its own.
"""

from __future__ import annotations

import gzip
import shutil
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from chipcost.archive import ArchiveWriter, parse_stamp
from chipcost.core.errors import ChipcostError
from chipcost.core.record import PriceRecord, Reject
from chipcost.core.runs import RunResult
from chipcost.core.settings import Warehouse
from chipcost.extract import source_providers
from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.seeweb import PLANS_URL
from chipcost.pipeline.seed import open_warehouse
from chipcost.transform.validate import validate_records
from chipcost.warehouse import remove_run as removal
from chipcost.warehouse.db import connect
from chipcost.warehouse.load import LAKE_LOAD_ATTEMPTS, load_run
from chipcost.warehouse.remove_run import remove_run
from tests import warehouses
from tests.collecting import collect
from tests.helpers import day, record, run_of
from tests.lake_support import (
    LakeTemplate,
    assert_same,
    copy_of,
    replay,
    sample_lake,
    settings_for,
    tables,
)
from tests.paths import FIXTURES

RUNS = warehouses.sample_runs()[:3]
OLDEST, MIDDLE, NEWEST = 0, 1, 2
POSITIONS = {"oldest": OLDEST, "middle": MIDDLE, "newest": NEWEST}


def replay_without(root: Path, skipped: int | None, runs: list[Path] = RUNS) -> Path:
    """`chipcost collect --replay` of `runs` without run `skipped`, into a new file."""
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


@pytest.fixture(scope="module")
def without(tmp_path_factory) -> dict[int, Path]:
    """The replays of the three runs without each one, into files, made once for the module
    (without the newest: the run's shared replay of the first two runs)."""
    root = tmp_path_factory.mktemp("without")
    made = {i: replay_without(root / str(i), i) for i in (OLDEST, MIDDLE)}
    made[NEWEST] = warehouses.sample(root / "2" / "w.duckdb", first=2)
    return made


@pytest.fixture(scope="module")
def loaded_lakes(pg_server, tmp_path_factory) -> dict[int, LakeTemplate]:
    """Lakes holding the first two and all three runs (the third loaded into a copy of the
    first), replayed once and kept as templates: each test removes from a copy of its own."""
    made = {2: sample_lake(pg_server, 2)}  # the run's, test_conformance.py's too
    root = tmp_path_factory.mktemp("lake3")
    lake = copy_of(pg_server, made[2], root / "lake-data")
    replay(settings_for(lake, root), RUNS[2:])
    made[3] = LakeTemplate(lake.url.split("dbname=")[1].split()[0], root / "lake-data")
    return made


def _lake_of(pg_server, loaded_lakes, tmp_path: Path, count: int) -> Warehouse:
    """A lake of the test's own holding the first `count` runs."""
    return copy_of(pg_server, loaded_lakes[count], tmp_path / "lake-data")


@pytest.fixture
def holding_three(request, tmp_path) -> Callable[[], Warehouse]:
    """A warehouse of the test's own holding the three runs: a DuckDB file, or a lake."""
    if request.param == "file":
        return Warehouse(str(warehouses.sample(tmp_path / "w.duckdb", first=3)))
    pg_server, loaded_lakes = (request.getfixturevalue(f) for f in ("pg_server", "loaded_lakes"))
    return _lake_of(pg_server, loaded_lakes, tmp_path, 3)


# Every position in a file; in a lake the middle one, whose removal restates between the runs
# around it (the statements of the other two positions are a subset of its own).
CASES = [("file", position) for position in POSITIONS] + [("lake", "middle")]


@pytest.mark.parametrize(
    ("holding_three", "removed"),
    [(kind, POSITIONS[position]) for kind, position in CASES],
    ids=[f"{kind}-{position}" for kind, position in CASES],
    indirect=["holding_three"],
)
def test_removing_a_run_leaves_what_a_replay_without_it_makes(holding_three, without, removed):
    con = open_warehouse(holding_three)
    try:
        history_before = con.execute("SELECT min(valid_from) FROM price_history").fetchall()
        remove_run(con, run_id_of(con, RUNS[removed].name))
    finally:
        con.close()
    with connect(holding_three, read_only=True) as ours:
        with connect(Warehouse(str(without[removed])), read_only=True) as theirs:
            assert_same(ours, theirs, RUNS)
            if removed != OLDEST:  # the history still starts where it did
                got = ours.execute("SELECT min(valid_from) FROM price_history").fetchall()
                assert got == history_before


def test_a_removal_during_a_collect_into_the_lake_is_rerun_on_its_snapshot(
    pg_server, loaded_lakes, tmp_path, without
):
    """The collect loads the third run while the second is removed: one of the two commits
    conflicts and is rerun, and the lake ends as a replay of runs one and three."""
    lake = _lake_of(pg_server, loaded_lakes, tmp_path, 2)
    remover = open_warehouse(lake)
    removed = run_id_of(remover, RUNS[MIDDLE].name)
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
    replay(settings_for(lake, tmp_path), RUNS[2:])
    thread.join()
    remover.close()
    assert errors == []
    with connect(lake, read_only=True) as ours:
        with connect(Warehouse(str(without[MIDDLE])), read_only=True) as theirs:
            assert_same(ours, theirs, RUNS)


def test_a_removal_that_keeps_conflicting_is_one_line_and_changes_nothing(
    pg_server, lake_template, tmp_path, monkeypatch
):
    """Another writer commits during every attempt (a collect loading run after run): after
    the loader's number of attempts, one line saying what to do, and the lake as it was. The
    newer of two runs is removed: each attempt restates its history, with no run after it to
    load again. The runs are one price each (the sample's would restate thousands of rows on
    every attempt): the retries and the refusal do not depend on what is restated."""
    lake = copy_of(pg_server, lake_template, tmp_path / "lake-data")
    con, other = open_warehouse(lake), open_warehouse(lake)
    restate = removal.restate_since

    def while_another_commits(con, since) -> None:
        restate(con, since)
        other.execute("UPDATE load_claim SET claimed_at = now()")  # its own commit

    try:
        load_run(con, run_of([record()], day(0), run_id="older"))
        load_run(con, run_of([record(price_per_hour=60.0)], day(1), run_id="newer"))
        monkeypatch.setattr(removal, "restate_since", while_another_commits)
        before = tables(con)
        assert len(before["price_history"]) == 2  # the newer run's price is restated
        run_id = "newer"
        with pytest.raises(ChipcostError) as refused:
            remove_run(con, run_id)
        assert tables(con) == before
    finally:
        con.close()
        other.close()
    said = str(refused.value)
    assert "\n" not in said
    assert f"run {run_id} was not removed: other writers changed the warehouse" in said
    assert f"{LAKE_LOAD_ATTEMPTS} times while its history was restated" in said
    assert f"`chipcost remove-run {run_id}` again" in said


def test_with_older_observations_pruned_the_newest_run_is_restated_and_an_old_one_refused(
    tmp_path, monkeypatch
):
    """Four runs, observations kept one day: the newest run's removal reads nothing older than
    the day before it and still equals the replay without it (of the first three runs: the
    window changes none of the tables compared); the oldest run's would need observations the
    window has pruned, so it is refused, nothing changed, naming the way out."""
    monkeypatch.setenv("CHIPCOST_OBSERVATIONS_DAYS", "1")
    four = warehouses.sample_runs()[:4]
    db = replay_without(tmp_path / "all", None, four)
    expected = warehouses.sample(tmp_path / "three.duckdb", first=3)
    con = open_warehouse(Warehouse(str(db)))
    try:
        assert con.execute("SELECT min(observed_at) FROM observations").fetchall()[0][0].day == 16
        before = tables(con)
        with pytest.raises(ChipcostError) as refused:
            remove_run(con, run_id_of(con, four[0].name))
        assert tables(con) == before
        remove_run(con, run_id_of(con, four[-1].name))
    finally:
        con.close()
    said = str(refused.value)
    assert ": 1 later run, from 2026-11-15 06:00 UTC, is older than the observations" in said
    assert "Replay the archive without this run into a new warehouse" in said
    with connect(Warehouse(str(db)), read_only=True) as ours:
        with connect(Warehouse(str(expected)), read_only=True) as theirs:
            got, want = tables(ours), tables(theirs)
            for name in ("price_history", "current_prices", "per_chip_prices", "runs"):
                assert got[name] == want[name], name


def _parser_refuses(run: RunResult, p4d: PriceRecord) -> None:
    run.sources[0].rejects = [Reject.of_record(p4d, "price '$32.77' is not a number", {})]


def _parser_refuses_naming_its_type(run: RunResult, p4d: PriceRecord) -> None:
    """A reject naming only p4d's type (a count not read), beside one of another sku: two
    shapes of reject in one run, each its own match."""
    run.sources[0].rejects = [
        Reject(
            p4d.source, "count 'x' is not a number", {}, offer={"instance_type": p4d.instance_type}
        ),
        Reject(p4d.source, "price 'x' is not a number", {}, sku="SKU9"),
    ]


def _validator_refuses(run: RunResult, p4d: PriceRecord) -> None:
    """p4d read at $1,000,000 an hour: the validator refuses it, and its key was seen."""
    [source] = run.sources
    parsed = [*source.records, replace(p4d, price_per_hour=1e6, observed_at=run.observed_at)]
    checked = validate_records(parsed, source_providers())
    source.records, source.rejects = checked.records, checked.rejects
    source.seen_keys = {r.offer_key() for r in parsed}
    assert [r.offer["instance_type"] for r in source.rejects] == ["p4d.24xlarge"]


@pytest.mark.parametrize(
    "refuse", [_parser_refuses, _parser_refuses_naming_its_type, _validator_refuses]
)
def test_a_refused_row_keeps_its_offer_open_when_its_run_is_loaded_again(tmp_path, refuse):
    """The third run refuses p4d's row, a reject naming its offer and no sku (the AWS spot
    feed's kind; or the validator's, of a price out of its range): loaded as it comes, p4d stays
    open. Removing the second run loads the third again from the warehouse, whose rejects keep
    the offer it names: the history is that of a load of the first and third runs (at 0984e9d
    the restatement read only skus and withdrew p4d; at 2203e6f a validator's reject named no
    offer, and p4d was withdrawn there while a live load kept it)."""
    p5, p4d = record(), record(instance_type="p4d.24xlarge", chip="A100-40GB", sku="")
    third = run_of([p5], day(2), run_id="third")
    refuse(third, p4d)

    def history(con) -> list[tuple]:
        return con.execute(
            "SELECT instance_type, valid_from, valid_to, end_reason FROM price_history ORDER BY ALL"
        ).fetchall()

    con = open_warehouse(warehouses.new(tmp_path / "w.duckdb"))
    expected = open_warehouse(warehouses.new(tmp_path / "expected.duckdb"))
    try:
        load_run(con, run_of([p5, p4d], day(0), run_id="first"))
        load_run(con, run_of([p5, p4d], day(1), run_id="second"))
        load_run(con, third)
        remove_run(con, "second")
        load_run(expected, run_of([p5, p4d], day(0), run_id="first"))
        load_run(expected, third)
        assert history(con) == history(expected)
        assert ("p4d.24xlarge", day(0), None, None) in history(con)
    finally:
        con.close()
        expected.close()


# Seeweb's runs as an earlier chipcost archived them: its plans and beside them the ECB daily
# file it fetched, one day's rates (extract/_rates.py with_archived_rates); the plans of
# tests/fixtures/seeweb/archive-bcd7f3e1. Each run's file and the day and US dollar rate it lists.
SEEWEB = FIXTURES / "seeweb" / "archive-bcd7f3e1" / "2026-11-21T060000Z" / "seeweb"
DAILY_FILES = {
    "2026-11-20T060000Z": ("2026-11-19", 1.0901),
    "2026-11-21T060000Z": ("2026-11-20", 1.0934),
    "2026-11-22T060000Z": ("2026-11-20", 1.0950),  # the day again, its dollar rate restated
}


def daily_file(day: str, usd: float) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope><Cube>'
        f'<Cube time="{day}"><Cube currency="USD" rate="{usd}"/>'
        '<Cube currency="GBP" rate="0.8521"/></Cube></Cube></gesmes:Envelope>'
    ).encode()


def replay_of_daily_files(root: Path, stamps: list[str]) -> Path:
    """`chipcost collect --replay` of Seeweb's runs `stamps` (DAILY_FILES), into a new file."""
    plans = gzip.decompress((SEEWEB / "0001.json.gz").read_bytes())
    for stamp in stamps:
        writer, at = ArchiveWriter(root / "archive", stamp, "seeweb"), parse_stamp(stamp)
        writer.write(plans, PLANS_URL, fetched_at=at)
        writer.write(daily_file(*DAILY_FILES[stamp]), ECB_DAILY_URL, fetched_at=at, ext="xml")
    db = warehouses.new(root / "w.duckdb")
    collect(replay=str(root / "archive"), db=str(db), data_dir=str(root / "data"))
    return db


@pytest.fixture(scope="module")
def daily_replays(tmp_path_factory) -> dict[int | None, Path]:
    """The replays of Seeweb's three runs (None) and of the three without the first and
    without the second, each made once for the module."""
    root, stamps = tmp_path_factory.mktemp("daily"), list(DAILY_FILES)
    return {
        skipped: replay_of_daily_files(
            root / str(skipped), [s for i, s in enumerate(stamps) if i != skipped]
        )
        for skipped in (None, 0, 1)
    }


@pytest.mark.parametrize("removed", [0, 1], ids=["a-day-no-later-file-lists", "a-day-listed-again"])
def test_a_daily_file_rate_is_put_back_only_under_a_later_file_listing_its_day(
    daily_replays, tmp_path, removed
):
    """Removing a Seeweb run takes out the rates its daily file loaded and puts back only those
    a later run's file lists too (that run loaded a rate of the day): the warehouse then holds
    what a replay without the run holds, each rate naming the file a replay reads it from. The
    first run's day (11-19) is in no later file, where remove-run put it back under the second
    run's file as if it held the ECB's 90 days; the second run's day (11-20) is in the third's,
    which restates its dollar rate: the pound goes back under the third run's file."""
    db = Path(shutil.copyfile(daily_replays[None], tmp_path / "w.duckdb"))
    con = open_warehouse(Warehouse(str(db)))
    try:
        remove_run(con, run_id_of(con, list(DAILY_FILES)[removed]))
    finally:
        con.close()
    rates = "SELECT day, currency, per_eur, source, payload_ref FROM fx_rates ORDER BY ALL"
    with connect(Warehouse(str(db)), read_only=True) as ours:
        with connect(Warehouse(str(daily_replays[removed])), read_only=True) as theirs:
            assert ours.execute(rates).fetchall() == theirs.execute(rates).fetchall()
            got, want = tables(ours), tables(theirs)
            for name in ("price_history", "current_prices", "per_chip_prices", "runs"):
                assert got[name] == want[name], name
            days = {str(row[0]) for row in ours.execute(rates).fetchall()}
    assert days == ({"2026-11-20"} if removed == 0 else {"2026-11-19", "2026-11-20"})
