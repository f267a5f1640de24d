"""The consoles every command writes to, and the row limits: no CLI framework imported here.

The read commands chipcost.cli.quick runs without Typer import this, not chipcost.cli.options.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

# The most rows a command shows: enough for any terminal or script, and a bound that keeps
# a mistyped --limit (99999999999999999999) a clear refusal rather than an overflow.
MAX_LIMIT = 1_000_000
# Rows a table shows when --limit is not given (csv and json give every row).
DEFAULT_TABLE_ROWS = 200


def _width(stream) -> int | None:
    """COLUMNS when set (so COLUMNS=80 works in pipes too), the terminal's width on a terminal;
    piped output is not cut to 80 columns: tables stay whole in files and other programs."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return None if stream.isatty() else 220


def make_console(**options) -> Console:
    """A console as chipcost's are: a provider's or a query's ":smile:" (or "06:00:00:") is
    text, never an emoji (and rich's table of emoji codes is never loaded)."""
    return Console(emoji=False, **options)


out = make_console(width=_width(sys.stdout))
err = make_console(stderr=True, width=_width(sys.stderr))
