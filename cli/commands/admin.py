"""`chipcost sql`, `migrate`, `sources` and `remove-run`: ad hoc queries and the warehouse
itself."""

from typing import Annotated

from chipcost.cli import reads
from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import Db, Format, Limit, StaleDays, Wide, settings_for
from chipcost.cli.parser import Command, command
from chipcost.core.asks import SQL
from chipcost.core.questions import Opt

sql = Command("sql", SQL, reads.sql)


def _migrate(db: Db = None) -> None:
    """Create the warehouse or upgrade its schema to this version of chipcost."""
    from chipcost.cli.consoles import out
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.collect import prepare_data_dir
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.db import SCHEMA_VERSION

    settings = load_settings(db=db)
    prepare_data_dir(settings)  # ours to create, as a collection does; a --db directory is not
    # A writer's open also loads reference data that changed (chips, instance types, ...).
    con = open_warehouse(settings.warehouse, wait=settings.lock_wait)
    con.close()
    out.say(f"{settings.warehouse}: schema version {SCHEMA_VERSION}")


def _sources(
    db: Db = None,
    format: Format = OutputFormat.table,
    wide: Wide = False,
    stale_days: StaleDays = None,
    runs: Annotated[
        bool, Opt("List the warehouse's runs instead, newest first, with the ids remove-run takes.")
    ] = False,
    limit: Limit = None,
) -> None:
    """List the registered sources, with each one's last successful run when a warehouse exists."""
    from chipcost.cli.consoles import notices, out
    from chipcost.cli.formats import write_frame
    from chipcost.cli.render_sources import print_runs, print_sources
    from chipcost.core.asks import DEFAULT_TABLE_ROWS, MAX_LIMIT
    from chipcost.reads import answers

    frame = answers.sources(db, stale_days, runs=runs)
    table = format is OutputFormat.table
    # As `prices --limit`: a table shows DEFAULT_TABLE_ROWS unless given, csv and json all.
    shown = frame.head(limit or DEFAULT_TABLE_ROWS) if table else frame.head(limit or MAX_LIMIT)
    if not table:
        write_frame(format, shown)
        if frame.height > shown.height:
            notices(format).say(f"{frame.height - shown.height} more rows (--limit)")
    elif runs:
        print_runs(out, shown, total=frame.height, wide=wide)
    else:
        stale = settings_for(db, stale_days).stale_days
        print_sources(out, shown, stale_days=stale, wide=wide)
        if frame.height > shown.height:
            out.say(f"{frame.height - shown.height} more sources (--limit N shows more)")


def _remove_run(
    run_id: Annotated[
        str,
        Opt(
            "The run's id, as `sources --runs` lists it, or the run `collect` printed "
            "(2026-11-25T205912Z) when one run alone has that stamp.",
            kind="argument",
        ),
    ],
    db: Db = None,
    dry_run: Annotated[
        bool,
        Opt(
            "Say what would be removed and restated (its source runs, observations, "
            "price_history rows); change nothing."
        ),
    ] = False,
) -> None:
    """Take one run out of the warehouse and restate the price history from the rest."""
    import duckdb

    from chipcost.cli.consoles import out
    from chipcost.core.errors import WarehouseError
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.remove_run import remove_run as remove
    from chipcost.warehouse.remove_run import run_named

    settings = load_settings(db=db)
    if dry_run or not (settings.is_lake or settings.db_path.exists()):
        # A path that holds no warehouse is named as every read names it, never created.
        _preview_removal(settings, run_id)
        return
    con = open_warehouse(settings.warehouse, wait=settings.lock_wait)
    try:
        run_id = run_named(con, run_id)
        touched = remove(con, run_id)
    except duckdb.Error as exc:
        said = " ".join(str(exc).split())[:300]
        raise WarehouseError(
            f"run {run_id} was not removed from {settings.warehouse} (nothing was changed): "
            f"{said}; check that you may write the file and its folder (DuckDB writes its "
            "log beside the file)"
        ) from None
    finally:
        con.close()
    out.say(
        f"run {run_id} removed from {settings.warehouse}; the history of the {touched} offers it "
        "touched is restated from the runs that remain",
    )


def _preview_removal(settings, run_id: str) -> None:
    """remove-run --dry-run: the counts, read on a read-only connection (the file is left
    as it is, and a writer need not wait)."""
    from chipcost.cli.consoles import out
    from chipcost.cli.render_sources import print_removal
    from chipcost.warehouse.reader import read_connection
    from chipcost.warehouse.remove_run import removal_preview

    con = read_connection(settings)
    try:
        preview = removal_preview(con, run_id)
    finally:
        con.close()
    print_removal(out, preview, settings.warehouse)


migrate = command(_migrate, "migrate")
sources = command(_sources, "sources")
remove_run = command(_remove_run, "remove-run")
