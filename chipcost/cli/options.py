"""What every command shares: the common options (Typer's), and the consoles."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.consoles import DEFAULT_TABLE_ROWS, MAX_LIMIT, err, out
from chipcost.cli.formats import OutputFormat, PriceFormat
from chipcost.core.vocabulary import models_help

__all__ = [
    "DEFAULT_TABLE_ROWS",
    "MAX_LIMIT",
    "DbOption",
    "FormatOption",
    "PriceFormatOption",
    "LimitOption",
    "OldModelOption",
    "PricingModelOption",
    "CurrencyOption",
    "ListPricesOption",
    "SpeedOption",
    "WideOption",
    "err",
    "out",
]

DbOption = Annotated[
    str | None,
    typer.Option(
        "--warehouse",
        "--db",
        help=(
            "Warehouse: a DuckDB file, or a lake as ducklake:postgres: and its "
            "connection string (default: the variables CHIPCOST_WAREHOUSE, then "
            "CHIPCOST_DB, else chipcost.duckdb in CHIPCOST_DATA_DIR or ./data)."
        ),
    ),
]
PricingModelOption = Annotated[
    list[str] | None,
    typer.Option(
        "--pricing-model",
        help=f"{models_help()}.",
    ),
]
# The old name of --pricing-model, still taken.
OldModelOption = Annotated[
    list[str] | None, typer.Option("--model", hidden=True, help="Old name of --pricing-model.")
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
CurrencyOption = Annotated[
    str | None,
    typer.Option(
        "--currency",
        help="Show prices in this currency (EUR, GBP, JPY, ...) at the ECB reference rate of "
        "each price's own day (default: $CHIPCOST_CURRENCY, else USD).",
    ),
]
ListPricesOption = Annotated[
    bool,
    typer.Option(
        "--list-prices",
        help="Show list prices: your discounts file is set aside.",
    ),
]
SpeedOption = Annotated[
    str | None,
    typer.Option(
        help="Inference: tokens/s per user each chip's figure must reach: a number, server "
        "(5, MLPerf Server's bound; the default), interactive (25) or max (maximum throughput)."
    ),
]
WideOption = Annotated[
    bool, typer.Option("--wide", help="Every column, however wide the table gets.")
]
FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        case_sensitive=False,
        help="table (for people), csv or json (for scripts: stable field names, ISO 8601 times).",
    ),
]
PriceFormatOption = Annotated[
    PriceFormat,
    typer.Option(
        "--format",
        case_sensitive=False,
        help="table (for people), csv or json (for scripts: stable field names, ISO 8601 "
        "times), or focus (CSV under the FinOps FOCUS column names, docs/focus.md).",
    ),
]
