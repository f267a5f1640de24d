"""`chipcost cost`: which chip and pricing model is cheapest per token for a model and workload."""

from __future__ import annotations

import difflib
from typing import Annotated

import typer

from chipcost.cli.options import DbOption, out
from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip, canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.core.figures import WORKLOADS
from chipcost.core.settings import load_settings
from chipcost.transform.cost import DEFAULT_OVERHEAD, CostQuestion
from chipcost.transform.throughput_figures import normalise_model
from chipcost.transform.tokens import parse_quantity

DEFAULT_BASELINE = "H100-SXM"
MAX_ROWS = 1_000_000  # more than any ranking has; a larger --limit is a typo


def resolve_chip(spelling: str) -> str:
    """A canonical chip name for what the user typed, or a message naming the close ones."""
    chip = canonical_chip(spelling)
    if chip != UNKNOWN_CHIP:
        return chip
    names = sorted(canonical_chips() - {UNKNOWN_CHIP})
    close = difflib.get_close_matches(spelling, names, n=3, cutoff=0.4)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise ChipcostError(f"unknown chip {spelling!r}{hint}; known: {', '.join(names)}")


def resolve_model(con, name: str) -> str:
    """The model as stored, or a message saying how to give chipcost what it lacks."""
    from chipcost.warehouse.cost_per_token import known_models

    model = normalise_model(name)
    known = known_models(con)
    if model in known:
        return model
    close = difflib.get_close_matches(model, known, n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise ChipcostError(
        f"no throughput for model {model!r}{hint}: it has no reference figure, no measurement "
        "and no parameter count to derive one from. Record a measurement with `chipcost "
        f"throughput add --model {model} ...`, or its size with `chipcost throughput model "
        f"{model} --parameters 13e9`. Known models: {', '.join(known) or 'none'}"
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
    chip: Annotated[list[str] | None, typer.Option(help="Only this chip (repeatable).")] = None,
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
    limit: Annotated[
        int, typer.Option(help="Show at most this many rows.", min=1, max=MAX_ROWS)
    ] = 200,
    db: DbOption = None,
) -> None:
    """Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first."""
    from chipcost.cli.render_cost import print_ranking
    from chipcost.pipeline.cost import Ask, rank_cost
    from chipcost.warehouse.db import connect

    workload = workload.strip().lower()
    if workload not in WORKLOADS:
        raise ChipcostError(f"--workload {workload!r}: use training or inference")
    question = _question(workload, tokens, overhead, migration_cost, daily_tokens)
    chips = [resolve_chip(c) for c in chip or []]
    base = resolve_chip(baseline)
    con = connect(load_settings(db=db).db_path, read_only=True)
    try:
        ask = Ask(
            model=resolve_model(con, model),
            workload=workload,
            chips=chips,
            baseline=base,
            baseline_given=baseline != DEFAULT_BASELINE,
            filters={"regions": region, "pricing_models": pricing_model, "providers": provider},
            all_offers=all_offers,
            limit=limit,
        )
        print_ranking(out, rank_cost(con, ask, question))
    finally:
        con.close()
