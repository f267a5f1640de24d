"""What every command shares: the consoles and the common options."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console

# Piped output is not cut to 80 columns: tables stay whole in files and other programs.
out = Console(width=None if sys.stdout.isatty() else 220)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 220)

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
