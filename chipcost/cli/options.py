"""What every command shares: the consoles and the common options."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer
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


out = Console(width=_width(sys.stdout))
err = Console(stderr=True, width=_width(sys.stderr))

DbOption = Annotated[
    str | None,
    typer.Option(
        "--warehouse",
        "--db",
        help=(
            "Warehouse: a DuckDB file path or ducklake:postgres:<conninfo> (default: "
            "$CHIPCOST_WAREHOUSE, $CHIPCOST_DB or ./data/chipcost.duckdb)."
        ),
    ),
]
LimitOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=MAX_LIMIT,
        help=f"Show at most this many rows (table: {DEFAULT_TABLE_ROWS} unless given; "
        "csv and json: all).",
    ),
]
WideOption = Annotated[
    bool, typer.Option("--wide", help="Every column, however wide the table gets.")
]
