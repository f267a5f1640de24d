"""Replaying the sample archive into a warehouse without Prefect, and reading it back."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb

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
    more; a copy of this one is a file copy inside PostgreSQL. It lives as long as the
    session's PostgreSQL server, so a change to the schema, views or reference data between
    runs needs no invalidation: every run makes its own template afresh. What a first open
    does is tested on a lake never opened (the `empty_lake` fixture).
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
