"""DigitalOcean's sizes API (DIGITALOCEAN_TOKEN): GPU Droplet sizes priced per hour, per region."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.errors import SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.core.settings import SOURCE_ENV
from chipcost.extract import _http
from chipcost.extract._offers import (
    ChipNames,
    json_price,
    listed_rows,
    load_json,
    reject,
)
from chipcost.extract._plans import missing_key
from chipcost.extract._scrape import parse_count
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "digitalocean"
PROVIDER = "digitalocean"
# Every request to DigitalOcean's API needs a token; a read-only one is enough.
SIZES_URL = "https://api.digitalocean.com/v2/sizes"
API_KEY_ENV = SOURCE_ENV["digitalocean_api_key"]  # named in messages; read by the settings
PAGE_SIZE = 200  # the API's maximum page size
MAX_PAGES = 20
FIELDS = ("slug", "price_hourly", "regions")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of /v2/sizes, followed through links.pages.next, archived as it arrives."""
    key = ctx.settings.digitalocean_api_key
    if not key:
        raise missing_key(API_KEY_ENV, "DigitalOcean", "its control panel (API, Tokens)")
    headers = {"Authorization": f"Bearer {key}"}
    payloads: list[Payload] = []
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV) as client:
        url: str = SIZES_URL
        params: dict[str, int] | None = {"per_page": PAGE_SIZE}
        for page in range(1, MAX_PAGES + 1):
            payloads.append(_http.get(ctx, client, url, params=params, headers=headers))
            ctx.progress(f"sizes page {page}")
            url, params = _next_page(payloads[-1]), None  # the next link carries its query
            if not url:
                return payloads
    raise SourceError(f"{PROVIDER}: {SIZES_URL} still had more pages after {MAX_PAGES}")


def _next_page(payload: Payload) -> str:
    body = load_json(payload, PROVIDER)
    links = body.get("links") if isinstance(body, dict) else None
    pages = links.get("pages") if isinstance(links, dict) else None
    found = pages.get("next") if isinstance(pages, dict) else None
    return found if isinstance(found, str) and found.startswith(SIZES_URL) else ""


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU size and region, per instance-hour; pure."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    unavailable: list[str] = []
    for payload in payloads:
        for size in listed_rows(payload, PROVIDER, "sizes", FIELDS):
            result.extend(_size_offers(size, payload, chips, unavailable))
    if unavailable:
        result.notes.append(
            f"{len(unavailable)} GPU size(s) are listed but sold in no region: "
            f"{', '.join(sorted(unavailable))}"
        )
    result.notes.extend(chips.notes())
    return result


def _size_offers(
    size: Any, payload: Payload, chips: ChipNames, unavailable: list[str]
) -> ParseResult:
    gpu = size.get("gpu_info") if isinstance(size, dict) else None
    if not gpu:
        return ParseResult()  # a CPU Droplet: no accelerator to price
    slug = str(size.get("slug", ""))
    try:
        count = parse_count(gpu.get("count") if isinstance(gpu, dict) else None)
    except ValueError as exc:
        return ParseResult(rejects=[reject(SOURCE_NAME, f"{slug}: {exc}", size, payload, slug)])
    model = str(gpu.get("model") or "")
    price, why = json_price(size.get("price_hourly"), f"{slug} price_hourly")
    if price is None or not model:
        why = why or f"{slug}: gpu_info has no model"
        return ParseResult(rejects=[reject(SOURCE_NAME, why, size, payload, slug)])
    regions = [str(r) for r in size.get("regions") or [] if r]
    if not regions or size.get("available") is False:
        unavailable.append(slug)
        return ParseResult()
    memory = _memory_per_gpu(gpu, count)
    # "nvidia_h100", "amd_mi300x", "nvidia_rtx6000_ada": the vendor and words, underscored.
    chip = chips.chip(model.replace("_", " "), memory)
    extra = {"gpu_model": model, "gpu_memory_gb": memory, "price_basis": "per instance-hour"}
    records = [_record(payload, slug, region, chip, count, price, extra) for region in regions]
    return ParseResult(records=records)


def _memory_per_gpu(gpu: dict[str, Any], count: int) -> float | None:
    """gpu_info.vram is the Droplet's total (640 GiB for 8 H100): per GPU is total / count."""
    vram = gpu.get("vram") if isinstance(gpu.get("vram"), dict) else {}
    amount = vram.get("amount")
    if not isinstance(amount, int | float) or amount <= 0:
        return None
    unit = str(vram.get("unit") or "gib").lower()
    gib = amount * 1024 if unit.startswith("t") else amount
    return round(gib / count, 1)


def _record(
    payload: Payload, slug: str, region: str, chip: str, count: int, price: float, extra: dict
) -> PriceRecord:
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=region,
        instance_type=slug,
        chip=chip,
        chip_count=float(count),
        pricing_model="on_demand",
        price_per_hour=price,
        sku=slug,
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={k: v for k, v in extra.items() if v is not None},
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "DigitalOcean sizes API (needs DIGITALOCEAN_TOKEN): GPU Droplet sizes on demand, per "
        "instance and region"
    ),
    fetch=fetch,
    parse=parse,
)
