"""`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect."""

from __future__ import annotations

import difflib
from typing import Annotated

import typer

from chipcost.cli.options import DbOption, out
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import load_settings


def prices(
    chip: Annotated[list[str] | None, typer.Option(help="Canonical chip, e.g. H100-SXM.")] = None,
    region: Annotated[list[str] | None, typer.Option(help="Region code, e.g. us-east-1.")] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(help="Pricing model: on_demand, reserved, savings_plan, spot, ..."),
    ] = None,
    provider: Annotated[list[str] | None, typer.Option(help="Provider, e.g. aws.")] = None,
    limit: Annotated[int, typer.Option(help="Show at most this many rows.")] = 200,
    db: DbOption = None,
) -> None:
    """Current per-chip hourly prices, cheapest first within each chip and pricing model."""
    from chipcost.cli.render import print_prices
    from chipcost.warehouse.db import connect
    from chipcost.warehouse.prices import known_values, last_run, per_chip_prices

    settings = load_settings(db=db)
    con = connect(settings.warehouse, read_only=True)
    try:
        frame = per_chip_prices(con, chips=chip, regions=region, models=model, providers=provider)
        if frame.is_empty():
            raise ChipcostError(_no_prices_message(con, known_values, chip, region, model))
        print_prices(out, frame, limit=limit, last=last_run(con))
    finally:
        con.close()


def _no_prices_message(con, known_values, chip, region, model) -> str:
    for column, asked in (("chip", chip), ("region", region), ("pricing_model", model)):
        known = known_values(con, column)
        missing = [a for a in asked or [] if a.lower() not in {k.lower() for k in known}]
        if missing:
            close = difflib.get_close_matches(missing[0], known, n=3, cutoff=0.4)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            return (
                f"no current prices for {column} {missing[0]!r}{hint}; "
                f"known: {', '.join(known) or 'none yet: run `chipcost collect`'}"
            )
    return "no current prices match these filters; run `chipcost collect` or widen the filters"
