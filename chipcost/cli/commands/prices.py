"""`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.formats import PriceFormat
from chipcost.cli.options import (
    CurrencyOption,
    DbOption,
    LimitOption,
    ListPricesOption,
    OldModelOption,
    PriceFormatOption,
    PricingModelOption,
    WideOption,
)

ChipFilter = Annotated[
    list[str] | None,
    typer.Option(
        "--chip",
        help="Chip or family: H100-SXM, H100 (SXM, PCIe, NVL), A100, Trainium, Hopper. "
        "Repeat it or give a comma list.",
    ),
]


def prices(
    chip: ChipFilter = None,
    region: Annotated[
        list[str] | None, typer.Option(help="Region code, e.g. us-east-1 (repeat or comma list).")
    ] = None,
    pricing_model: PricingModelOption = None,
    model: OldModelOption = None,
    provider: Annotated[
        list[str] | None, typer.Option(help="Provider, e.g. aws, runpod (repeat or comma list).")
    ] = None,
    min_memory: Annotated[
        float | None, typer.Option("--min-memory", help="At least this much memory per chip, GB.")
    ] = None,
    chips: Annotated[
        list[str] | None, typer.Option("--chips", help="Chips per instance: 8 (or 1,8).")
    ] = None,
    min_price: Annotated[
        float | None, typer.Option("--min-price", help="At least this many USD per chip-hour.")
    ] = None,
    max_price: Annotated[
        float | None, typer.Option("--max-price", help="At most this many USD per chip-hour.")
    ] = None,
    spot: Annotated[
        bool | None,
        typer.Option("--spot/--no-spot", help="Only spot prices, or none of them (default: all)."),
    ] = None,
    sort: Annotated[
        str | None,
        typer.Option(
            "--sort",
            help="Order by price, chip, provider or region (default: price for a family such "
            "as H100, else chip).",
        ),
    ] = None,
    currency: CurrencyOption = None,
    list_prices: ListPricesOption = False,
    limit: LimitOption = None,
    wide: WideOption = False,
    format: PriceFormatOption = PriceFormat.table,
    db: DbOption = None,
) -> None:
    """Current per-chip hourly prices, cheapest first per chip, pricing model and term."""
    from chipcost.cli import reads

    reads.prices(
        chip=chip,
        region=region,
        pricing_model=pricing_model,
        model=model,
        provider=provider,
        min_memory=min_memory,
        chips=chips,
        min_price=min_price,
        max_price=max_price,
        spot=spot,
        sort=sort,
        currency=currency,
        list_prices=list_prices,
        limit=limit,
        wide=wide,
        format=format,
        db=db,
    )
