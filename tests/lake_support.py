"""Replaying the sample archive into a warehouse without Prefect, and reading it back: the lake's
template, its copies, and what a replay writes, table by table."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import duckdb
import polars as pl

from chipcost import archive
from chipcost.core.runs import RunResult
from chipcost.core.settings import Settings, Warehouse
from chipcost.pipeline.collect import (
    WarehouseSession,
    already_loaded_sources,
    load,
    new_run_id,
    now,
    replay_sources,
    select_sources,
)
from chipcost.pipeline.seed import open_warehouse
from tests.pg_server import PgServer


@dataclass(frozen=True)
class LakeTemplate:
    """A lake migrated and seeded once, kept as a PostgreSQL template database and its data
    directory.

    Migrating a new lake (about 90 migrations and the views, each its own commit) took 3-5 s
    a test, and its first writer's reference data (chips, instance types, figures) a second
    more; a copy of this one is a file copy inside PostgreSQL. It is made once per server
    (`migrated_once`) and lives as long as the server, which lives as long as the test run, so a
    change to the schema, views or reference data between runs needs no invalidation: every
    run makes its own template afresh. What a first open does is tested on a lake never opened
    (the `empty_lake` fixture).
    """

    database: str
    data: Path


def migrated_template(server: PgServer, data: Path) -> LakeTemplate:
    database = server.new_database()
    # open_warehouse() migrates and seeds, as a lake's first collection does; closing it
    # leaves no session on the database, which PostgreSQL requires of a template.
    warehouse = Warehouse("ducklake:postgres:" + server.conninfo(database), str(data))
    open_warehouse(warehouse).close()
    return LakeTemplate(database, data)


def migrated_once(server: PgServer) -> LakeTemplate:
    """The server's template, made by the first process of the run that wants it, under a
    lock, in the run's folder of made warehouses (tests/warehouses.py); the others read its
    name there. Workers copy it at once: CREATE DATABASE ... TEMPLATE only needs that nobody
    is connected to it, and nobody is once it is made."""
    from tests import warehouses

    name = f"lake-template-{server.port}"
    made = warehouses.made_folder() / f"{name}.database"
    data = warehouses.made_folder() / name
    with warehouses.locked(name):
        if not made.exists():
            shutil.rmtree(data, ignore_errors=True)  # a worker that died making it
            made.write_text(migrated_template(server, data).database)
    return LakeTemplate(made.read_text(), data)


def copy_of(server: PgServer, template: LakeTemplate, data: Path) -> Warehouse:
    """A migrated, seeded lake of its own: a copy of the template's catalog and data
    directory."""
    database = server.new_database(template=template.database)
    # The catalog keeps its absolute data path (file paths in it are relative to that): point
    # the copy at its own directory, or it would write into the template's and refuse ours.
    own = str(data).rstrip("/") + "/"
    server.psql(
        "UPDATE ducklake_metadata SET value = '" + own.replace("'", "''") + "' "
        "WHERE key = 'data_path' AND scope IS NULL",
        database=database,
    )
    # The reference tables' Parquet files, which the copied catalog lists.
    shutil.copytree(template.data, data)
    return Warehouse("ducklake:postgres:" + server.conninfo(database), str(data))


def sample_lake(server: PgServer, first: int) -> LakeTemplate:
    """The bundled sample's first `first` runs replayed into a copy of the server's migrated
    lake, as `chipcost collect --replay` does (chipcost.pipeline.collection), kept as a
    template for copy_of: made once per server, as migrated_once is, by the first process of
    the run that wants it (test_conformance.py and test_remove_run.py share the two runs')."""
    from chipcost.pipeline import collection
    from tests import warehouses

    name = f"lake-sample-{first}-{server.port}"
    made = warehouses.made_folder() / f"{name}.database"
    data, root = warehouses.made_folder() / name, warehouses.made_folder() / f"{name}-run"
    with warehouses.locked(name):
        if not made.exists():
            for folder in (data, root):  # a worker that died making it
                shutil.rmtree(folder, ignore_errors=True)
            lake = copy_of(server, migrated_once(server), data)
            for run in warehouses.sample_runs()[:first]:
                shutil.copytree(run, root / "archive" / run.name)
            collection.collect(settings_for(lake, root / "data"), replay=str(root / "archive"))
            # Nobody stays connected to it: PostgreSQL copies it as a template.
            made.write_text(lake.url.split("dbname=")[1].split()[0])
    return LakeTemplate(made.read_text(), data)


HISTORY_COLUMNS = (
    "source, region, zone, instance_type, pricing_model, term, payment, plan, chip,"
    " price_per_hour, upfront, valid_from, valid_to, end_reason, last_seen_at"
)


def settings_for(warehouse: Warehouse, data_dir: Path) -> Settings:
    if warehouse.is_lake:
        return Settings(
            data_dir=data_dir,
            db_path=data_dir / "unused.duckdb",
            warehouse_url=warehouse.url,
            lake_data=warehouse.lake_data,
        )
    return Settings(data_dir=data_dir, db_path=warehouse.path)


def replay(settings: Settings, run_dirs: list[Path], sources: list[str] | None = None) -> None:
    """What `chipcost collect --replay` does for each run, minus Prefect."""
    with WarehouseSession(settings) as session:
        for run_dir in run_dirs:
            replay_run(settings, session, run_dir, sources)


def replay_run(
    settings: Settings, session: WarehouseSession, run_dir: Path, sources: list[str] | None
) -> None:
    archived = set(archive.archived_sources(run_dir))
    chosen = [s for s in select_sources(sources) if s.name in archived]
    loaded = already_loaded_sources(session, run_dir.name)
    started = now()
    # As the flow's replay-run task: every source of the run parsed, then validated together.
    results = replay_sources(chosen, settings=settings, replay_dir=run_dir, already_loaded=loaded)
    observed = [r.observed_at for r in results if r.observed_at]
    run = RunResult(
        run_id=new_run_id(started),
        started_at=started,
        observed_at=min(observed) if observed else started,
        mode="replay",
        archive_run=run_dir.name,
        sample=True,
        sources=results,
    )
    load(session, run)


def history(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.execute(f"SELECT {HISTORY_COLUMNS} FROM price_history ORDER BY ALL").fetchall()


# Each table as a replay writes it, without what differs on every replay: run ids (named by the
# archived run instead), load times, seconds taken and the version that loaded it. The notes a
# source said when it was collected (a price jump "since" the run before) are what was said
# then, and are not restated by `remove-run`; the spot interruption buckets of the run before a
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


def tables(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Every table of TABLES, its rows sorted."""
    return {name: sorted(map(repr, con.execute(sql).fetchall())) for name, sql in TABLES.items()}


def report_frames(con: duckdb.DuckDBPyConnection, runs: list[Path]) -> dict[str, pl.DataFrame]:
    """The report's changes over the days of `runs`: its events and its moves."""
    from chipcost.warehouse.changes import change_events, price_moves

    start = runs[0].name[:10] + " 00:00:00+00"
    end = runs[-1].name[:10] + " 23:59:59+00"
    [(start, end)] = con.execute("SELECT ?::TIMESTAMPTZ, ?::TIMESTAMPTZ", [start, end]).fetchall()
    return {
        "events": change_events(con, start, end).drop("payload_ref"),
        "moves": price_moves(con, start, end, end - timedelta(days=7)),
    }


def assert_same(
    ours: duckdb.DuckDBPyConnection, theirs: duckdb.DuckDBPyConnection, runs: list[Path]
) -> None:
    """Both warehouses hold the same tables and give the same report over `runs`' days."""
    mine, other = tables(ours), tables(theirs)
    for name in TABLES:
        assert mine[name] == other[name], name
    mine, other = report_frames(ours, runs), report_frames(theirs, runs)
    for name, frame in mine.items():
        assert frame.sort(frame.columns).equals(other[name].sort(frame.columns)), name
