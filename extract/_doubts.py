"""Rows loaded but marked as doubtful, whatever their source: a spot price not below on demand
(Azure's uksouth ND96isr H200 v5 Spot at 106.0, the on-demand rate), and a price in a region
most buyers cannot rent in (a government, China or sovereign cloud: core/vocabulary.py's
RESTRICTED_REGIONS). Each record says why in its `extra`, the parse's notes count them, and the
reads keep restricted regions out of the index and the cheapest answers unless asked."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace

from chipcost.core.record import ParseResult, PriceRecord
from chipcost.core.vocabulary import restricted_region

# The `extra` keys of the two marks.
SPOT_NOT_BELOW = "spot_not_below_on_demand"
RESTRICTED = "restricted_region"


def mark_doubts(result: ParseResult) -> ParseResult:
    """`result` with its doubtful records marked (in place, and returned) and a note each."""
    on_demand = _on_demand_prices(result.records)
    counts: Counter[str] = Counter()
    for index, record in enumerate(result.records):
        marks: dict[str, str] = {}
        where = restricted_region(record.region)
        if where:
            marks[RESTRICTED] = where
        if record.pricing_model == "spot":
            doubt = _spot_doubt(record, on_demand)
            if doubt:
                marks[SPOT_NOT_BELOW] = doubt
        if marks:
            counts.update(marks.keys())
            result.records[index] = replace(record, extra={**record.extra, **marks})
    if counts[SPOT_NOT_BELOW]:
        result.notes.append(
            f"{counts[SPOT_NOT_BELOW]} spot price(s) not below on demand: loaded, marked "
            f"({SPOT_NOT_BELOW} in extra)"
        )
    if counts[RESTRICTED]:
        result.notes.append(
            f"{counts[RESTRICTED]} price(s) in government, China or sovereign regions: loaded, "
            "marked, out of the index and the cheapest answers unless a read asks for their region"
        )
    return result


_Key = tuple[str, str, str, str]


def _on_demand_prices(records: list[PriceRecord]) -> dict[_Key, list[float]]:
    """The on-demand prices per instance-hour by (currency, instance type, region, plan), the
    region '' holding every region's: one instance type holds one count of chips, so its spot
    and on-demand prices compare as they stand."""
    prices: dict[_Key, list[float]] = defaultdict(list)
    for r in records:
        if r.pricing_model == "on_demand" and r.chip_count > 0:
            for place, plan in ((r.region, r.plan), (r.region, ""), ("", "")):
                prices[(r.currency, r.instance_type, place, plan)].append(r.price_per_hour)
    return prices


def _spot_doubt(record: PriceRecord, on_demand: dict[_Key, list[float]]) -> str:
    """Why a spot price is doubtful: not below the same offer's on-demand price in its region
    (of its plan where one is listed), or, where its region lists none, not below the lowest
    on-demand price of the same instance type elsewhere; '' when it is below, or nothing to
    compare with."""
    key = (record.currency, record.instance_type)
    for place, plan, said in (
        (record.region, record.plan, f"in {record.region}"),
        (record.region, "", f"in {record.region}"),
        ("", "", "elsewhere, its region listing none"),
    ):
        prices = on_demand.get((*key, place, plan))
        if prices:
            lowest = min(prices)
            if record.price_per_hour < lowest:
                return ""
            return (
                f"spot {record.price_per_hour:g} {record.currency}/h is not below on demand "
                f"{said} ({lowest:g}): no discount, a stale or mislabelled price"
            )
    return ""
