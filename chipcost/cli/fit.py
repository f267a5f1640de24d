"""Tables that fit the terminal: optional columns only where they fit, numbers never cut."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from chipcost.core.clean import printable

# Wider than any terminal: measures a table's natural width, uncut.
_UNBOUNDED = 100_000


def plain(value: object) -> str:
    """Provider or user text as a cell: control and bidi characters out, markup escaped."""
    return escape(printable(str(value)))


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    numeric: bool = False
    essential: bool = False  # kept at any width; optional columns are left out to fit


@dataclass(frozen=True)
class Fitted:
    table: Table
    dropped: list[str]  # headers of the columns left out to fit
    width: int  # the width to print it at


def _table(
    title: str | None,
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, str | Text]],
    widest_of: Mapping[str, int] | None = None,
) -> Table:
    table = Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False
    )
    widest_of = widest_of or _widest(columns, rows)
    for column in columns:
        widest = widest_of[column.key]
        table.add_column(
            column.header,
            justify="right" if column.numeric else "left",
            # A number is never wrapped or cut: its column is as wide as its widest cell.
            no_wrap=column.numeric,
            min_width=widest if column.numeric else None,
            overflow="fold",
        )
    for row in rows:
        table.add_row(*(row[c.key] for c in columns))
    return table


def _widest(columns: Sequence[Column], rows: Sequence[Mapping[str, str | Text]]) -> dict[str, int]:
    return {c.key: max([len(c.header), *(len(r[c.key]) for r in rows)]) for c in columns}


def _widest_rows(
    console: Console, columns: Sequence[Column], rows: Sequence[Mapping[str, str | Text]]
) -> list[Mapping[str, str | Text]]:
    """The rows holding each column's widest cell. A table's natural width is each column's
    widest cell plus fixed padding, so a table of these rows alone measures as wide as one of
    all rows: the trials of `fit_table` measure a few rows, not hundreds, each time."""
    if not rows:
        return list(rows)
    options = console.options.update_width(_UNBOUNDED)
    picked = set()
    for column in columns:
        widths = [Measurement.get(console, options, row[column.key]).maximum for row in rows]
        picked.add(max(range(len(rows)), key=widths.__getitem__))
    return [rows[i] for i in sorted(picked)]


def natural_width(console: Console, table: Table) -> int:
    return console.measure(table, options=console.options.update_width(_UNBOUNDED)).maximum


def fit_table(
    console: Console,
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, str | Text]],
    *,
    title: str | None = None,
    keep_order: Sequence[str] = (),
    wide: bool = False,
) -> Fitted:
    """The essential columns, then each optional one in `keep_order` (keys) that still fits the
    console; `wide` keeps every column and prints at the table's own width."""
    if wide:
        table = _table(title, columns, rows)
        return Fitted(table, [], max(console.width, natural_width(console, table)))
    kept = {c.key for c in columns if c.essential}
    optional = [k for k in keep_order if any(c.key == k for c in columns)]
    optional += [c.key for c in columns if c.key not in kept and c.key not in optional]
    widest, sample = _widest(columns, rows), _widest_rows(console, columns, rows)
    for key in optional:
        trial = [c for c in columns if c.key in kept | {key}]
        if natural_width(console, _table(title, trial, sample, widest)) <= console.width:
            kept.add(key)
    shown = [c for c in columns if c.key in kept]
    dropped = [c.header for c in columns if c.key not in kept]
    return Fitted(_table(title, shown, rows), dropped, console.width)


def print_fitted(console: Console, fitted: Fitted) -> None:
    """Print at the fitted width (wider than the terminal only for --wide)."""
    width = console.width
    console.width = fitted.width
    try:
        console.print(fitted.table)
    finally:
        console.width = width
