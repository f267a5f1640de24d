"""`chipcost compare A B`: is chip A cheaper per token than chip B, on each pricing model."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import (
    CurrencyOption,
    DbOption,
    FormatOption,
    ListPricesOption,
    SpeedOption,
)
from chipcost.core.vocabulary import models_help


def compare(
    chip_a: Annotated[str, typer.Argument(help="The chip asked about, e.g. Trainium2.")],
    chip_b: Annotated[str, typer.Argument(help="The chip it is compared with, e.g. H100-SXM.")],
    model: Annotated[str, typer.Option(help="Model, e.g. llama-3-70b (see `throughput list`).")],
    workload: Annotated[str, typer.Option(help="training or inference.")],
    speed: SpeedOption = None,
    region: Annotated[list[str] | None, typer.Option(help="Only this region.")] = None,
    pricing_model: Annotated[
        list[str] | None, typer.Option(help=f"Only this pricing model: {models_help()}.")
    ] = None,
    provider: Annotated[list[str] | None, typer.Option(help="Only this provider.")] = None,
    currency: CurrencyOption = None,
    list_prices: ListPricesOption = False,
    format: FormatOption = OutputFormat.table,
    db: DbOption = None,
) -> None:
    """Is chip A cheaper per token than chip B? Per pricing model, with the figures used.

    Both prices, both throughput figures (with their sources and operating points) and the
    range the figures chipcost holds allow."""
    from chipcost.cli import reads

    reads.compare(
        chip_a=chip_a,
        chip_b=chip_b,
        model=model,
        workload=workload,
        speed=speed,
        region=region,
        pricing_model=pricing_model,
        provider=provider,
        currency=currency,
        list_prices=list_prices,
        format=format,
        db=db,
    )
