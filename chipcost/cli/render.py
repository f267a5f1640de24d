"""Terminal output: run summaries and price tables (rich)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from rich.console import Console
from rich.table import Table
from rich.text import Text

from chipcost.core.clean import printable

SAMPLE_BANNER = (
    "[bold yellow]SAMPLE DATA[/]: these prices come from the bundled sample archive "
    "(synthetic, in each provider's real payload shape), not from a live fetch."
)
STATUS_STYLE = {"ok": "green", "skipped": "yellow", "failed": "red", "already_loaded": "dim"}


def shown(value: object) -> Text:
    """Provider (or user) text as a cell: control and bidi characters out, never rich markup."""
    return Text("" if value is None else printable(str(value)))


def print_outcomes(console: Console, outcomes: list, db_path: Path) -> None:
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


def print_prices(console: Console, frame: pl.DataFrame, *, limit: int, last: tuple | None) -> None:
    table = Table(title="current per-chip prices (USD)", title_justify="left")
    columns = (
        ("chip", "chip"),
        ("provider", "provider"),
        ("region", "region"),
        ("zone", "zone"),
        ("instance", "instance_type"),
        ("chips", "chip_count"),
        ("model", "pricing_model"),
        ("term", "term"),
        ("payment", "payment"),
        ("plan", "plan"),
        ("$/chip-hr", "price_per_chip_hour"),
        ("$/instance-hr", "price_per_hour"),
    )
    columns = tuple(
        (h, c) for h, c in columns if frame[c].drop_nulls().cast(pl.String).str.len_chars().max()
    )
    for header, _ in columns:
        numeric = header in ("chips", "$/chip-hr", "$/instance-hr")
        table.add_column(header, justify="right" if numeric else "left")
    for row in frame.head(limit).iter_rows(named=True):
        table.add_row(*(_cell(column, row[column]) for _, column in columns))
    console.print(table)
    if frame.height > limit:
        console.print(f"{frame.height - limit} more rows: narrow with --region/--model or --limit")
    if last is not None:
        run_id, observed_at, sample, _ = last
        console.print(f"as of {observed_at:%Y-%m-%d %H:%M} UTC (run {run_id})")
        if sample:
            console.print(SAMPLE_BANNER)


def _cell(column: str, value: object) -> str | Text:
    if value is None:
        return ""
    if column in ("price_per_chip_hour", "price_per_hour"):
        return f"{value:,.4f}"
    if column == "chip_count":
        return f"{value:g}"
    return shown(value)


def print_frame(console: Console, frame: pl.DataFrame, *, max_rows: int) -> None:
    table = Table(*frame.columns)
    for row in frame.head(max_rows).iter_rows():
        table.add_row(*(shown(v) for v in row))
    console.print(table)
    suffix = f" (showing {max_rows})" if frame.height > max_rows else ""
    console.print(f"{frame.height} rows{suffix}")
