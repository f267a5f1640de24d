"""Vast.ai public offer search: a marketplace summarised per GPU as median, min and count."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.core.settings import SOURCE_ENV
from chipcost.extract import _http
from chipcost.extract._offers import ChipNames, field_names, load_json, reject, shape_error
from chipcost.extract._scrape import parse_count, require_columns, require_offers
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "vastai"
PROVIDER = "vastai"
# The offer search behind `vastai search offers`; it answers without an API key.
BUNDLES_URL = "https://console.vast.ai/api/v0/bundles/"
API_KEY_ENV = SOURCE_ENV["vast_api_key"]  # named in messages; read by the settings
# The marketplace is a few thousand machines: one page this large holds all of it, so the
# median sees the whole market, not the first screen of it.
LIMIT = 5000
# The CLI's default filter (verified, on-Vast, rentable, not rented) for on-demand offers.
# Every offer also carries min_bid, the interruptible price, so one search covers both.
SEARCH = {
    "verified": {"eq": True},
    "external": {"eq": False},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "num_gpus": {"gte": 1},
    "type": "on-demand",
    "order": [["score", "desc"]],
    "limit": LIMIT,
}
# dph_base is the machine's price without storage; dph_total adds the default disk's
# storage_cost, which depends on the disk size a renter picks, so it is not compared.
PRICE_FIELDS = {"on_demand": ("dph_base", "default"), "spot": ("min_bid", "interruptible")}
EXPECTED_FIELDS = ("id", "gpu_name", "num_gpus", "gpu_ram", "dph_base", "min_bid")
REGION = "global"


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """One offer search, archived as it arrives (the filter is kept, the key never)."""
    key = ctx.settings.vast_api_key
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    http = client or _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV)
    with http:
        payload = _http.get(ctx, http, BUNDLES_URL, method="POST", json=SEARCH, headers=headers)
    ctx.progress(f"{SOURCE_NAME}: offer search, {len(payload.data)} bytes")
    return [payload]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU model and pricing model: the median per-GPU price of its offers."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    for payload in payloads:
        offers = _offers(payload)
        require_columns(field_names(offers), EXPECTED_FIELDS, payload, PROVIDER)
        page = ParseResult()
        markets = _per_gpu_prices(offers, payload, page)
        for (gpu_name, memory_gb), prices in sorted(markets.items()):
            chip = chips.chip(gpu_name, memory_gb)
            for model, values in prices.items():
                page.records.append(_summary(payload, gpu_name, memory_gb, chip, model, values))
        require_offers(page, payload, PROVIDER)
        if len(offers) >= LIMIT:
            page.notes.append(
                f"the search returned {len(offers)} offers, its limit: the market "
                "may be larger; raise LIMIT in extract/vastai.py"
            )
        result.extend(page)
    result.notes.extend(chips.notes())
    return result


def _offers(payload: Payload) -> list[Any]:
    body = load_json(payload, PROVIDER)
    if not isinstance(body, dict) or not isinstance(body.get("offers"), list):
        raise shape_error(PROVIDER, payload, "offers list", body)
    return body["offers"]


Market = dict[tuple[str, float], dict[str, list[tuple[float, Any]]]]


def _per_gpu_prices(offers: list[Any], payload: Payload, page: ParseResult) -> Market:
    """(gpu name, GB per GPU) -> pricing model -> [(price per GPU-hour, offer id)]."""
    markets: Market = defaultdict(lambda: defaultdict(list))
    for offer in offers:
        sku = str(offer.get("id", "")) if isinstance(offer, dict) else ""
        try:
            name, memory, gpus = _machine(offer)
        except ValueError as exc:
            page.rejects.append(reject(SOURCE_NAME, str(exc), offer, payload, sku))
            continue
        for model, (field, _) in PRICE_FIELDS.items():
            price = offer.get(field)
            if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
                reason = f"{field} is {price!r}: not a price (offer {sku}, {gpus}x {name})"
                page.rejects.append(reject(SOURCE_NAME, reason, offer, payload, sku))
                continue
            markets[(name, memory)][model].append((price / gpus, offer.get("id")))
    return markets


def _machine(offer: Any) -> tuple[str, float, int]:
    """(GPU name, GB per GPU rounded, GPU count) of one offer, or ValueError why not."""
    if not isinstance(offer, dict):
        raise ValueError(f"offer is a {type(offer).__name__}, not an object")
    name = " ".join(str(offer.get("gpu_name") or "").split())
    if not name:
        raise ValueError("offer has no gpu_name")
    gpus = parse_count(offer.get("num_gpus"))
    ram_mb = offer.get("gpu_ram")
    if isinstance(ram_mb, bool) or not isinstance(ram_mb, int | float) or ram_mb <= 0:
        raise ValueError(f"gpu_ram {ram_mb!r} is not a memory size in MB")
    # Hosts report usable memory (81559 MB for an 80 GB card): round to whole GB.
    return name, float(round(ram_mb / 1024)), gpus


def _summary(
    payload: Payload,
    gpu_name: str,
    memory_gb: float,
    chip: str,
    model: str,
    values: list[tuple[float, Any]],
) -> PriceRecord:
    prices = sorted(price for price, _ in values)
    plan = PRICE_FIELDS[model][1]
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=REGION,
        instance_type=f"1x {gpu_name} {memory_gb:g}GB",
        chip=chip,
        chip_count=1.0,
        pricing_model=model,
        plan=plan,
        # The median, so that one odd host does not become the price; min and count beside it.
        price_per_hour=round(statistics.median(prices), 4),
        sku=gpu_name,
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={
            "statistic": "median of offers, per GPU-hour",
            "min": round(prices[0], 4),
            "max": round(prices[-1], 4),
            "offers": len(prices),
            "price_field": PRICE_FIELDS[model][0],
            "cheapest_offer": min(values, key=lambda pair: pair[0])[1],
        },
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Vast.ai marketplace offer search: verified rentable offers summarised per GPU model "
        "(median per-GPU price, with min and offer count), on-demand and interruptible"
    ),
    fetch=fetch,
    parse=parse,
)
