"""Terminal output: run summaries and price tables (rich)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from chipcost.cli.formats import numeric_columns, table_value, text_value
from chipcost.cli.render_fresh import SAMPLE_BANNER
from chipcost.cli.terminal import row_count
from chipcost.core.clean import printable
from chipcost.core.settings import Warehouse

if TYPE_CHECKING:  # polars is loaded by the commands that make frames, not by `--help`
    import polars as pl

__all__ = ["SAMPLE_BANNER", "print_frame", "print_outcomes", "print_rows"]

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
    if outcomes and all(o.run.status == "failed" for o in outcomes):
        console.print(f"warehouse: {db_path}  (nothing was loaded: see the messages above)")
    else:
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
    """Any query's rows, each value whole (long ones wrap, none is cut), and each name and
    value as the text it is: never read as rich markup or :emoji: codes."""
    from chipcost.cli.fit import natural_width

    table = Table()
    right = numeric_columns(rows[:max_rows], len(columns))
    for name, numeric in zip(columns, right, strict=True):
        table.add_column(shown(name), overflow="fold", justify="right" if numeric else "left")
    for row in rows[:max_rows]:
        table.add_row(*(shown(table_value(v)) for v in row))
    if len(columns) > 1 and natural_width(console, table) > console.width:
        _print_expanded(console, columns, rows[:max_rows])
        console.print(
            f"{row_count(len(rows), max_rows)}, a block each: a table would be wider than "
            f"{console.width} columns (--format csv or json for every row on one line)",
            highlight=False,
        )
        return
    console.print(table)
    console.print(row_count(len(rows), max_rows))


def _print_expanded(
    console: Console, columns: Sequence[str], rows: Sequence[Sequence[object]]
) -> None:
    """Each row as a block of `name  value` lines (psql's expanded display): a table wider
    than the terminal would cut every name and value into pieces."""
    for n, row in enumerate(rows, start=1):
        console.print(Text(f"-[ row {n} ]".ljust(min(console.width, 40), "-"), style="dim"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="fold")
        for name, value in zip(columns, row, strict=True):
            grid.add_row(shown(name), shown(text_value(value)))
        console.print(grid)
