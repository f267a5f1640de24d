"""`chipcost sql`, `migrate`, `sources` and `remove-run`: ad hoc queries and the warehouse
itself, with their tables (the sources and their runs, what a removal would take out)."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

from chipcost.cli.consoles import Screen, err, notices, out, print_fitted
from chipcost.cli.fit import Column, Styled, fit_table, plain
from chipcost.cli.formats import OutputFormat, text_value, write_frame, write_rows
from chipcost.cli.options import Db, Format, Limit, StaleDays, Wide, settings_for
from chipcost.cli.parser import Command, command
from chipcost.cli.render import print_rows, say_more_rows
from chipcost.cli.render_fresh import DATED_AHEAD, ago, names, print_freshness, when
from chipcost.core.asks import SQL
from chipcost.core.commands import RUNS
from chipcost.core.counting import counted
from chipcost.core.errors import NoMatch
from chipcost.core.questions import Opt

if TYPE_CHECKING:
    import polars as pl

    from chipcost.warehouse.readonly import QueryResult
    from chipcost.warehouse.remove_run import RemovalPreview


def _sql(**given: Any) -> None:
    """`chipcost sql`: an ad hoc read-only query against the warehouse
    (chipcost.core.asks.SQL)."""
    from chipcost.reads import answers

    asked = SQL.given(given)
    format, limit = OutputFormat(asked["format"]), asked["limit"]
    table = format is OutputFormat.table
    # One open of the file for the query and the freshness notes under it. Every format
    # reads the rows it shows; DuckDB counts the rest (up to the rows bound), for the
    # table's line under its rows and for the line beside csv and json.
    result = answers.sql_rows(asked, max_rows=limit or SQL_TABLE_ROWS if table else limit)
    if cut := result.cut or (result.counted_to if table else ""):
        _say_cut(cut)
    if format is OutputFormat.table:
        print_rows(out, result.columns, result.rows, total=len(result.rows) + result.more)
    else:
        write_rows(format, result.columns, result.rows)
        say_more_rows(err, result.more, result.counted_to)
    _sql_freshness(result, format)
    if not result.rows:  # as every read that matches nothing: exit 1, stdout still parses
        raise NoMatch("the query returned no rows")


# Rows `sql` shows in a table when --limit is not given.
SQL_TABLE_ROWS = 100


def _say_cut(bound: str) -> None:
    """One line on stderr, before the rows: the result was cut at a bound, and what to do."""
    err.line(f"result cut at {bound}: raise it, or ask for fewer rows (--limit, or a LIMIT)")


def _sql_freshness(result: QueryResult, format: OutputFormat) -> None:
    print_freshness(notices(format), result.freshness, what=None)


sql = Command("sql", SQL, _sql)


def _migrate(db: Db = None) -> None:
    """Create the warehouse or upgrade its schema to this version of chipcost."""
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
    from chipcost.core.asks import DEFAULT_TABLE_ROWS, MAX_LIMIT
    from chipcost.reads import answers

    frame = answers.sources(db, stale_days, runs=runs)
    table = format is OutputFormat.table
    # As `prices --limit`: a table shows DEFAULT_TABLE_ROWS unless given, csv and json all.
    shown = frame.head(limit or DEFAULT_TABLE_ROWS) if table else frame.head(limit or MAX_LIMIT)
    if not table:
        write_frame(format, shown)  # when empty, [] or the header: a pipe still parses
        say_more_rows(err, frame.height - shown.height)
    elif runs and not frame.is_empty():
        print_runs(out, shown, total=frame.height, wide=wide)
    elif not runs:
        stale = settings_for(db, stale_days).stale_days
        print_sources(out, shown, stale_days=stale, wide=wide)
        if frame.height > shown.height:
            out.say(f"{frame.height - shown.height} more sources (--limit N shows more)")
    if runs and frame.is_empty():  # nothing matched, as every read that lists nothing: exit 1
        raise NoMatch(NO_RUNS)


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
        from chipcost.core.disk import no_room

        if (full := no_room(exc, str(settings.warehouse))) is not None:
            raise WarehouseError(f"run {run_id} was not removed: {full}") from None
        said = " ".join(str(exc).split())[:300]
        raise WarehouseError(
            f"run {run_id} was not removed from {settings.warehouse} (nothing was changed): "
            f"{said}; check that you may write the file and its folder (DuckDB writes its "
            "log beside the file)"
        ) from None
    finally:
        con.close()
    restated = (
        f"the history of the {counted(touched, 'offer')} it touched is restated from the runs "
        "that remain"
        if touched
        else "it touched no offer's history"
    )
    out.say(f"run {run_id} removed from {settings.warehouse}; {restated}")


def _preview_removal(settings, run_id: str) -> None:
    """remove-run --dry-run: the counts, read on a read-only connection (the file is left
    as it is, and a writer need not wait)."""
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


# The tables of `sources`, `sources --runs` and `remove-run --dry-run`.
_SOURCE_COLUMNS = (
    Column("source", "source", essential=True),
    Column("provider", "provider", essential=True),
    Column("last_success_at", "last success (UTC)", essential=True),
    Column("age", "age", essential=True),
    Column("stale", "stale", essential=True),
    Column("last_status", "latest attempt", essential=True),
    Column("rejects", "rejects", numeric=True),
    Column("data", "data", essential=True),
    Column("description", "description", detail=True),
)


def print_sources(console: Screen, frame: pl.DataFrame, *, stale_days: int, wide: bool) -> None:
    """Every source, and its last successful run and age when a warehouse was read."""
    if frame["last_attempt_at"].is_null().all() and not frame["stale"].any():
        essential = ("source", "provider", "description")
        columns = [Column(c.key, c.header, essential=True) for c in _SOURCE_COLUMNS]
        columns = [c for c in columns if c.key in essential]
    else:
        columns = list(_SOURCE_COLUMNS)
    rows = []
    for r in frame.iter_rows(named=True):
        rows.append(
            {k: plain(text_value(v)) for k, v in r.items()}
            | {
                "last_success_at": when(r["last_success_at"]).removesuffix(" UTC"),
                "age": ago(None if r["age_hours"] is None else _hours(r["age_hours"])),
                # The frame's own verdict, made with the threshold the legend below says: a
                # sample source past it is stale too (the data column says it is sample).
                "stale": Styled("stale", "yellow") if r["stale"] else "",
                "last_status": plain(
                    r["last_status"] or ("never run" if r["collected"] else "not collected")
                ),
                "data": {True: "sample", False: "live"}.get(r["sample"], ""),
                "rejects": f"{r['rejects']:,}" if r["rejects"] else "",  # none: blank
            }
        )
    # Too wide for the terminal: the last of these go to a second line under each row first.
    fold_last = ("last_status", "data", "provider")
    fitted = fit_table(console, columns, rows, keep_order=fold_last, wide=wide)
    print_fitted(console, fitted)
    for r in frame.filter(frame["ahead"].fill_null(False)).iter_rows(named=True):
        said = (
            f": {r['source']}'s last successful run {r['last_success_run']} is dated "
            f"{when(r['last_success_at'])}, after this machine's clock: "
            f"`chipcost remove-run {r['last_success_run']}` takes it out"
        )
        console.say([DATED_AHEAD, (said, "")])
    for r in frame.iter_rows(named=True):
        for said in filter(None, (r["format_drift"] or "").splitlines()):
            console.say(said)
    refused = frame.filter(frame["refused"].fill_null("") != "")
    for r in refused.iter_rows(named=True):
        console.say(f"rejects ({r['source']}, latest run): {r['refused']}")
    if not refused.is_empty():
        console.say(
            f"rejects: rows its latest run refused; `{RUNS}` gives the query that lists "
            "a run's, by reason"
        )
    for r in frame.filter(frame["retiring"].fill_null("") != "").iter_rows(named=True):
        console.say(f"{r['source']}: reads an endpoint its provider retires: {r['retiring']}")
    sampled = frame.filter(frame["sample"].fill_null(False))
    if not sampled.is_empty():
        end = sampled["last_success_at"].max()
        console.say(
            f"sample: {sampled.height} source(s) hold the sample week, ending {end:%Y-%m-%d} "
            "(the bundled sample archive, not live prices; `chipcost collect` fetches them)",
        )
    if len(columns) > 3:
        console.say(
            f"stale: no successful run in {stale_days} days (--stale-days, else "
            "CHIPCOST_STALE_DAYS)" + ("; --wide adds the descriptions" if fitted.dropped else ""),
        )


_RUN_COLUMNS = (
    Column("run_id", "run id", essential=True),
    Column("archive_run", "archive run", essential=True),
    Column("observed_at", "observed (UTC)", essential=True),
    Column("mode", "mode"),
    Column("status", "status", essential=True),
    Column("data", "data", essential=True),
    Column("records", "records", numeric=True),
    Column("rejects", "rejects", numeric=True),
    Column("history_changes", "changes", numeric=True),
)


# `sources --runs` of a warehouse no collection has loaded yet.
NO_RUNS = "the warehouse holds no runs yet: `chipcost collect` loads the first"


def print_runs(
    console: Screen, frame: pl.DataFrame, *, total: int | None = None, wide: bool
) -> None:
    """The warehouse's runs, newest first, with the ids `remove-run` takes; how many first
    (`total`, of which `frame` holds the newest: all by default)."""
    total = frame.height if total is None else total
    more = total > frame.height
    cut = f", the newest {frame.height:,} shown (--limit N shows more)" if more else ""
    console.say(f"{total:,} run{'s' if total != 1 else ''}, newest first{cut}")
    rows = [
        {k: plain(text_value(v)) for k, v in r.items()}
        | {
            "observed_at": when(r["observed_at"]).removesuffix(" UTC"),
            "data": "sample" if r["sample"] else "live",
        }
        for r in frame.iter_rows(named=True)
    ]
    fitted = fit_table(console, list(_RUN_COLUMNS), rows, wide=wide)
    print_fitted(console, fitted)
    console.say("`chipcost remove-run RUN_ID` takes one out")
    refusing = frame.filter(frame["rejects"].fill_null(0) > 0)
    if not refusing.is_empty():
        from chipcost.reads.sources import refused_rows_of

        run_id = refusing["run_id"][0]
        console.say(f"`{refused_rows_of(run_id)}` lists the rows run {run_id} refused, by reason")


def print_removal(console: Screen, preview: RemovalPreview, warehouse: object) -> None:
    """remove-run --dry-run: what the removal would take out and restate, nothing changed."""
    p = preview
    statuses: dict[str, list[str]] = {}
    for source, status in p.source_runs:
        statuses.setdefault(status, []).append(source)
    sources = "; ".join(f"{len(s)} {status} ({names(s)})" for status, s in statuses.items())
    lines = [
        f"dry run: nothing was changed in {warehouse}",
        f"run {p.run_id} (archive run {p.archive_run}, observed {when(p.observed_at)}) would "
        "be removed, with:",
        f"  {counted(len(p.source_runs), 'source run')}: {sources or 'none'}",
        f"  {counted(p.observations, 'observation')} and {counted(p.rejects, 'reject')}",
    ]
    if p.since is None:
        lines.append("  price_history: unchanged (no source of the run loaded)")
    else:
        how = (
            f"cut back or made again from the {counted(p.later_runs, 'later run')} that loaded them"
            if p.later_runs
            else "cut back: no later run loaded them"
        )
        lines.append(
            f"  price_history: {counted(p.history_restated, 'row')} of its sources from "
            f"{when(p.since)} on restated ({how}), {p.history_opened:,} of them opened by this "
            f"run; the history of {counted(p.offers, 'offer')} it touched"
        )
    lines.append(f"`chipcost remove-run {p.run_id}` (without --dry-run) removes it")
    for line in lines:
        console.say(line, indent="    " if line.startswith("  ") else "  ")


def _hours(hours: float) -> timedelta:
    return timedelta(hours=hours)
