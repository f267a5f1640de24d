"""The width a command's output is laid out to, and the line under a query's rows, with
nothing imported (chipcost.cli.consoles writes to the streams)."""

from __future__ import annotations

import os
from typing import TextIO

from chipcost.core.counting import counted

# The width of piped output: tables stay whole in files and other programs.
PIPED_WIDTH = 220


def width(stream: TextIO) -> int | None:
    """COLUMNS when set (so COLUMNS=80 works in pipes too), None on a terminal (the terminal
    says its own: chipcost.cli.consoles asks it); piped output is not cut to 80 columns."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return None if stream.isatty() else PIPED_WIDTH


def row_count(rows: int, shown: int) -> str:
    """The line under a query's table: how many rows, and how many are shown."""
    return counted(rows, "row") + (f" (showing {shown:,})" if rows > shown else "")
