"""Where a command's output goes, and what `chipcost sql` writes there without rich.

Row limits and the width of a stream, with nothing imported: chipcost.cli.consoles makes its
rich consoles from them. For output that is not a terminal (a pipe, a file: what scripts
read) rich writes no colour or style, only the characters, and importing it is a sixth of
such a command: `sql` writes its table (laid out by chipcost.cli.fit, the one table writer)
and plain notes there itself. tests/cli/test_terminal.py holds the two paths to the same bytes.
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


# The only markup chipcost's freshness notes hold (chipcost.cli.render_fresh).
_OWN_TAGS = re.compile(r"\[(?:bold yellow|yellow|/)\]")


def note_lines(notes: Sequence[str]) -> list[str] | None:
    """Freshness notes without their markup (chipcost.cli.render_fresh prints them through
    rich); None when one holds anything else rich would read."""
    if any("\\" in note for note in notes):  # a backslash escapes a bracket in rich markup
        return None
    plain = [_OWN_TAGS.sub("", note) for note in notes]
    if any("[" in line or not line.isprintable() for line in plain):
        return None
    return plain
