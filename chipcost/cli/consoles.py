"""The rich consoles every command writes to, imported when a command runs (not to parse its
command line: rich takes a few tens of milliseconds to import)."""

from __future__ import annotations

import sys

from rich.console import Console

from chipcost.cli.terminal import width
from chipcost.core.questions import DEFAULT_TABLE_ROWS, MAX_LIMIT

__all__ = ["DEFAULT_TABLE_ROWS", "MAX_LIMIT", "err", "make_console", "out"]


def make_console(**options) -> Console:
    """A console as chipcost's are: a provider's or a query's ":smile:" (or "06:00:00:") is
    text, never an emoji (and rich's table of emoji codes is never loaded)."""
    return Console(emoji=False, **options)


out = make_console(width=width(sys.stdout))
err = make_console(stderr=True, width=width(sys.stderr))
