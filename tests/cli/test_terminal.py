"""`chipcost sql` without rich writes exactly what rich writes to a pipe or a file."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chipcost.cli import terminal
from chipcost.cli.consoles import make_console
from chipcost.cli.fit import rows_table, wrapped
from chipcost.cli.render import print_rows
from chipcost.cli.render_fresh import print_lines

# Cell text: printable text with the characters rich reads as markup or emoji codes, blanks
# at either end, empty cells, line breaks, wide and accented characters, numbers.
text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=24)
other_text = st.sampled_from(["a\nb", "日本", "é", "[red]x[/]", ":smile:"])
cell = st.one_of(text, text, other_text, st.integers(-5, 10**9), st.floats(0, 1e6), st.none())


@st.composite
def tables(draw):
    count = draw(st.integers(1, 5))
    names = draw(st.lists(text.filter(str.strip), min_size=count, max_size=count))
    rows = draw(st.lists(st.lists(cell, min_size=count, max_size=count), max_size=8))
    return names, rows


def rich_prints(names, rows, width: int) -> str:
    console = make_console(file=io.StringIO(), width=width)
    print_rows(console, names, rows, max_rows=100)
    return console.file.getvalue()


@settings(max_examples=150, deadline=None)
@given(tables(), st.integers(8, 160))
def test_the_plain_table_is_what_rich_prints_byte_for_byte(table, width):
    names, rows = table
    fitted = rows_table(names, rows, width)
    expected = rich_prints(names, rows, width)
    if fitted is None:  # wider than the width: a block a row, through rich
        assert "a block" in " ".join(expected.split())
        return
    assert fitted.text() + f"\n{len(rows)} rows\n" == expected


notes_text = st.text(st.characters(min_codepoint=32, max_codepoint=126, blacklist_characters="[\\"))
tagged = st.tuples(st.sampled_from(["[bold yellow]", "[yellow]"]), notes_text, notes_text).map(
    lambda t: f"{t[0]}{t[1]}[/]{t[2]}"
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(notes_text, tagged), max_size=4), st.integers(8, 160))
def test_notes_without_their_markup_are_what_rich_prints(notes, width):
    console = make_console(file=io.StringIO(), width=width)
    print_lines(console, notes)  # as chipcost.cli.render_fresh.print_freshness prints them
    plain = terminal.note_lines(notes)
    assert plain is not None
    lines = [line[s:e] for line in plain for s, e in wrapped(line, width)]
    assert "".join(line + "\n" for line in lines) == console.file.getvalue()
    assert all(len(line) <= width for line in lines if " " in line.strip())


def test_notes_with_other_markup_are_left_to_rich():
    assert terminal.note_lines(["[red]x[/]"]) is None
    assert terminal.note_lines(["a [link=x]b"]) is None
    assert terminal.note_lines(["[bold yellow]\\[/]"]) is None  # an escaped bracket


class _Stream(io.StringIO):
    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        super().__init__()
        self._tty, self._encoding = tty, encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:
        return self._encoding


@pytest.mark.parametrize(
    ("stream", "env", "expected"),
    [
        (_Stream(tty=False), {}, terminal.PIPED_WIDTH),
        (_Stream(tty=False), {"COLUMNS": "80"}, 80),
        (_Stream(tty=True), {}, None),  # colours and bold: rich's
        (_Stream(tty=False), {"FORCE_COLOR": "1"}, None),
        (_Stream(tty=False), {"FORCE_COLOR": ""}, None),
        (_Stream(tty=False), {"TTY_COMPATIBLE": "1"}, None),
        (_Stream(tty=False, encoding="ascii"), {}, None),  # rich draws ASCII boxes there
    ],
)
def test_plain_output_only_where_rich_writes_plain_text(stream, env, expected, monkeypatch):
    for name in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert terminal.plain_width(stream) == expected


@pytest.mark.parametrize(
    ("fmt", "answer"), [("table", "answer"), ("csv", "answer"), ("json", '{"answer": 42}')]
)
def test_sql_to_a_pipe_does_not_import_rich(fmt, answer, tmp_path):
    from tests.helpers import loaded_warehouse, record

    # A sample run: the notes (SAMPLE DATA) go with the table, or to stderr for csv and json.
    db = loaded_warehouse(tmp_path / "w.duckdb", [record()])
    con = duckdb.connect(str(db))
    con.execute("UPDATE runs SET sample = TRUE")
    con.close()
    code = (
        "import atexit, sys; atexit.register(lambda: print('rich' in sys.modules, "
        "file=sys.stderr)); sys.argv = ['chipcost', *sys.argv[1:]]; "
        "from chipcost.cli.entry import main; main()"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    args = ["sql", "select 42 as answer", "--format", fmt, "--db", str(db)]
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert answer in done.stdout.splitlines()[1 if fmt == "json" else 0]
    notes = done.stdout if fmt == "table" else done.stderr
    assert "SAMPLE DATA: the sample week, ending " in notes
    assert "These prices come from the bundled sample archive" in notes
    assert done.stderr.strip().splitlines()[-1] == "False"
