"""Daytona's public GPU rate card: per-GPU on-demand and spot prices of its GPU sandboxes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _http
from chipcost.extract._offers import (
    ChipNames,
    json_price,
    listed_rows,
    load_json,
    reject,
)
from chipcost.extract._scrape import require_offers
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "daytona"
PROVIDER = "daytona"
# The rate card Daytona's billing serves for anyone (no key): GPU rates per GPU, and the
# vCPU, memory and disk rates billed beside them.
PRICING_URL = "https://billing.app.daytona.io/gpu-pricing"
FIELDS = ("type", "onDemandPricePerHour")
PRICES = (("onDemandPricePerHour", "on_demand", "onDemand"), ("spotPricePerHour", "spot", "spot"))
# Memory per GPU of Daytona's GPU types (gpuhunt's map of them): the card names alone do not
# say which H100 it is, and 80 GB is what the catalog reads as the SXM part.
MEMORY_GB = {"B300": 270, "B200": 180, "H200": 141, "H100": 80, "MI355X": 288,
             "RTX-PRO-6000": 96, "RTX-5090": 32, "RTX-4090": 24}  # fmt: skip
# GPU capacity is pooled across Daytona's fleet; a sandbox cannot pick a region.
REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The rate card, archived as it arrives."""
    with _http.http_client(PROVIDER, ctx) as client:
        payload = _http.get(ctx, client, PRICING_URL, ext="json")
    ctx.progress("gpu-pricing")
    return [payload]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU type and pricing model, per GPU-hour; pure."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    for payload in payloads:
        body = load_json(payload, PROVIDER)
        page = ParseResult()
        for gpu in listed_rows(payload, PROVIDER, "gpus", FIELDS, body=body):
            page.extend(_gpu_offers(gpu, body, payload, chips))
        require_offers(page, payload, PROVIDER)
        result.extend(page)
    result.notes.extend(chips.notes())
    return result


def _gpu_offers(gpu: Any, body: dict, payload: Payload, chips: ChipNames) -> ParseResult:
    result = ParseResult()
    name = str(gpu.get("type") or "").strip() if isinstance(gpu, dict) else ""
    if not name:
        why = f"GPU entry {gpu!r:.60} has no type"
        return ParseResult(rejects=[reject(SOURCE_NAME, why, gpu, payload)])
    chip = chips.chip(name, MEMORY_GB.get(name.upper()))
    resources = body.get("resources") if isinstance(body.get("resources"), dict) else {}
    for field, model, rates in PRICES:
        if model == "spot" and gpu.get(field) in (None, 0):
            continue  # this GPU is not sold on spot
        price, why = json_price(gpu.get(field), f"{name} {field}")
        if price is None:
            result.rejects.append(reject(SOURCE_NAME, why, gpu, payload, name))
            continue
        extra = {
            "price_basis": "per GPU-hour; vCPU, memory and disk are billed separately",
            "resource_rates": resources.get(rates),
            "generated_at": body.get("generatedAt"),
        }
        result.records.append(_record(payload, name, chip, model, price, body, extra))
    return result


def _record(
    payload: Payload, name: str, chip: str, model: str, price: float, body: dict, extra: dict
) -> PriceRecord:
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=REGION,
        instance_type=f"1x {name}",
        chip=chip,
        chip_count=1.0,
        pricing_model=model,
        price_per_hour=price,
        currency=str(body.get("currency") or "USD").upper(),
        sku=name,
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={k: v for k, v in extra.items() if v is not None},
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Daytona public GPU rate card: per-GPU on-demand and spot prices of GPU sandboxes "
        "(vCPU, memory and disk billed separately)"
    ),
    fetch=fetch,
    parse=parse,
)
