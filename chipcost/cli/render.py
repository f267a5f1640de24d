"""Terminal output: a collection's summary, a query's rows, notes wrapped to the width."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chipcost.cli.consoles import print_fitted, print_wrapped
from chipcost.cli.fit import Cell, Column, Fitted, Styled, fit_table, lay_out, plain, rows_table
from chipcost.cli.formats import text_value
from chipcost.cli.render_fresh import SAMPLE_BANNER
from chipcost.cli.terminal import row_count
from chipcost.core.clean import printable
from chipcost.core.settings import Warehouse

if TYPE_CHECKING:
    from chipcost.cli.consoles import Screen

__all__ = ["SAMPLE_BANNER", "print_note", "print_outcomes", "print_rows"]

STATUS_STYLE = {"ok": "green", "skipped": "yellow", "failed": "red", "already_loaded": "dim"}


def shown(value: object) -> str:
    """Provider (or user) text as shown: control and bidi characters out."""
    return "" if value is None else printable(str(value))


def print_outcomes(console: Screen, outcomes: list, db_path: Path | Warehouse) -> None:
    numbers = ("records", "rejects", "new", "changed", "withdrawn")
    runs = [
        Column("run", "archive run", essential=True, whole=True),
        Column("status", "status", essential=True),
        *(Column(n, n, numeric=True, essential=True) for n in numbers),
    ]
    cells: list[dict[str, Cell]] = []
    for outcome in outcomes:
        run, summary = outcome.run, outcome.summary
        label = f"{run.archive_run}{' (sample)' if run.sample else ''}"
        cells.append(
            {"run": plain(label), "status": _status(run.status)}
            | {n: str(getattr(summary, n)) for n in numbers}
        )
    print_fitted(console, fit_table(console, runs, cells, title="collection runs"))
    last = outcomes[-1].run
    sources = [
        Column("source", "source", essential=True, whole=True),
        Column("status", "status", essential=True),
        Column("records", "records", numeric=True, essential=True),
        Column("rejects", "rejects", numeric=True, essential=True),
        Column("seconds", "seconds", numeric=True, essential=True),
        Column("message", "message", essential=True),  # wraps: a URL is never cut
    ]
    cells = [
        {
            "source": plain(s.source),
            "status": _status(s.status),
            "records": str(len(s.records)),
            "rejects": str(len(s.rejects)),
            "seconds": f"{s.seconds:.2f}",
            "message": plain(s.message),
        }
        for s in last.sources
    ]
    title = f"sources in {last.archive_run}"
    print_fitted(console, fit_table(console, sources, cells, title=title))
    notes = [f"{s.source}: {note}" for o in outcomes for s in o.run.sources for note in s.notes]
    for note in dict.fromkeys(notes):
        print_note(console, note, label=("note", "yellow"))
    if any(o.run.sample for o in outcomes):
        console.say(SAMPLE_BANNER)
    if outcomes and all(o.run.status == "failed" for o in outcomes):
        console.say(f"warehouse: {db_path}  (nothing was loaded: see the messages above)")
    else:
        console.say(f"warehouse: {db_path}  (try: chipcost prices --chip H100-SXM)")


def print_note(console: Screen, note: str, *, label: tuple[str, str] = ("note", "dim")) -> None:
    """'note ...': provider or user text, wrapped to the width, further lines indented."""
    print_wrapped(console, printable(note), indent="  ", head=label)


def _status(status: str) -> Styled:
    return Styled(status, STATUS_STYLE.get(status, "white"))


def print_rows(
    console: Screen, columns: Sequence[str], rows: Sequence[Sequence[object]], *, max_rows: int
) -> None:
    """Any query's rows, each value whole, and each name and value as the text it is: never
    read as rich markup or :emoji: codes. A table wider than the terminal is printed a
    block a row instead."""
    fitted = rows_table(columns, rows[:max_rows], console.width)
    if fitted is None:
        _print_expanded(console, columns, rows[:max_rows])
        console.say(
            f"{row_count(len(rows), max_rows)}, a block each: a table would be wider than "
            f"{console.width} columns (--format csv or json for every row on one line)",
        )
        return
    print_fitted(console, fitted)
    console.say(row_count(len(rows), max_rows))


def _print_expanded(
    console: Screen, columns: Sequence[str], rows: Sequence[Sequence[object]]
) -> None:
    """Each row as a block of `name  value` lines (psql's expanded display): a table wider
    than the terminal would cut every name and value into pieces."""
    names = [Column("name", "", whole=True, essential=True), Column("value", "", essential=True)]
    for n, row in enumerate(rows, start=1):
        console.say([(f"-[ row {n} ]".ljust(min(console.width, 40), "-"), "dim")])
        cells: list[dict[str, Cell]] = [
            {"name": Styled(plain(name), "bold"), "value": plain(text_value(value))}
            for name, value in zip(columns, row, strict=True)
        ]
        print_fitted(console, Fitted(lay_out(names, cells, console.width, header=False), []))
