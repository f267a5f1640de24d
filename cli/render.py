"""Terminal output: a query's rows, notes wrapped to the width, a status in its colour
(a collection's summary: chipcost.cli.commands.collect)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from chipcost.cli.consoles import print_fitted, print_wrapped
from chipcost.cli.fit import Cell, Column, Fitted, Styled, lay_out, plain, rows_table
from chipcost.cli.formats import text_value
from chipcost.cli.render_fresh import SAMPLE_BANNER
from chipcost.cli.terminal import row_count
from chipcost.core.clean import printable
from chipcost.core.counting import counted

if TYPE_CHECKING:
    from chipcost.cli.consoles import Screen

__all__ = ["SAMPLE_BANNER", "print_note", "print_rows", "say_more_rows", "status_cell"]

STATUS_STYLE = {"ok": "green", "skipped": "yellow", "failed": "red", "already_loaded": "dim"}


def shown(value: object) -> str:
    """Provider (or user) text as shown: control and bidi characters out."""
    return "" if value is None else printable(str(value))


def print_note(console: Screen, note: str, *, label: tuple[str, str] = ("note", "dim")) -> None:
    """'note ...': provider or user text, wrapped to the width, further lines indented."""
    print_wrapped(console, printable(note), indent="  ", head=label)


def say_more_rows(console: Screen, more: int, counted_to: str = "") -> None:
    """One line for the rows --limit left out (beside csv, json and focus, on stderr:
    chipcost.cli.consoles.notices); `counted_to`: the bound their count stopped at, if it
    did ('1,000,000 rows (CHIPCOST_SQL_ROWS)'), so there are at least that many."""
    if more > 0:
        least, bound = ("at least ", f"; counted to {counted_to}") if counted_to else ("", "")
        console.say(f"{least}{counted(more, 'more row')} (--limit{bound})")


def status_cell(status: str) -> Styled:
    return Styled(status, STATUS_STYLE.get(status, "white"))


def print_rows(
    console: Screen, columns: Sequence[str], rows: Sequence[Sequence[object]], *, total: int
) -> None:
    """A query's rows, each value whole, and each name and value as the text it is: never
    read as rich markup or :emoji: codes, with a line of the `total` rows of the result. A
    table wider than the terminal is printed a block a row instead."""
    fitted = rows_table(columns, rows, console.width)
    if fitted is None:
        _print_expanded(console, columns, rows)
        console.say(
            f"{row_count(total, len(rows))}, a block each: a table would be wider than "
            f"{console.width} columns (--format csv or json for every row on one line)",
        )
        return
    print_fitted(console, fitted)
    console.say(row_count(total, len(rows)))


def _print_expanded(
    console: Screen, columns: Sequence[str], rows: Sequence[Sequence[object]]
) -> None:
    """Each row as a block of `name  value` lines (psql's expanded display): a table wider
    than the terminal would cut every name and value into pieces."""
    names = [Column("name", "", essential=True), Column("value", "", essential=True, prose=True)]
    for n, row in enumerate(rows, start=1):
        console.say([(f"-[ row {n} ]".ljust(min(console.width, 40), "-"), "dim")])
        cells: list[dict[str, Cell]] = [
            {"name": Styled(plain(name), "bold"), "value": plain(text_value(value))}
            for name, value in zip(columns, row, strict=True)
        ]
        print_fitted(console, Fitted(lay_out(names, cells, console.width, header=False), []))
