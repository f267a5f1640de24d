"""`chipcost sql`, `migrate` and `sources`: ad hoc queries and the warehouse itself."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.formats import FormatOption, OutputFormat
from chipcost.cli.options import MAX_LIMIT, DbOption, WideOption, out
from chipcost.core.settings import load_settings


def sql(
    query: Annotated[str, typer.Argument(help="A read-only SQL query (SELECT ...).")],
    db: DbOption = None,
    format: FormatOption = OutputFormat.table,
    max_rows: Annotated[
        int, typer.Option(min=1, max=MAX_LIMIT, help="Rows shown in table format.")
    ] = 100,
) -> None:
    """Run an ad hoc read-only query against the warehouse."""
    from chipcost.cli.formats import notices, write_rows
    from chipcost.cli.render import print_rows
    from chipcost.cli.render_fresh import print_freshness
    from chipcost.warehouse.readonly import read_rows

    settings = load_settings(db=db)
    # One open of the file for the query and the freshness notes under it.
    result = read_rows(
        settings.warehouse, query, wait=settings.read_wait, stale_days=settings.stale_days
    )
    if format is OutputFormat.table:
        print_rows(out, result.columns, result.rows, max_rows=max_rows)
    else:
        write_rows(format, result.columns, result.rows)
    print_freshness(notices(format), result.freshness, what=None)


def migrate(db: DbOption = None) -> None:
    """Create the warehouse or upgrade its schema to this version of chipcost."""
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.db import SCHEMA_VERSION

    settings = load_settings(db=db)
    # A writer's open also loads reference data that changed (chips, instance types, ...).
    con = open_warehouse(settings.warehouse, wait=settings.lock_wait)
    con.close()
    out.print(f"{settings.warehouse}: schema version {SCHEMA_VERSION}", highlight=False)


def sources(
    db: DbOption = None, format: FormatOption = OutputFormat.table, wide: WideOption = False
) -> None:
    """List the registered sources, with each one's last successful run when a warehouse exists."""
    from chipcost.cli.formats import write_frame
    from chipcost.cli.render import print_sources
    from chipcost.pipeline.sources import registered_sources, source_table
    from chipcost.warehouse.db import connect

    settings = load_settings(db=db)
    if db is None and not settings.is_lake and not settings.db_path.exists():
        # Before the first collection there is no warehouse: the sources alone.
        frame = registered_sources()
    else:
        con = connect(settings.warehouse, read_only=True)
        try:
            frame = source_table(con, stale_days=settings.stale_days)
        finally:
            con.close()
    if format is OutputFormat.table:
        print_sources(out, frame, stale_days=settings.stale_days, wide=wide)
    else:
        write_frame(format, frame)
