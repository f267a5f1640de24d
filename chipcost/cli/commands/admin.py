"""`chipcost sql`, `migrate` and `sources`: ad hoc queries and the warehouse itself."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.table import Table

from chipcost.cli.options import DbOption, out
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import load_settings


def sql(
    query: Annotated[str, typer.Argument(help="A read-only SQL query (SELECT ...).")],
    db: DbOption = None,
    format: Annotated[str, typer.Option(help="table, csv or json.")] = "table",
    max_rows: Annotated[int, typer.Option(help="Rows shown in table format.")] = 100,
) -> None:
    """Run an ad hoc read-only query against the warehouse."""
    from chipcost.cli.render import print_frame
    from chipcost.warehouse.readonly import run_readonly

    settings = load_settings(db=db)
    frame = run_readonly(settings.warehouse, query)
    if format == "csv":
        sys.stdout.write(frame.write_csv())
    elif format == "json":
        sys.stdout.write(frame.write_json() + "\n")
    elif format == "table":
        print_frame(out, frame, max_rows=max_rows)
    else:
        raise ChipcostError(f"unknown --format {format!r}: use table, csv or json")


def migrate(db: DbOption = None) -> None:
    """Create the warehouse or upgrade its schema to this version of chipcost."""
    from chipcost.warehouse.db import SCHEMA_VERSION, connect

    settings = load_settings(db=db)
    con = connect(settings.warehouse)
    con.close()
    out.print(f"{settings.warehouse}: schema version {SCHEMA_VERSION}", highlight=False)


def sources() -> None:
    """List the registered sources."""
    from chipcost.extract import registry

    table = Table("source", "provider", "description")
    for source in registry().values():
        table.add_row(source.name, source.provider, source.description)
    out.print(table)
