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
    whole: bool = False  # a name never broken (a source, an id): other columns wrap instead


@dataclass(frozen=True)
class Fitted:
    table: Table
    dropped: list[str]  # headers of the columns left out to fit
    width: int  # the width to print it at
    lines: Text | None = None  # the same table laid out directly, when no cell needs wrapping


# Between two columns: the left one's right padding, the box's blank rule, the right one's
# left padding (rich's SIMPLE_HEAD box without edges).
_GAP = 3


def _laid_out(
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, str | Text]],
    width: int,
    cells: list[list[Text]] | None = None,
    widths: list[int] | None = None,
) -> tuple[Text, int] | None:
    """The table as rich draws `_table`'s (header, a rule, one line per row) and its width,
    built line by line: rich's general layout measures and renders every cell several times,
    most of the time of a long table. None when a cell holds a line break or the table is
    wider than `width` (rich wraps cells then): `_table` draws those."""
    if not columns:
        return None
    cells = cells if cells is not None else _cells(columns, rows)
    if cells is None:
        return None
    headers = _headers(columns)
    if widths is None:
        widths = _natural_widths(columns, rows, cells, headers)
    total = _total(widths)
    if total > width:
        return None
    lines = [_line(headers, columns, widths, pad_style="table.header")]
    lines.append(Text("─" * total))
    lines += [_line(line, columns, widths) for line in cells]
    return Text("\n").join(lines), total


def _cells(
    columns: Sequence[Column], rows: Sequence[Mapping[str, str | Text]]
) -> list[list[Text]] | None:
    """Each row's cells as rich reads them; None when one holds a line break."""
    cells = [[_cell(row[c.key]) for c in columns] for row in rows]
    if any("\n" in cell.plain for line in cells for cell in line):
        return None
    return cells


def _headers(columns: Sequence[Column]) -> list[Text]:
    return [Text.from_markup(c.header, style="table.header", emoji=False) for c in columns]


def _natural_widths(
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, str | Text]],
    cells: Sequence[Sequence[Text]],
    headers: Sequence[Text],
) -> list[int]:
    """Each column's width in `_table`, uncut: its widest cell (one line each), and a
    number's column at least as wide as its widest text (min_width in `_table`)."""
    widths = []
    for i, column in enumerate(columns):
        natural = max(cell.cell_len for cell in [headers[i], *(line[i] for line in cells)])
        floor = max([len(column.header), *(len(row[column.key]) for row in rows)])
        widths.append(max(natural, floor) if column.numeric else natural)
    return widths


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + _GAP * (len(widths) - 1)


def _line(
    cells: Sequence[Text], columns: Sequence[Column], widths: Sequence[int], pad_style: str = ""
) -> Text:
    line = Text()
    for i, (cell, column) in enumerate(zip(cells, columns, strict=True)):
        if i:
            line.append(" " * _GAP)
        if column.numeric:  # right-justified as rich does it: trailing blanks dropped first
            cell.rstrip()
            line.append(" " * (widths[i] - cell.cell_len), style=pad_style)
            line.append_text(cell)
        else:
            pad = " " * (widths[i] - cell.cell_len)
            line.append_text(cell)
            line.append(pad, style=pad_style)
    return line


def _cell(value: str | Text) -> Text:
    # A string cell is markup, as rich's table reads it on chipcost's consoles (never
    # highlighted, no :emoji: codes: chipcost.cli.consoles).
    if isinstance(value, Text):
        return value.copy()
    if "[" not in value:
        # What Text.from_markup makes of text with no tag, a fifth of its time (a 200-row
        # table has thousands of cells).
        return Text(value)
    return Text.from_markup(value, emoji=False)


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
            # A number or a name is never wrapped or cut: its column is as wide as its widest
            # cell.
            no_wrap=column.numeric or column.whole,
            min_width=widest if column.numeric or column.whole else None,
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
        laid = None if title else _laid_out(columns, rows, _UNBOUNDED)
        natural = laid[1] if laid else natural_width(console, table)
        return Fitted(table, [], max(console.width, natural), laid[0] if laid else None)
    kept = {c.key for c in columns if c.essential}
    optional = [k for k in keep_order if any(c.key == k for c in columns)]
    optional += [c.key for c in columns if c.key not in kept and c.key not in optional]
    cells = None if title else _cells(columns, rows)
    if cells is not None:
        # Each column's width is known without rich: a trial's width is their sum.
        widths = _natural_widths(columns, rows, cells, _headers(columns))
        width_of = {c.key: w for c, w in zip(columns, widths, strict=True)}
        for key in optional:
            trial = [width_of[c.key] for c in columns if c.key in kept | {key}]
            if _total(trial) <= console.width:
                kept.add(key)
    else:
        widest, sample = _widest(columns, rows), _widest_rows(console, columns, rows)
        for key in optional:
            trial = [c for c in columns if c.key in kept | {key}]
            if natural_width(console, _table(title, trial, sample, widest)) <= console.width:
                kept.add(key)
    shown = [c for c in columns if c.key in kept]
    dropped = [c.header for c in columns if c.key not in kept]
    shown_widths = None
    if cells is not None:  # the cells parsed and measured above, of the columns shown
        at = [i for i, c in enumerate(columns) if c.key in kept]
        cells = [[line[i] for i in at] for line in cells]
        shown_widths = [widths[i] for i in at]
    laid = None if title else _laid_out(shown, rows, console.width, cells, shown_widths)
    return Fitted(_table(title, shown, rows), dropped, console.width, laid[0] if laid else None)


def print_fitted(console: Console, fitted: Fitted) -> None:
    """Print at the fitted width (wider than the terminal only for --wide)."""
    if fitted.lines is not None:
        console.print(fitted.lines, soft_wrap=True, highlight=False)
        return
    width = console.width
    console.width = fitted.width
    try:
        console.print(fitted.table)
    finally:
        console.width = width
