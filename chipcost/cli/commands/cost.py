"""`chipcost cost`: which chip and pricing model is cheapest per token for a model and workload."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import (
    CurrencyOption,
    DbOption,
    FormatOption,
    LimitOption,
    ListPricesOption,
    SpeedOption,
    WideOption,
)
from chipcost.cli.reads import DEFAULT_BASELINE
from chipcost.core.vocabulary import models_help


def cost(
    model: Annotated[str, typer.Option(help="Model, e.g. llama-3-70b (see `throughput list`).")],
    workload: Annotated[str, typer.Option(help="training or inference.")],
    chip: Annotated[
        list[str] | None,
        typer.Option(help="Only this chip or family: H200, H100, Trainium (repeat or comma list)."),
    ] = None,
    tokens: Annotated[
        str | None, typer.Option(help="Cost of processing this many tokens: 300e9 or 300B.")
    ] = None,
    baseline: Annotated[
        str, typer.Option(help="Chip the savings and break-even compare with.")
    ] = DEFAULT_BASELINE,
    overhead: Annotated[
        float | None,
        typer.Option(help="Extra share of chip-hours (default 0.15 training, 0 inference)."),
    ] = None,
    migration_cost: Annotated[
        str | None, typer.Option(help="One-off cost of moving off the baseline, USD: 36000.")
    ] = None,
    daily_tokens: Annotated[
        str | None, typer.Option(help="Tokens per day, for break-even in days: 1e9 or 1B.")
    ] = None,
    speed: SpeedOption = None,
    region: Annotated[list[str] | None, typer.Option(help="Only this region.")] = None,
    pricing_model: Annotated[
        list[str] | None, typer.Option(help=f"Only this pricing model: {models_help()}.")
    ] = None,
    provider: Annotated[list[str] | None, typer.Option(help="Only this provider.")] = None,
    all_offers: Annotated[
        bool,
        typer.Option(
            "--all-offers", help="Every offer, not the cheapest per chip, pricing model and term."
        ),
    ] = False,
    max_instances: Annotated[
        int | None,
        typer.Option(
            min=1, help="Drop offers needing more than this many instances to hold the model."
        ),
    ] = None,
    max_interruption: Annotated[
        str | None,
        typer.Option(
            "--max-interruption",
            help="Spot offers only where AWS's frequency of interruption bucket (Spot Instance "
            "Advisor) tops out at this percent or less, e.g. 10%; other spot left out.",
        ),
    ] = None,
    currency: CurrencyOption = None,
    list_prices: ListPricesOption = False,
    limit: LimitOption = None,
    wide: WideOption = False,
    format: FormatOption = OutputFormat.table,
    db: DbOption = None,
) -> None:
    """Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first."""
    from chipcost.cli import reads

    reads.cost(
        model=model,
        workload=workload,
        chip=chip,
        tokens=tokens,
        baseline=baseline,
        overhead=overhead,
        migration_cost=migration_cost,
        daily_tokens=daily_tokens,
        speed=speed,
        region=region,
        pricing_model=pricing_model,
        provider=provider,
        all_offers=all_offers,
        max_instances=max_instances,
        max_interruption=max_interruption,
        currency=currency,
        list_prices=list_prices,
        limit=limit,
        wide=wide,
        format=format,
        db=db,
    )
