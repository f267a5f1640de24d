"""Where a command's output goes, and what `chipcost sql` writes there without rich.

Row limits and the width of a stream, with nothing imported: chipcost.cli.consoles makes its
rich consoles from them. And the plain-text form of `chipcost sql`'s table and notes, for
output that is not a terminal (a pipe, a file: what scripts read): there rich writes no
colour or style, only the characters, and importing it is a sixth of such a command. `sql`
writes those characters itself when the table is simple (printable ASCII, no line breaks,
no wider than the width), and leaves everything else to rich. tests/cli/test_terminal.py
holds the two to the same bytes.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from typing import TextIO

# The width of piped output: tables stay whole in files and other programs.
PIPED_WIDTH = 220


def width(stream: TextIO) -> int | None:
    """COLUMNS when set (so COLUMNS=80 works in pipes too), the terminal's width on a terminal
    (None: rich measures it); piped output is not cut to 80 columns."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return None if stream.isatty() else PIPED_WIDTH


def plain_width(stream: TextIO) -> int | None:
    """The width rich would write plain text to `stream` at, or None when rich would style
    its output or draw with other characters: a terminal, or a setting that forces one
    (TTY_COMPATIBLE, FORCE_COLOR), an encoding other than UTF-8, Windows."""
    if sys.platform == "win32" or stream.isatty():
        return None
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR") is not None:
        return None
    if not (getattr(stream, "encoding", None) or "").lower().startswith("utf"):
        return None
    return width(stream)


def row_count(rows: int, shown: int) -> str:
    """The line under a query's table: how many rows, and how many are shown."""
    return f"{rows} rows" + (f" (showing {shown})" if rows > shown else "")


def _simple(text: str) -> bool:
    """Printable ASCII: one character, one column, as rich measures it."""
    return text.isascii() and text.isprintable()


def table_lines(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    at: int,
    right: Sequence[bool] = (),
) -> list[str] | None:
    """rich's default table (heavy head, edges, one space of padding) of these cells, left
    aligned but the `right` columns (numbers), as plain lines; None when a cell is not
    simple or the table is wider than `at` (rich wraps cells then)."""
    cells = [list(columns), *(list(row) for row in rows)]
    if not columns or any(not _simple(cell) for line in cells for cell in line):
        return None
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    if not all(widths) or sum(widths) + 3 * len(widths) + 1 > at:
        return None

    def rule(left: str, fill: str, cross: str, right: str) -> str:
        return left + cross.join(fill * (w + 2) for w in widths) + right

    aligned = list(right) or [False] * len(columns)

    def line(edge: str, values: Sequence[str]) -> str:
        # A right-aligned column (a number) is right-aligned in its header too, as in rich.
        padded = (
            f" {v.rjust(w) if r else v.ljust(w)} "
            for v, w, r in zip(values, widths, aligned, strict=True)
        )
        return edge + edge.join(padded) + edge

    lines = [rule("┏", "━", "┳", "┓"), line("┃", columns), rule("┡", "━", "╇", "┩")]
    lines += [line("│", row) for row in rows]
    lines.append(rule("└", "─", "┴", "┘"))
    return lines


# The only markup chipcost's freshness notes hold (chipcost.cli.render_fresh).
_OWN_TAGS = re.compile(r"\[(?:bold yellow|yellow|/)\]")


def note_lines(notes: Sequence[str]) -> list[str] | None:
    """Freshness notes without their markup, as rich prints them unwrapped (soft wrap);
    None when one holds anything else rich would read."""
    if any("\\" in note for note in notes):  # a backslash escapes a bracket in rich markup
        return None
    plain = [_OWN_TAGS.sub("", note) for note in notes]
    if any("[" in line or not line.isprintable() for line in plain):
        return None
    return plain
