"""CloudRift's public instance-type list: GPU VM variants priced per instance, per datacenter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _http
from chipcost.extract._offers import (
    ChipNames,
    field_names,
    json_price,
    load_json,
    reject,
    shape_error,
)
from chipcost.extract._scrape import parse_count, require_columns
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "cloudrift"
PROVIDER = "cloudrift"
# Answers without a key; the API versions its request format by date.
LIST_URL = "https://api.cloudrift.ai/api/v1/instance-types/list"
API_VERSION = "2025-03-21"
REQUEST = {
    "version": API_VERSION,
    "data": {"selector": {"ByServiceAndLocation": {"services": ["vm"]}}},
}
VARIANT_FIELDS = ("name", "cost_per_hour", "gpu_count", "nodes_per_dc")
GIB = 1024**3


def fetch(ctx: FetchContext) -> list[Payload]:
    """One POST for every VM instance type, archived as it arrives (with the request body)."""
    with _http.http_client(PROVIDER, ctx) as client:
        payload = _http.get(ctx, client, LIST_URL, method="POST", json=REQUEST, ext="json")
    ctx.progress("instance-types/list")
    return [payload]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU variant and datacenter, per instance-hour; pure."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    for payload in payloads:
        for kind in _instance_types(payload):
            result.extend(_type_offers(kind, payload, chips))
    result.notes.extend(chips.notes())
    return result


def _instance_types(payload: Payload) -> list[Any]:
    body = load_json(payload, PROVIDER)
    if isinstance(body, str):
        raise ParseError(
            f"{PROVIDER}: {payload.url} ({payload.ref or payload.name}) answered {body[:160]!r} "
            f"instead of instance types: the request format (version {API_VERSION}) may have "
            "changed; report it with the archived run"
        )
    data = body.get("data") if isinstance(body, dict) else None
    types = data.get("instance_types") if isinstance(data, dict) else None
    if not isinstance(types, list):
        raise shape_error(PROVIDER, payload, "data.instance_types list", data or body)
    variants = [v for t in types if isinstance(t, dict) for v in t.get("variants") or []]
    if variants:
        require_columns(field_names(variants), VARIANT_FIELDS, payload, PROVIDER)
    return types


def _type_offers(kind: Any, payload: Payload, chips: ChipNames) -> ParseResult:
    result = ParseResult()
    brand = str(kind.get("brand_short") or "").strip() if isinstance(kind, dict) else ""
    variants = kind.get("variants") if isinstance(kind, dict) else None
    if not brand or not isinstance(variants, list):
        why = f"instance type {kind!r:.80} has no brand_short or variants list"
        return ParseResult(rejects=[reject(SOURCE_NAME, why, kind, payload)])
    for variant in variants:
        result.extend(_variant_offers(brand, variant, payload, chips))
    return result


def _variant_offers(brand: str, variant: Any, payload: Payload, chips: ChipNames) -> ParseResult:
    name = str(variant.get("name", "")) if isinstance(variant, dict) else ""
    if not isinstance(variant, dict) or variant.get("gpu_count") in (0, None):
        return ParseResult()  # a CPU-only variant: nothing to price here
    try:
        count = parse_count(variant.get("gpu_count"))
    except ValueError as exc:
        return ParseResult(rejects=[reject(SOURCE_NAME, f"{name}: {exc}", variant, payload, name)])
    cents, why = json_price(variant.get("cost_per_hour"), f"{name} cost_per_hour")
    if cents is None:
        return ParseResult(rejects=[reject(SOURCE_NAME, why, variant, payload, name)])
    vram = variant.get("vram")
    memory = round(vram / GIB) if isinstance(vram, int | float) and vram > 0 else None
    chip = chips.chip(brand, memory)
    datacenters = variant.get("nodes_per_dc")
    places = sorted(datacenters) if isinstance(datacenters, dict) else []
    extra = {"brand_short": brand, "gpu_memory_gb": memory, "price_field": "cost_per_hour / 100"}
    records = [
        _record(payload, name, dc, chip, count, cents / 100, extra | {"nodes": datacenters[dc]})
        for dc in places
    ]
    return ParseResult(records=records)


def _record(
    payload: Payload, name: str, region: str, chip: str, count: int, price: float, extra: dict
) -> PriceRecord:
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=region,
        instance_type=name,
        chip=chip,
        chip_count=float(count),
        pricing_model="on_demand",
        price_per_hour=round(price, 6),
        sku=name,
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={"price_basis": "per instance-hour", **extra},
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "CloudRift public instance-type list: GPU VM variants on demand, per instance and "
        "datacenter"
    ),
    fetch=fetch,
    parse=parse,
)
