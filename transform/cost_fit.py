"""Whether the model fits each offer's instance, and the ranking that puts those that fit first.

Offers are rows (column -> value) as the warehouse returns them: a ranking is a few hundred
rows, and `chipcost cost` answers without importing polars.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from operator import itemgetter

from chipcost.transform.cost import memory_needed_gb
from chipcost.transform.rows import CostRow

# One row per chip, pricing model and term unless every offer is asked for: the cheapest
# offer stands for the others (its provider, region, payment and plan are shown).
GROUP = ("chip", "pricing_model", "term")
# Offers alike in all a choice reads but the price: the group's, the provider (a baseline is
# compared on its own provider) and the chips per instance (whether it holds the model). Of
# these only the cheapest can be chosen or be a baseline, so a ranking reads those alone.
ALIKE = (*GROUP, "provider", "chip_count")
_group = itemgetter(*GROUP)
# Offers that differ only in size: same price per token, chip, place and pricing model.
_SAME_OFFER: tuple[str, ...] = ("usd_per_million_tokens", "chip", "provider", "region", "zone")
_SAME_OFFER += ("pricing_model", "term", "payment", "plan")


def with_fit(offers: Iterable[CostRow], parameters: float | None, workload: str) -> list[CostRow]:
    """The offers, each given memory_needed_gb, instance_memory_gb (chips x memory per chip),
    fits (None when either is unknown) and instances_needed (how many such instances hold
    it), a TPU slice or an UltraServer counting as one instance of all its chips. The rows are
    the caller's, completed in place (a ranking reads thousands); among the sizes of one offer
    the smallest that holds the model comes first (smallest_that_holds)."""
    needed_for: dict[str | None, float | None] = {}  # by precision: a few for thousands of rows
    fitted = list(offers)
    for offer in fitted:
        precision = offer["precision"]
        if precision not in needed_for:
            needed_for[precision] = (
                None
                if parameters is None
                else memory_needed_gb(parameters, workload, str(precision))
            )
        needed = needed_for[precision]
        chip_memory, count = offer["chip_memory_gb"], offer["chip_count"]
        instance = None if chip_memory is None or count is None else chip_memory * count
        fits: bool | None = None
        instances: int | None = None
        if needed is not None and instance is not None:
            fits = needed <= instance
            instances = math.ceil(needed / instance) if instance else None
        offer["memory_needed_gb"] = needed
        offer["instance_memory_gb"] = instance
        offer["fits"] = fits
        offer["instances_needed"] = instances
    return smallest_that_holds(fitted)


def smallest_that_holds(rows: list[CostRow]) -> list[CostRow]:
    """The rows in their order, except within each run of one offer in several sizes (equal
    in _SAME_OFFER): those that hold the model first, smallest first, then those that do not,
    largest first (the fewest needed). Rows whose fit is unknown keep their order."""
    ordered: list[CostRow] = []
    run: list[CostRow] = []
    for row in rows:
        if run and _offer(row) != _offer(run[0]):
            ordered += sorted(run, key=_size)
            run = []
        run.append(row)
    return ordered + sorted(run, key=_size)


def _offer(row: CostRow) -> tuple[object, ...]:
    return tuple(row.get(key) for key in _SAME_OFFER)


def _size(row: CostRow) -> tuple[int, float]:
    memory = row.get("instance_memory_gb")
    if row.get("fits") is None or not isinstance(memory, int | float):
        return 1, 0.0
    return (0, float(memory)) if row["fits"] else (1, -float(memory))


def _cannot_fit(row: CostRow) -> bool:
    return row.get("fits") is False


def _last(row: CostRow) -> tuple[bool, bool]:
    """Rows whose figure is not at the asked speed go after those that are, then those that
    cannot hold the model after those that can."""
    return row.get("throughput_at_speed") is False, _cannot_fit(row)


def held_first(offers: Sequence[CostRow]) -> CostRow:
    """Of one chip's offers on one pricing model and term, in the ranking's order, the one
    `choose` keeps: the first at the asked speed that holds the model, else the first at the
    speed, else the first (training's offers too, though its ranking orders them by cost
    alone: `compare` answers with the offer `cost` shows)."""
    return min(offers, key=_last)


def choose(
    rows: Sequence[CostRow],
    *,
    chips: list[str] | None,
    all_offers: bool,
    unfit_last: bool = True,
    max_instances: int | None = None,
) -> list[CostRow]:
    """The ranking's offers: every one, or per chip, pricing model and term the cheapest that
    holds the model (the cheapest of all when none does); those at the asked speed first,
    then, with `unfit_last` (inference: one instance serves the model), those that fit before
    those that do not. Training spreads over instances anyway: its rows are ranked by cost
    alone, `instances_needed` beside them. `max_instances` drops the offers needing more.

    `rows` are in the warehouse's ORDER (cost_rows returns them so): the sorts are stable, so
    within each part the order stays cheapest first, empty values first."""
    if chips:
        rows = [r for r in rows if r["chip"] in chips]
    if max_instances is not None:
        rows = [r for r in rows if (r.get("instances_needed") or 1) <= max_instances]
    ranked = sorted(rows, key=_last)
    if not all_offers:
        first: dict[tuple, CostRow] = {}
        for row in ranked:
            first.setdefault(_group(row), row)
        ranked = list(first.values())
    if not unfit_last:
        order = {id(row): n for n, row in enumerate(rows)}  # the warehouse's: cheapest first
        ranked.sort(key=lambda row: (row.get("throughput_at_speed") is False, order[id(row)]))
    return ranked


def reordered(rows: list[CostRow], *, unfit_last: bool = True) -> list[CostRow]:
    """`rows` in the ranking's order again after some were costed at another figure (a
    verdict's, chipcost.transform.verdict.with_verdicts): the parts `choose` makes, each
    cheapest first (stable: ties keep their order)."""

    def key(row: CostRow) -> tuple:
        part = _last(row) if unfit_last else (row.get("throughput_at_speed") is False,)
        return (*part, row["usd_per_million_tokens"])

    return sorted(rows, key=key)


def baseline_costs(rows: Sequence[CostRow], chip: str) -> dict[tuple[str, str], dict[str, float]]:
    """The baseline chip's cost per million tokens per (pricing_model, term) and provider: on
    each provider, its cheapest offer that holds the model, or its cheapest when none does (the
    same choice as the ranking's). A row is compared on its own provider where that provider
    offers the baseline, else against the cheapest of these (`compared_with`)."""
    mine = [r for r in rows if r["chip"] == chip and r.get("throughput_at_speed") is not False]
    found: dict[tuple[str, str], dict[str, float]] = {}
    for provider in sorted({r["provider"] for r in mine}):
        chosen = choose(
            [r for r in mine if r["provider"] == provider], chips=None, all_offers=False
        )
        for r in chosen:
            key = (r["pricing_model"], r["term"])
            found.setdefault(key, {}).setdefault(provider, r["usd_per_million_tokens"])
    return found


def compared_with(options: dict[str, float], provider: str) -> tuple[str, float, bool]:
    """(the baseline's provider, its cost per million, whether it is the row's own provider)."""
    if provider in options:
        return provider, options[provider], True
    cheapest = min(options, key=lambda p: (options[p], p))
    return cheapest, options[cheapest], False
