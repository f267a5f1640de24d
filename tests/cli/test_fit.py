"""Fitted tables laid out line by line print exactly what rich's table layout prints."""

from __future__ import annotations

import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from chipcost.cli import fit
from chipcost.cli.consoles import make_console
from chipcost.cli.fit import Column, fit_table, plain, print_fitted

ANSI = re.compile(r"\x1b\[[0-9;]*m")

# Cell text as the renderers make it: provider text escaped by `plain`, some markup of our own,
# numbers, wide (two-cell) characters, empty cells, text rich reads :emoji: codes in.
words = st.text(alphabet="abcxyz-_./$%,:0123456789 日本", max_size=14)
cells = st.one_of(
    words.map(plain),
    st.sampled_from([":smile:", "06:00", "derived:B200:x", ":a:"]).map(plain),  # emoji codes
    words.map(lambda w: f"[yellow]{plain(w)}[/]"),
    st.floats(0, 1e7, allow_nan=False).map(lambda v: f"{v:,.4f}"),
    words.map(lambda w: Text(w, style="green")),
    st.just(""),
)


@st.composite
def tables(draw):
    count = draw(st.integers(1, 6))
    columns = [
        Column(f"c{i}", draw(words.filter(str.strip)) or f"c{i}", numeric=draw(st.booleans()),
               essential=draw(st.booleans()))
        for i in range(count)
    ]  # fmt: skip
    rows = draw(st.lists(st.fixed_dictionaries({c.key: cells for c in columns}), max_size=12))
    return columns, rows


def printed(columns, rows, *, width: int, wide: bool, laid_out: bool, color: bool) -> str:
    console = make_console(
        file=io.StringIO(),
        width=width,
        force_terminal=color,
        color_system="standard" if color else None,
    )
    fitted = fit_table(console, columns, rows, keep_order=[c.key for c in columns], wide=wide)
    if not laid_out:
        fitted = type(fitted)(fitted.table, fitted.dropped, fitted.width)  # rich's layout
    print_fitted(console, fitted)
    return console.file.getvalue()


def dropped_by_rich(columns, rows, width: int) -> list[str]:
    """The columns left out when each trial table is measured by rich itself."""
    console = make_console(file=io.StringIO(), width=width)
    kept = {c.key for c in columns if c.essential}
    for column in columns:
        if column.key in kept:
            continue
        trial = [c for c in columns if c.key in kept | {column.key}]
        table = fit._table(None, trial, rows)
        measured = console.measure(table, options=console.options.update_width(100_000))
        if measured.maximum <= width:
            kept.add(column.key)
    return [c.header for c in columns if c.key not in kept]


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(20, 200))
def test_the_columns_kept_are_those_rich_measures_to_fit(table, width):
    columns, rows = table
    console = make_console(file=io.StringIO(), width=width)
    fitted = fit_table(console, columns, rows, keep_order=[c.key for c in columns])
    assert fitted.dropped == dropped_by_rich(columns, rows, width)


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(20, 200), st.booleans())
def test_the_direct_layout_prints_what_rich_prints(table, width, wide):
    columns, rows = table
    ours = printed(columns, rows, width=width, wide=wide, laid_out=True, color=False)
    theirs = printed(columns, rows, width=width, wide=wide, laid_out=False, color=False)
    assert ours == theirs
    # In a terminal the same characters, styled.
    coloured = printed(columns, rows, width=width, wide=wide, laid_out=True, color=True)
    assert ANSI.sub("", coloured) == theirs


def test_a_long_table_is_laid_out_directly():
    columns = [Column("chip", "chip", essential=True), Column("usd", "$/hr", numeric=True)]
    rows = [{"chip": f"H{n}", "usd": f"{n / 7:,.4f}"} for n in range(200)]
    console = make_console(file=io.StringIO(), width=100)
    fitted = fit_table(console, columns, rows)
    assert fitted.lines is not None
    assert fitted.lines.plain.splitlines()[:3] == [
        "chip      $/hr",
        "──────────────",
        "H0      0.0000",
    ]


def test_a_cell_with_a_line_break_is_left_to_rich():
    columns = [Column("note", "note", essential=True)]
    console = make_console(file=io.StringIO(), width=100)
    assert fit_table(console, columns, [{"note": "two\nlines"}]).lines is None
