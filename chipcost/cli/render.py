"""Terminal output: run summaries and price tables (rich)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from chipcost.cli.fit import Column, fit_table, plain, print_fitted
from chipcost.cli.formats import text_value
from chipcost.cli.render_fresh import SAMPLE_BANNER, ago, when
from chipcost.core.clean import printable
from chipcost.core.settings import Warehouse

if TYPE_CHECKING:  # polars is loaded by the commands that make frames, not by `--help`
    import polars as pl

__all__ = ["SAMPLE_BANNER", "print_frame", "print_outcomes", "print_rows", "print_sources"]

STATUS_STYLE = {"ok": "green", "skipped": "yellow", "failed": "red", "already_loaded": "dim"}


def shown(value: object) -> Text:
    """Provider (or user) text as a cell: control and bidi characters out, never rich markup."""
    return Text("" if value is None else printable(str(value)))


def print_outcomes(console: Console, outcomes: list, db_path: Path | Warehouse) -> None:
    runs = Table(title="collection runs", title_justify="left")
    for column in ("archive run", "status", "records", "rejects", "new", "changed", "withdrawn"):
        runs.add_column(
            column, justify="right" if column not in ("archive run", "status") else "left"
        )
    for outcome in outcomes:
        run, summary = outcome.run, outcome.summary
        label = f"{run.archive_run}{' (sample)' if run.sample else ''}"
        runs.add_row(
            shown(label),
            _status(run.status),
            str(summary.records),
            str(summary.rejects),
            str(summary.new),
            str(summary.changed),
            str(summary.withdrawn),
        )
    console.print(runs)
    last = outcomes[-1].run
    sources = Table(title=f"sources in {last.archive_run}", title_justify="left")
    for column in ("source", "status", "records", "rejects", "seconds", "message"):
        sources.add_column(column)
    for s in last.sources:
        sources.add_row(
            s.source,
            _status(s.status),
            str(len(s.records)),
            str(len(s.rejects)),
            f"{s.seconds:.2f}",
            shown(s.message),
        )
    console.print(sources)
    notes = [f"{s.source}: {note}" for o in outcomes for s in o.run.sources for note in s.notes]
    for note in dict.fromkeys(notes):
        console.print(Text.assemble(("note", "yellow"), " ", printable(note)), highlight=False)
    if any(o.run.sample for o in outcomes):
        console.print(SAMPLE_BANNER)
    console.print(f"warehouse: {db_path}  (try: chipcost prices --chip H100-SXM)")


def _status(status: str) -> str:
    return f"[{STATUS_STYLE.get(status, 'white')}]{status}[/]"


def print_frame(console: Console, frame: pl.DataFrame, *, max_rows: int) -> None:
    table = Table(*frame.columns)
    for row in frame.head(max_rows).iter_rows():
        table.add_row(*(shown(v) for v in row))
    console.print(table)
    suffix = f" (showing {max_rows})" if frame.height > max_rows else ""
    console.print(f"{frame.height} rows{suffix}")


def print_rows(
    console: Console, columns: Sequence[str], rows: Sequence[Sequence[object]], *, max_rows: int
) -> None:
    """Any query's rows, each value whole (long ones wrap, none is cut)."""
    table = Table(*columns)
    for column in table.columns:
        column.overflow = "fold"
    for row in rows[:max_rows]:
        table.add_row(*(text_value(v) for v in row))
    console.print(table)
    suffix = f" (showing {max_rows})" if len(rows) > max_rows else ""
    console.print(f"{len(rows)} rows{suffix}")


_SOURCE_COLUMNS = (
    Column("source", "source", essential=True),
    Column("provider", "provider"),
    Column("last_success_at", "last success (UTC)", essential=True),
    Column("age", "age", essential=True),
    Column("stale", "stale", essential=True),
    Column("last_status", "latest attempt", essential=True),
    Column("data", "data", essential=True),
    Column("description", "description"),
)


def print_sources(console: Console, frame: pl.DataFrame, *, stale_days: int, wide: bool) -> None:
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
                "stale": "[yellow]stale[/]" if r["stale"] else "",
                "last_status": plain(r["last_status"] or "never run"),
                "data": {True: "sample", False: "live"}.get(r["sample"], ""),
            }
        )
    fitted = fit_table(console, columns, rows, keep_order=("provider", "description"), wide=wide)
    print_fitted(console, fitted)
    if len(columns) > 3:
        console.print(
            f"stale: no successful run in {stale_days} days (CHIPCOST_STALE_DAYS)"
            + ("; --wide adds the descriptions" if fitted.dropped else ""),
            highlight=False,
        )


def _hours(hours: float):
    from datetime import timedelta

    return timedelta(hours=hours)
