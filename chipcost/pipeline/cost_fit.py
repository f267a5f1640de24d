"""Whether the model fits each offer's instance, and the ranking that puts those that fit first.

Offers are rows (column -> value) as the warehouse returns them: a ranking is a few hundred
rows, and `chipcost cost` answers without importing polars.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from chipcost.transform.cost import memory_needed_gb
from chipcost.warehouse.cost_per_token import GROUP

Row = dict[str, object]

# Within a rank, the same order as the warehouse's (cheapest, then a stable tie-break).
ORDER = ("cost_per_million_tokens", "chip", "provider", "region", "zone", "instance_type")
ORDER += ("payment", "plan")


def with_fit(offers: Iterable[Row], parameters: float | None, workload: str) -> list[Row]:
    """The offers with memory_needed_gb, instance_memory_gb (chips x memory per chip), fits
    (None when either is unknown) and instances_needed (how many such instances hold it)."""
    fitted = []
    for offer in offers:
        needed = (
            None
            if parameters is None
            else memory_needed_gb(parameters, workload, str(offer["precision"]))
        )
        chip_memory, count = offer["chip_memory_gb"], offer["chip_count"]
        instance = None if chip_memory is None or count is None else chip_memory * count
        known = needed is not None and instance is not None
        fitted.append(
            {
                **offer,
                "memory_needed_gb": needed,
                "instance_memory_gb": instance,
                "fits": needed <= instance if known else None,
                "instances_needed": math.ceil(needed / instance) if known and instance else None,
            }
        )
    return fitted


def _key(row: Row) -> tuple:
    """Those that can hold the model (or may: unknown) first, each part cheapest first; an
    empty value sorts before any other."""
    return (row["fits"] is False, *(_nulls_first(row[c]) for c in ORDER))


def _nulls_first(value: object) -> tuple[bool, object]:
    return (False, "") if value is None else (True, value)


def _sorted(rows: Iterable[Row]) -> list[Row]:
    return sorted(rows, key=_key)


def choose(rows: Sequence[Row], *, chips: list[str] | None, all_offers: bool) -> list[Row]:
    """The ranking's offers: every one, or per chip, pricing model and term the cheapest that
    holds the model (the cheapest of all when none does); those that fit first."""
    if chips:
        rows = [r for r in rows if r["chip"] in chips]
    ranked = _sorted(rows)
    if not all_offers:
        first: dict[tuple, Row] = {}
        for row in ranked:
            first.setdefault(tuple(row[c] for c in GROUP), row)
        ranked = _sorted(first.values())
    return ranked


def baseline_costs(rows: Sequence[Row], chip: str) -> dict[tuple[str, str], float]:
    """The baseline chip's cost per million tokens per (pricing_model, term): its cheapest offer
    that holds the model, or its cheapest when none does (the same choice as the ranking's)."""
    chosen = choose(rows, chips=[chip], all_offers=False)
    return {(str(r["pricing_model"]), str(r["term"])): r["cost_per_million_tokens"] for r in chosen}
