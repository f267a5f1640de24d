"""Vultr's public plan lists: bare-metal GPU plans and Cloud GPU (vcg) plans, per location."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP, chip_memory_gb
from chipcost.core.errors import SourceError
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
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "vultr"
PROVIDER = "vultr"
# Both lists answer without an API key (Vultr API v2, "List Plans" and "List Bare Metal Plans").
API = "https://api.vultr.com/v2"
METAL_URL = f"{API}/plans-metal"
PLANS_URL = f"{API}/plans"
PAGE_SIZE = 500  # the API's maximum: one page holds every plan today
MAX_PAGES = 20  # a cursor that never ends stops here
LISTS = {METAL_URL: ("plans_metal", {}), PLANS_URL: ("plans", {"type": "all"})}
FIELDS = ("id", "hourly_cost", "locations")
# Bare-metal ids name count and GPU: vbm-256c-2048gb-8-mi300x-gpu, vbm-72c-480gb-gh200-gpu.
METAL_ID = re.compile(r"^vbm-.*?-(?:(?P<count>\d+)-)?(?P<gpu>[a-z][a-z0-9]*)-gpu$")
# Id tokens that do not name the chip by themselves: Vultr's bare-metal H100 and A100 are
# SXM boards with 80 GB cards, and its "l40" bare metal carries L40S cards (gpuhunt's table of
# Vultr plans, dstackai/gpuhunt src/gpuhunt/providers/vultr.py).
METAL_SPELLINGS = {"h100": "H100 SXM", "a100": "A100 SXM4 80GB", "l40": "L40S"}
# Cloud GPU plans sell whole cards or slices of one; gpu_vram_gb is the plan's share. Vultr's
# A100 and H100 are 80 GB cards (gpuhunt: "VULTR A100 instances have 80GB").
CARD_GB = {"NVIDIA_A100": 80.0, "NVIDIA_H100": 80.0}
CPU_TYPES = frozenset({"vc2", "vhf", "vhp", "voc", "vdc"})


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of both plan lists, each archived as it arrives."""
    payloads: list[Payload] = []
    with _http.http_client(PROVIDER, ctx) as client:
        for url, (key, params) in LISTS.items():
            cursor = ""
            for _ in range(MAX_PAGES):
                query = {**params, "per_page": PAGE_SIZE, **({"cursor": cursor} if cursor else {})}
                payload = _http.get(ctx, client, url, params=query, ext="json")
                payloads.append(payload)
                ctx.progress(f"{key} page {len(payloads)}")
                cursor = _next_cursor(payload)
                if not cursor:
                    break
            else:
                raise SourceError(f"{PROVIDER}: {url} still had more pages after {MAX_PAGES}")
    return payloads


def _next_cursor(payload: Payload) -> str:
    body = load_json(payload, PROVIDER)
    meta = body.get("meta") if isinstance(body, dict) else None
    links = meta.get("links") if isinstance(meta, dict) else None
    cursor = links.get("next") if isinstance(links, dict) else None
    return cursor if isinstance(cursor, str) else ""


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU plan, location and pricing model; pure."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    slices: list[str] = []
    for payload in payloads:
        key = LISTS.get(payload.url, ("", {}))[0]
        if not key:
            continue
        for plan in listed_rows(payload, PROVIDER, key, FIELDS):
            if key == "plans_metal":
                result.extend(_metal_offers(plan, payload, chips))
            else:
                result.extend(_cloud_gpu_offers(plan, payload, chips, slices))
    if slices:
        result.notes.append(
            f"{len(slices)} Cloud GPU plan(s) sell a slice of one card ({', '.join(sorted(slices))}"
            "): prices are per whole chip here, so slices are not loaded"
        )
    result.notes.extend(chips.notes())
    return result


def _metal_offers(plan: Any, payload: Payload, chips: ChipNames) -> ParseResult:
    if not isinstance(plan, dict) or "gpu" not in str(plan.get("id", "")):
        return ParseResult()  # a CPU-only server: no accelerator to price
    name = str(plan["id"])
    found = METAL_ID.match(name)
    if found is None:
        why = f"{name}: a GPU bare-metal id this parser cannot read (expected ...-8-h100-gpu)"
        return ParseResult(rejects=[reject(SOURCE_NAME, why, plan, payload, name)])
    token = found["gpu"]
    chip = chips.chip(METAL_SPELLINGS.get(token, token))
    return _offers(plan, payload, chip, int(found["count"] or 1), {"gpu": token})


def _cloud_gpu_offers(
    plan: Any, payload: Payload, chips: ChipNames, slices: list[str]
) -> ParseResult:
    if not isinstance(plan, dict) or str(plan.get("type")) in CPU_TYPES:
        return ParseResult()
    name = str(plan.get("id", ""))
    if plan.get("type") != "vcg" and not plan.get("gpu_type"):
        return ParseResult()  # another kind of plan (storage, Kubernetes): not a GPU
    gpu_type, vram = str(plan.get("gpu_type") or ""), plan.get("gpu_vram_gb")
    if not gpu_type or isinstance(vram, bool) or not isinstance(vram, int | float) or vram <= 0:
        why = f"{name}: Cloud GPU plan without gpu_type or gpu_vram_gb ({gpu_type!r}, {vram!r})"
        return ParseResult(rejects=[reject(SOURCE_NAME, why, plan, payload, name)])
    spelling = gpu_type.replace("_", " ")
    card = CARD_GB.get(gpu_type)
    chip = chips.chip(spelling, card or float(vram))
    card = card or chip_memory_gb().get(chip)
    count = vram / card if card else 1.0
    if count < 0.95:
        slices.append(name)
        return ParseResult()
    if abs(count - round(count)) > 0.05:
        why = f"{name}: {vram} GB is not a whole number of {card:g} GB {chip} cards"
        return ParseResult(rejects=[reject(SOURCE_NAME, why, plan, payload, name)])
    extra = {"gpu_type": gpu_type, "gpu_vram_gb": vram}
    if chip == UNKNOWN_CHIP:
        extra["chip_count_assumed"] = "one card: the chip and its memory are unknown"
    return _offers(plan, payload, chip, round(count), extra)


def _offers(plan: dict, payload: Payload, chip: str, count: int, extra: dict) -> ParseResult:
    result = ParseResult()
    name = str(plan["id"])
    locations = plan.get("locations") if isinstance(plan.get("locations"), list) else []
    prices = [("on_demand", "hourly_cost")]
    if plan.get("hourly_cost_preemptible") not in (None, 0):
        prices.append(("spot", "hourly_cost_preemptible"))
    for model, field in prices:
        price, why = json_price(plan.get(field), f"{name} {field}")
        if price is None:
            result.rejects.append(reject(SOURCE_NAME, why, plan, payload, name))
            continue
        for location in (str(loc) for loc in locations if loc):
            offer = (location, chip, count, model, price)
            result.records.append(_record(payload, name, offer, {**extra, "field": field}))
    return result


def _record(
    payload: Payload, name: str, offer: tuple[str, str, int, str, float], extra: dict[str, Any]
) -> PriceRecord:
    region, chip, count, model, price = offer
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=region,
        instance_type=name,
        chip=chip,
        chip_count=float(count),
        pricing_model=model,
        price_per_hour=price,
        sku=name,
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={"price_basis": "per instance-hour", **extra},
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Vultr public plan lists: bare-metal GPU servers (on demand and preemptible) and Cloud "
        "GPU plans of whole cards, per location"
    ),
    fetch=fetch,
    parse=parse,
)
