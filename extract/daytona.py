"""Daytona's public GPU rate card: per-GPU on-demand and spot prices of its GPU sandboxes."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import json_price, listed_rows, missing_fields
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source

SOURCE_NAME = "daytona"
PROVIDER = "daytona"
# The rate card Daytona's billing serves for anyone (no key): GPU rates per GPU, and the
# vCPU, memory and disk rates billed beside them.
PRICING_URL = "https://billing.app.daytona.io/gpu-pricing"
FORMAT = Format(
    "GPU pricing",
    "/gpu-pricing",
    (
        Rows(
            "gpus[]",
            {
                "type": "string",
                "onDemandPricePerHour": "number",
                "spotPricePerHour": "number",
                "onDemandPricePerSecond": "number",
                "spotPricePerSecond": "number",
            },
            required=("type", "onDemandPricePerHour"),
            prices=(
                "onDemandPricePerHour",
                "spotPricePerHour",
                "onDemandPricePerSecond",
                "spotPricePerSecond",
            ),
        ),
    ),
)
FIELDS = FORMAT.required("gpus[]")
PRICES = (("onDemandPricePerHour", "on_demand", "onDemand"), ("spotPricePerHour", "spot", "spot"))
# GPU capacity is pooled across Daytona's fleet; a sandbox cannot pick a region.
REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The rate card, archived as it arrives."""
    with _http.http_client(PROVIDER, ctx) as client:
        payload = _http.get(ctx, client, PRICING_URL, ext="json")
    ctx.progress("gpu-pricing")
    return [payload]


def rows(page: Page) -> list[Any]:
    """The GPU types of the rate card, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "gpus", FIELDS, body=page.json())


def offers(gpu: Any, page: Page) -> list[Item]:
    """One record per pricing model of a GPU type, per GPU-hour; pure."""
    name = str(gpu.get("type") or "").strip() if isinstance(gpu, dict) else ""
    if not name:
        return [page.reject(f"GPU entry {gpu!r:.60} has no type", gpu)]
    body = page.json()
    missing = missing_fields(body, ("currency",))  # the page states it once, for every GPU
    if missing:
        return [page.reject(f"the price list {missing}", gpu, name)]
    card = page.offer(
        region=REGION,
        instance_type=f"1x {name}",
        chip=page.chip(name),
        chip_count=1.0,
        currency=str(body["currency"]).upper(),
        sku=name,
    )
    resources = body.get("resources") if isinstance(body.get("resources"), dict) else {}
    made: list[Item] = []
    for field, model, rates in PRICES:
        if model == "spot" and gpu.get(field) in (None, 0):
            continue  # this GPU is not sold on spot
        price, why = json_price(gpu.get(field), f"{name} {field}")
        if price is None:  # null: a copy of the GPU pricing it refuses both
            unpriced = {**card.shared, "pricing_model": model}
            made.append(page.no_price(why, gpu, gpu.get(field), name, unpriced=unpriced))
            continue
        extra = {
            "price_basis": "per GPU-hour; vCPU, memory and disk are billed separately",
            "resource_rates": resources.get(rates),
            "generated_at": body.get("generatedAt"),
            **estimate_of(gpu),
        }
        kept = {k: v for k, v in extra.items() if v is not None}
        made.append(card.record(pricing_model=model, price_per_hour=price, extra=kept))
    return made


SOURCE = Source(
    formats=(FORMAT,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Daytona public GPU rate card: per-GPU on-demand and spot prices of GPU sandboxes "
        "(vCPU, memory and disk billed separately)"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Daytona",
    checked=Checked(
        asks="the GPU rate card",
        against=(
            "**mock**, probably captured (it carries the server's `generatedAt`): gpuhunt's rate "
            "card"
        ),
        rest="searched 2026-11-26, no recording found",
    ),
)
parse = SOURCE.parse
