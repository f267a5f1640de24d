"""A warehouse behaves alike in a DuckDB file and in a lake (DuckLake, its catalog on a real
PostgreSQL): the sample's first two runs replayed into each kind once for the run
(tests/warehouses.py, tests/lake_support.py), as `chipcost collect --replay` does, then read;
a test that writes takes a copy of its own.

What only a lake does (two writers at once, migrations racing, a load killed midway, its
maintenance, its catalog and data path) is in test_lake.py; `remove-run` on both kinds is in
test_remove_run.py.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.settings import Warehouse
from chipcost.pipeline import collection
from chipcost.warehouse.cost_per_token import chips_with_prices
from chipcost.warehouse.db import SCHEMA_VERSION, connect, schema_version
from chipcost.warehouse.readonly import run_readonly
from tests import warehouses
from tests.cli_runner import chipcost
from tests.lake_support import assert_same, copy_of, history, sample_lake, settings_for, tables

RUNS = warehouses.sample_runs()[:2]
KINDS = ("file", "lake")


@dataclass(frozen=True)
class Replayed:
    """The runs replayed into one kind of warehouse: `warehouse` to read (nobody writes to
    it), `copy(folder)` a warehouse of a test's own holding the same."""

    warehouse: Warehouse
    copy: Callable[[Path], Warehouse]


def _into_a_file(root: Path) -> Replayed:
    made = warehouses.sample(root / "w.duckdb", first=len(RUNS))

    def copy(folder: Path) -> Warehouse:
        folder.mkdir(parents=True, exist_ok=True)
        return Warehouse(str(shutil.copyfile(made, folder / "w.duckdb")))

    return Replayed(Warehouse(str(made)), copy)


def _into_a_lake(root: Path, request: pytest.FixtureRequest) -> Replayed:
    server = request.getfixturevalue("pg_server")
    loaded = sample_lake(server, len(RUNS))  # kept as a template (nobody connects to it)

    def copy(folder: Path) -> Warehouse:
        return copy_of(server, loaded, folder / "lake-data")

    return Replayed(copy(root / "read"), copy)


@pytest.fixture(scope="module")
def replayed(request, tmp_path_factory) -> Callable[[str], Replayed]:
    """The runs replayed into each kind, once for the module, on the first test that wants it."""
    made: dict[str, Replayed] = {}

    def of(kind: str) -> Replayed:
        if kind not in made:
            root = tmp_path_factory.mktemp(kind)
            made[kind] = _into_a_file(root) if kind == "file" else _into_a_lake(root, request)
        return made[kind]

    return of


@pytest.fixture(params=KINDS)
def warehouse_kind(request) -> str:
    return request.param


def test_both_kinds_hold_the_same_tables_and_give_the_same_report(replayed):
    file, lake = (connect(replayed(kind).warehouse, read_only=True) for kind in KINDS)
    try:
        assert_same(lake, file, RUNS)
        assert len(history(lake)) > 100
        for con in (file, lake):
            assert schema_version(con) == SCHEMA_VERSION
            assert con.execute("SELECT count(*) FROM per_chip_prices").fetchall()[0][0] > 100
            # read from price_history_usd's open rows: the chips of per_chip_prices
            priced = con.execute("SELECT DISTINCT chip FROM per_chip_prices ORDER BY 1").fetchall()
            assert chips_with_prices(con) == [chip for (chip,) in priced]
            runs = con.execute("SELECT archive_run FROM runs ORDER BY 1").fetchall()
            assert runs == [(run.name,) for run in RUNS]
    finally:
        file.close()
        lake.close()


def test_a_rerun_of_the_same_archive_adds_nothing(warehouse_kind, replayed, tmp_path):
    warehouse = replayed(warehouse_kind).copy(tmp_path / "own")
    with connect(warehouse, read_only=True) as con:
        before = tables(con)
    archive = tmp_path / "archive"
    for run in RUNS:
        shutil.copytree(run, archive / run.name)
    outcomes = collection.collect(settings_for(warehouse, tmp_path / "data"), replay=str(archive))
    assert {o.run.status for o in outcomes} == {"already_loaded"}
    assert {s.status for o in outcomes for s in o.run.sources} == {"already_loaded"}
    with connect(warehouse, read_only=True) as con:
        assert tables(con) == before
        # The second replay is an attempt that loaded nothing, not a run (migration 010).
        attempts = con.execute("SELECT archive_run, outcome FROM attempts ORDER BY 1").fetchall()
    assert attempts == [(run.name, "already_loaded") for run in RUNS]


# Reads of each kind, by the command a user types: what they print must not depend on the kind.
READS = {
    "prices": ["prices", "--chip", "H100-SXM"],
    "prices csv": ["prices", "--format", "csv"],
    "history": ["history", "--chip", "H100-SXM", "--no-chart"],
    "index": ["index", "--chip", "H100-SXM"],
    "sql": ["sql", "select source, count(*) as n from price_history group by 1 order by 1"],
}


def test_every_read_answers_the_same_from_both_kinds(replayed, tmp_path):
    answers = {}
    for kind in KINDS:
        warehouse = replayed(kind).warehouse
        # A reader gives no lake data path: the catalog keeps it.
        env = {k: v for k, v in os.environ.items() if not k.startswith("CHIPCOST_")}
        env |= {"CHIPCOST_DATA_DIR": str(tmp_path / kind), "CHIPCOST_WAREHOUSE": warehouse.url}
        for name, args in READS.items():
            done = chipcost(*args, env=env)
            assert done.returncode == 0, f"{kind} {name}: {done.stderr}"
            answers[kind, name] = done.stdout
    for name in READS:
        assert answers["file", name] == answers["lake", name], name
        assert len(answers["file", name].splitlines()) > 3, answers["file", name]


def test_sql_reads_and_refuses_writes_and_files(warehouse_kind, replayed):
    warehouse = replayed(warehouse_kind).warehouse
    frame = run_readonly(warehouse, "SELECT count(*) AS n FROM runs")
    assert frame["n"].to_list() == [len(RUNS)]
    with pytest.raises(ChipcostError, match="only reads"):
        run_readonly(warehouse, "DELETE FROM price_history")
    with pytest.raises(ChipcostError, match="out of its reach"):
        run_readonly(warehouse, "SELECT * FROM read_csv('/etc/passwd')")


def test_duckdb_takes_the_threads_chipcost_threads_gives(warehouse_kind, replayed, monkeypatch):
    warehouse = replayed(warehouse_kind).warehouse

    def threads() -> int:
        con = connect(warehouse, read_only=True)
        try:
            return con.execute("SELECT current_setting('threads')").fetchall()[0][0]
        finally:
            con.close()

    monkeypatch.delenv("CHIPCOST_THREADS", raising=False)
    cores = threads()
    monkeypatch.setenv("CHIPCOST_THREADS", "1")
    assert threads() == 1
    monkeypatch.setenv("CHIPCOST_THREADS", str(cores + 2))
    assert threads() == cores + 2
    for wrong in ("0", "two", "-1", "100000", "²"):
        monkeypatch.setenv("CHIPCOST_THREADS", wrong)
        with pytest.raises(ChipcostError, match=f"CHIPCOST_THREADS='{wrong}': give the threads"):
            threads()
