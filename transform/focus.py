"""Prices under the FinOps Open Cost and Usage Specification's names (FOCUS); pure.

A chipcost price row becomes one FOCUS row per offer: the list price per instance-hour in
ListUnitPrice with PricingUnit "Hours", the per-chip price beside it in a custom column, the
pricing model as PricingCategory, what the price is of (instance type, GPUs, term, payment)
in SkuPriceDetails, the price's validity as the SKU Price dataset's effective start and
end, and what the price is: an estimate (no price the provider publishes) and what it rests
on, whether it is the bundled sample's, a doubtful spot price (not below its offer's
on-demand price) and a price of the GPU alone (the host billed beside it). Column IDs and
allowed values are the specification's (core/data/focus_columns.csv says where each was read);
custom columns and properties start with "x_", as it requires.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from chipcost.core.vocabulary import PRICING_MODEL_TABLE, gpu_alone

if TYPE_CHECKING:
    import polars as pl

# The pricing model as FOCUS's PricingCategory and CommitmentDiscountCategory: declared with
# the pricing models (core/vocabulary.py).
PRICING_CATEGORY = {m.code: m.focus for m in PRICING_MODEL_TABLE}
COMMITMENT_CATEGORY = {m.code: m.focus_commitment for m in PRICING_MODEL_TABLE}
FOCUS_COLUMNS = (
    "ServiceProviderName",
    "ServiceCategory",
    "RegionId",
    "AvailabilityZone",
    "SkuId",
    "SkuPriceId",
    "PricingCategory",
    "CommitmentDiscountCategory",
    "PricingUnit",
    "PricingCurrency",
    "ListUnitPrice",
    "ContractedUnitPrice",
    "SkuPriceDetails",
    "SkuPriceEffectiveStart",
    "SkuPriceEffectiveEnd",
    "x_Chip",
    "x_ListUnitPricePerChipHour",
    "x_UpfrontCost",
    "x_Source",
    "x_PayloadRef",
    "x_Estimate",
    "x_EstimateBasis",
    "x_Sample",
    "x_StatedCurrency",
    # after the columns before them, which keep their places
    "x_SpotDoubt",
    "x_GpuAlone",
)


def focus_rows(rows: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """The rows (a price read's: provider, region, ..., price_per_hour, valid_from) as FOCUS
    rows, in FOCUS_COLUMNS order. ContractedUnitPrice is the price after your discounts,
    where a discount applied (a negotiated discount, in FOCUS's words), else the list price;
    with a currency other than USD both are in it, and PricingCurrency says so."""
    alone: dict[tuple[object, object], bool] = {}  # per offer: an export has many days of it
    made = []
    for row in rows:
        offer = (row.get("source"), row.get("instance_type"))
        if offer not in alone:
            alone[offer] = gpu_alone(*offer)
        made.append(_row(row, alone[offer]))
    return made


def _row(row: Mapping[str, object], alone: bool) -> dict[str, object]:
    model = str(row["pricing_model"])
    chips = row.get("chip_count")
    per_hour = row.get("price_per_hour")
    listed_chip = row.get("list_price_per_chip_hour_usd")
    currency = str(row.get("currency") or "USD")
    discounted = bool(row.get("discount"))
    list_per_hour, list_per_chip = per_hour, row.get("price_per_chip_hour")
    if discounted and listed_chip is not None and chips:  # the list price, in its currency
        list_per_chip = round(float(listed_chip) * float(row.get("usd_rate") or 1.0), 6)
        list_per_hour = round(list_per_chip * float(chips), 6)
    details = {
        "InstanceType": row.get("instance_type"),
        "GpuCount": chips,
        "x_PricingModel": model,
        "x_Term": row.get("term"),
        "x_PaymentOption": row.get("payment"),
        "x_Plan": row.get("plan"),
    }
    key = ":".join(
        str(row.get(k) or "")
        for k in ("provider", "region", "zone", "instance_type", "pricing_model", "term")
    )
    return {
        "ServiceProviderName": row.get("provider"),
        "ServiceCategory": "Compute",
        "RegionId": row.get("region"),
        "AvailabilityZone": row.get("zone") or None,
        "SkuId": row.get("sku") or None,
        "SkuPriceId": f"{key}:{row.get('payment') or ''}:{row.get('plan') or ''}",
        # a price the provider moves with demand (Verda's dynamic on-demand plan) is FOCUS's
        # Dynamic, as spot is: "changes ... based on market conditions"
        "PricingCategory": "Dynamic"
        if row.get("plan") == "dynamic"
        else PRICING_CATEGORY.get(model, "Other"),
        "CommitmentDiscountCategory": COMMITMENT_CATEGORY.get(model),
        "PricingUnit": "Hours",
        "PricingCurrency": currency,
        "ListUnitPrice": list_per_hour,
        "ContractedUnitPrice": per_hour,
        "SkuPriceDetails": json.dumps(details, separators=(",", ":")),
        "SkuPriceEffectiveStart": row.get("valid_from"),
        "SkuPriceEffectiveEnd": row.get("valid_to"),
        "x_Chip": row.get("chip"),
        "x_ListUnitPricePerChipHour": list_per_chip,
        "x_UpfrontCost": row.get("upfront"),
        "x_Source": row.get("source"),
        "x_PayloadRef": row.get("payload_ref"),
        # a read's `estimate` is what the estimate rests on, None for a published price
        "x_Estimate": bool(row.get("estimate")),
        "x_EstimateBasis": row.get("estimate") or None,
        "x_Sample": bool(row.get("sample")),
        # the currency its provider states the price in: not PricingCurrency's, it was
        # converted (a chip's daily cheapest, of several offers, has none)
        "x_StatedCurrency": row.get("stated_currency"),
        # why a spot price is doubtful, not below its offer's on-demand price (the read's
        # `spot_doubt`), None where it is not; whether the price is the GPU's alone, its host
        # billed beside it (core/vocabulary.py gpu_alone: by offer, as `prices` marks it)
        "x_SpotDoubt": row.get("spot_doubt") or None,
        "x_GpuAlone": alone,
    }


FOCUS_TIMES = ("SkuPriceEffectiveStart", "SkuPriceEffectiveEnd")


def focus_frame(rows: Sequence[Mapping[str, object]]) -> pl.DataFrame:
    """focus_rows as a frame of FOCUS_COLUMNS (an empty one keeps the columns)."""
    import polars as pl

    made = focus_rows(rows)
    if not made:
        return pl.DataFrame(schema=list(FOCUS_COLUMNS))
    return pl.DataFrame(made, schema=dict.fromkeys(FOCUS_COLUMNS), infer_schema_length=None)


def focus_text_times(frame: pl.DataFrame) -> pl.DataFrame:
    """The effective times as FOCUS writes date-times in text: ISO 8601 in UTC with a Z."""
    import polars as pl

    return frame.with_columns(
        pl.col(c).dt.convert_time_zone("UTC").dt.strftime("%Y-%m-%dT%H:%M:%SZ")
        for c in FOCUS_TIMES
        if isinstance(frame.schema[c], pl.Datetime)
    )
