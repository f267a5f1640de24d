"""JarvisLabs' server metadata (JL_API_KEY): per-GPU prices of VMs and containers per region."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.core.settings import SOURCE_ENV
from chipcost.extract import _http
from chipcost.extract._offers import (
    ChipNames,
    json_price,
    listed_rows,
    reject,
)
from chipcost.extract._plans import missing_key
from chipcost.extract._scrape import require_offers
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "jarvislabs"
PROVIDER = "jarvislabs"
# What JarvisLabs' own SDK reads to list GPU types, prices and free devices per region.
SERVER_META_URL = "https://backendn.jarvislabs.net/misc/server_meta"
API_KEY_ENV = SOURCE_ENV["jarvislabs_api_key"]  # named in messages; read by the settings
FIELDS = ("gpu_type", "region", "price_per_hour")
# workload_type -> the kind of instance in the offer's name. Rows without one are the older
# VM-capable rows (gpuhunt provisions VMs from them).
KINDS = {"vm": "VM", None: "VM", "container": "container"}


def fetch(ctx: FetchContext) -> list[Payload]:
    """The server metadata, archived as it arrives (the key never)."""
    key = ctx.settings.jarvislabs_api_key
    if not key:
        raise missing_key(API_KEY_ENV, "JarvisLabs", "its dashboard (API keys)")
    headers = {"Authorization": f"Bearer {key}"}
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV) as client:
        payload = _http.get(ctx, client, SERVER_META_URL, headers=headers, ext="json")
    ctx.progress("server_meta")
    return [payload]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU type, region, kind and pricing model, per GPU-hour; pure."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    for payload in payloads:
        page = ParseResult()
        for row in listed_rows(payload, PROVIDER, "server_meta", FIELDS):
            page.extend(_row_offers(row, payload, chips))
        require_offers(page, payload, PROVIDER)
        result.extend(page)
    result.notes.extend(chips.notes())
    return result


def _row_offers(row: Any, payload: Payload, chips: ChipNames) -> ParseResult:
    result = ParseResult()
    gpu = str(row.get("gpu_type") or "").strip() if isinstance(row, dict) else ""
    region = str(row.get("region") or "").strip() if isinstance(row, dict) else ""
    workload = row.get("workload_type") if isinstance(row, dict) else ""
    kind = KINDS.get(workload, "") if workload is None or isinstance(workload, str) else ""
    if not gpu or not region or not kind:
        why = f"server_meta row {row!r:.80} has no gpu_type, region or known workload_type"
        return ParseResult(rejects=[reject(SOURCE_NAME, why, row, payload, gpu)])
    name = f"1x {gpu} {kind}"
    chip = chips.chip(gpu, _number(row.get("vram")))
    # Spot is sold for containers only; a VM row's spot_price is not a price one can rent at.
    prices = [("on_demand", "price_per_hour")]
    if kind == "container" and row.get("spot_price") not in (None, 0):
        prices.append(("spot", "spot_price"))
    for model, field in prices:
        price, why = json_price(row.get(field), f"{name} {region} {field}")
        if price is None:
            result.rejects.append(reject(SOURCE_NAME, why, row, payload, gpu))
            continue
        result.records.append(_record(payload, row, (name, region, chip, model, price)))
    return result


def _number(value: object) -> float | None:
    """vram and num_gpus arrive as strings ("80"); None when not a positive number."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _record(payload: Payload, row: dict, offer: tuple[str, str, str, str, float]) -> PriceRecord:
    name, region, chip, model, price = offer
    extra = {
        "price_basis": "per GPU-hour",
        "gpu_memory_gb": _number(row.get("vram")),
        "max_gpus": _number(row.get("num_gpus")),
        "free_gpus": row.get("spot_num_free_devices" if model == "spot" else "num_free_devices"),
        "workload_type": row.get("workload_type"),
    }
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=region,
        instance_type=name,
        chip=chip,
        chip_count=1.0,
        pricing_model=model,
        price_per_hour=price,
        sku=str(row.get("gpu_type")),
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={k: v for k, v in extra.items() if v is not None},
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "JarvisLabs server metadata (needs JL_API_KEY): per-GPU on-demand prices of VMs and "
        "containers, and container spot prices, per region"
    ),
    fetch=fetch,
    parse=parse,
)
