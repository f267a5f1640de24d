"""`chipcost cost`: which chip and pricing model is cheapest per token for a model and workload."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.formats import FormatOption, OutputFormat
from chipcost.cli.options import (
    DEFAULT_TABLE_ROWS,
    MAX_LIMIT,
    DbOption,
    LimitOption,
    WideOption,
    out,
)
from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip, canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.core.figures import WORKLOADS
from chipcost.core.settings import load_settings
from chipcost.transform.cost import DEFAULT_OVERHEAD, CostQuestion
from chipcost.transform.tokens import parse_quantity

DEFAULT_BASELINE = "H100-SXM"


def resolve_chip(spelling: str) -> str:
    """A canonical chip name for what the user typed, or a message naming the close ones."""
    from chipcost.core.names import did_you_mean

    chip = canonical_chip(spelling)
    if chip != UNKNOWN_CHIP:
        return chip
    names = sorted(canonical_chips() - {UNKNOWN_CHIP})
    raise ChipcostError(
        f"unknown chip {spelling!r}{did_you_mean(spelling, names)}; known: {', '.join(names)}"
    )


def _question(workload, tokens, overhead, migration_cost, daily_tokens) -> CostQuestion:
    if daily_tokens is not None and migration_cost is None:
        raise ChipcostError("--daily-tokens is used for break-even: give --migration-cost too")
    if overhead is not None and not 0 <= overhead <= 10:
        raise ChipcostError(f"--overhead is a fraction, e.g. 0.15 for 15% (got {overhead:g})")
    migration = None
    if migration_cost is not None:
        migration = parse_quantity(migration_cost, "--migration-cost")
    return CostQuestion(
        tokens=parse_quantity(tokens, "--tokens") if tokens is not None else None,
        overhead=DEFAULT_OVERHEAD[workload] if overhead is None else overhead,
        migration_cost=migration,
        daily_tokens=parse_quantity(daily_tokens, "--daily-tokens") if daily_tokens else None,
    )


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
    region: Annotated[list[str] | None, typer.Option(help="Only this region.")] = None,
    pricing_model: Annotated[
        list[str] | None, typer.Option(help="Only this pricing model: on_demand, spot, ...")
    ] = None,
    provider: Annotated[list[str] | None, typer.Option(help="Only this provider.")] = None,
    all_offers: Annotated[
        bool, typer.Option(help="Every offer, not the cheapest per chip, pricing model and term.")
    ] = False,
    limit: LimitOption = None,
    wide: WideOption = False,
    format: FormatOption = OutputFormat.table,
    db: DbOption = None,
) -> None:
    """Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first."""
    from chipcost.cli.formats import notices, write_frame
    from chipcost.cli.render_cost import print_ranking
    from chipcost.cli.render_fresh import print_freshness
    from chipcost.pipeline.cost import Ask, rank_cost, resolve_chips, resolve_model
    from chipcost.pipeline.prices import checked_filters
    from chipcost.warehouse.db import connect

    workload = workload.strip().lower()
    if workload not in WORKLOADS:
        raise ChipcostError(f"--workload {workload!r}: use training or inference")
    question = _question(workload, tokens, overhead, migration_cost, daily_tokens)
    base = resolve_chip(baseline)
    settings = load_settings(db=db)
    con = connect(settings.db_path, read_only=True)
    try:
        name = resolve_model(con, model)
        ask = Ask(
            model=name,
            workload=workload,
            chips=resolve_chips(con, chip, name, workload),
            baseline=base,
            baseline_given=baseline != DEFAULT_BASELINE,
            filters=checked_filters(con, region, pricing_model, provider),
            all_offers=all_offers,
            limit=limit or (MAX_LIMIT if format is not OutputFormat.table else DEFAULT_TABLE_ROWS),
            stale_days=settings.stale_days,
        )
        ranking = rank_cost(con, ask, question)
    finally:
        con.close()
    if format is OutputFormat.table:
        print_ranking(out, ranking, wide=wide)
        return
    write_frame(format, ranking.frame())
    print_freshness(notices(format), ranking.freshness)
