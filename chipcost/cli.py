"""The `chipcost` command line. Reading commands (prices, sql) never start Prefect."""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from chipcost.errors import ChipcostError
from chipcost.settings import Settings, load_settings

app = typer.Typer(
    help="AI-accelerator prices with history: collect, query, compare.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Piped output is not cut to 80 columns: tables stay whole in files and other programs.
out = Console(width=None if sys.stdout.isatty() else 220)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 220)

DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="Warehouse file (default: $CHIPCOST_DB or ./data/chipcost.duckdb)."),
]


def main() -> None:
    """Entry point: expected failures print one clear line, never a traceback."""
    try:
        app()
    except ChipcostError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(1)


@app.command()
def collect(
    replay: Annotated[
        Path | None,
        typer.Option(help="Parse an archive (root or one run directory) instead of fetching."),
    ] = None,
    db: DbOption = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default: $CHIPCOST_DATA_DIR or ./data).")
    ] = None,
    source: Annotated[
        list[str] | None, typer.Option("--source", help="Run only this source (repeatable).")
    ] = None,
) -> None:
    """Collect today's prices (or replay an archive) into the warehouse."""
    # The summary table and the error line say what the flow's log says; keep the console to
    # one account of it (the log still reaches the Prefect server).
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "CRITICAL")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from chipcost.summary import print_outcomes
    from flows import collect as collect_flow

    settings = load_settings(db=db, data_dir=data_dir)
    _preflight(settings, replay, source)
    with err.status("collecting…", spinner="dots") as status:
        collect_flow.PROGRESS_HOOK = lambda message: status.update(f"[dim]{message}")
        try:
            outcomes = collect_flow.run_collect(
                replay=str(replay) if replay else None,
                db=str(settings.db_path),
                data_dir=str(settings.data_dir),
                sources=source or None,
            )
        except collect_flow.CollectFailed as exc:
            if exc.outcomes:
                print_outcomes(out, exc.outcomes, settings.db_path)
            raise
        finally:
            collect_flow.PROGRESS_HOOK = None
    print_outcomes(out, outcomes, settings.db_path)


def _preflight(settings: Settings, replay: Path | None, sources: list[str] | None) -> None:
    """Catch a wrong path or name before Prefect starts, with the same words the flow uses."""
    from chipcost.archive import run_directories
    from chipcost.collect import select_sources
    from warehouse.db import check_writable

    select_sources(sources)
    if replay is not None:
        run_directories(replay)
    check_writable(settings)


@app.command()
def prices(
    chip: Annotated[list[str] | None, typer.Option(help="Canonical chip, e.g. H100-SXM.")] = None,
    region: Annotated[list[str] | None, typer.Option(help="Region code, e.g. us-east-1.")] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(help="Pricing model: on_demand, reserved, savings_plan, spot, ..."),
    ] = None,
    provider: Annotated[list[str] | None, typer.Option(help="Provider, e.g. aws.")] = None,
    limit: Annotated[int, typer.Option(help="Show at most this many rows.")] = 200,
    db: DbOption = None,
) -> None:
    """Current per-chip hourly prices, cheapest first within each chip and pricing model."""
    from chipcost.summary import print_prices
    from warehouse.db import connect
    from warehouse.queries import known_values, last_run, per_chip_prices

    settings = load_settings(db=db)
    con = connect(settings.db_path, read_only=True)
    try:
        frame = per_chip_prices(con, chips=chip, regions=region, models=model, providers=provider)
        if frame.is_empty():
            raise ChipcostError(_no_prices_message(con, known_values, chip, region, model))
        print_prices(out, frame, limit=limit, last=last_run(con))
    finally:
        con.close()


def _no_prices_message(con, known_values, chip, region, model) -> str:
    for column, asked in (("chip", chip), ("region", region), ("pricing_model", model)):
        known = known_values(con, column)
        missing = [a for a in asked or [] if a.lower() not in {k.lower() for k in known}]
        if missing:
            close = difflib.get_close_matches(missing[0], known, n=3, cutoff=0.4)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            return (
                f"no current prices for {column} {missing[0]!r}{hint}; "
                f"known: {', '.join(known) or 'none yet: run `chipcost collect`'}"
            )
    return "no current prices match these filters; run `chipcost collect` or widen the filters"


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="A read-only SQL query (SELECT ...).")],
    db: DbOption = None,
    format: Annotated[str, typer.Option(help="table, csv or json.")] = "table",
    max_rows: Annotated[int, typer.Option(help="Rows shown in table format.")] = 100,
) -> None:
    """Run an ad hoc read-only query against the warehouse."""
    from chipcost.readonly import run_readonly
    from chipcost.summary import print_frame

    settings = load_settings(db=db)
    frame = run_readonly(settings.db_path, query)
    if format == "csv":
        sys.stdout.write(frame.write_csv())
    elif format == "json":
        sys.stdout.write(frame.write_json() + "\n")
    elif format == "table":
        print_frame(out, frame, max_rows=max_rows)
    else:
        raise ChipcostError(f"unknown --format {format!r}: use table, csv or json")


@app.command()
def migrate(db: DbOption = None) -> None:
    """Create the warehouse or upgrade its schema to this version of chipcost."""
    from warehouse.db import SCHEMA_VERSION, connect

    settings = load_settings(db=db)
    con = connect(settings.db_path)
    con.close()
    out.print(f"{settings.db_path}: schema version {SCHEMA_VERSION}")


@app.command()
def sources() -> None:
    """List the registered sources."""
    from extract import registry

    table = Table("source", "provider", "description")
    for source in registry().values():
        table.add_row(source.name, source.provider, source.description)
    out.print(table)


# Commands in chipcost/commands/ register themselves on `app` when imported.
import chipcost.commands  # noqa: E402,F401
