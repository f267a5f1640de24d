"""`chipcost export --focus DIR`: the price history for FinOps tools, under FOCUS's names."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.options import DbOption, ListPricesOption, out


def export(
    focus: Annotated[
        str,
        typer.Option(
            "--focus",
            help="Directory to write sku_prices.csv and sku_prices.parquet in (FOCUS columns).",
        ),
    ],
    since: Annotated[
        str | None,
        typer.Option(help="Only prices still in force on or after this day, YYYY-MM-DD."),
    ] = None,
    chip: Annotated[
        list[str] | None, typer.Option(help="Only this chip or family (repeat or comma list).")
    ] = None,
    list_prices: ListPricesOption = False,
    db: DbOption = None,
) -> None:
    """Export the whole price history under FOCUS's column names, as CSV and Parquet."""
    from pathlib import Path

    from chipcost.cli.render import SAMPLE_BANNER
    from chipcost.core.errors import ChipcostError
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.export import export_focus
    from chipcost.pipeline.your_prices import for_read
    from chipcost.reports.period import parse_day
    from chipcost.warehouse.db import scalar
    from chipcost.warehouse.reader import read_connection

    if not focus.strip():
        raise ChipcostError("--focus is empty: give a directory, e.g. chipcost export --focus out/")
    settings = load_settings(db=db)
    con = read_connection(settings)
    try:
        mine = for_read(
            con, "USD", list_prices
        )  # US dollars always: $CHIPCOST_CURRENCY is not read
        made = export_focus(
            con, Path(focus), since=parse_day(since, "--since"), chips=chip, mine=mine
        )
        sample = bool(scalar(con, "SELECT coalesce(bool_or(sample), false) FROM runs"))
    finally:
        con.close()
    out.print(
        f"FOCUS export: {made.rows} prices ({made.current} in force now) in "
        + " and ".join(str(f) for f in made.files),
        highlight=False,
    )
    if mine.discounts is not None:
        out.print(
            f"ContractedUnitPrice after your discounts ({mine.discounts.summary()}) on "
            f"{made.discounted} rows; --list-prices for list prices only",
            highlight=False,
        )
    out.print("columns: docs/focus.md; prices in USD (list, upfront fees spread)", highlight=False)
    if sample:
        out.print(SAMPLE_BANNER)
