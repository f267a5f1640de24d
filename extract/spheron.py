"""Spheron's GPU offers feed (JSON): marketplace offers summarised per GPU, size and region."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from chipcost.core.commands import REPLAY
from chipcost.core.errors import ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of, estimate_of_all
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    field_names,
    json_price,
    load_json,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source, each_row

SOURCE_NAME = "spheron"
PROVIDER = "spheron"
# The offers feed behind Spheron's console and pricing page. It answers without a key (the
# public path); with SPHERON_API_KEY set the same endpoint is called as the API, with the key
# as a Bearer token, so account-specific offers are included.
OFFERS_URL = "https://app.spheron.ai/api/gpu-offers"
API_KEY = _fetch.ApiKey("spheron_api_key", "SPHERON_API_KEY", accept_json=True)
# The feed pages by GPU type; 50 types a page covers the catalogue in one or two calls.
PAGE_SIZE = 50
# A feed that keeps reporting more pages stops here instead of looping for ever.
MAX_PAGES = 20
# What every offer must carry; an offer list without them changed format (ParseError).
DEFAULT_REGION = "global"

FORMAT = Format(
    "GPU offers",
    "/api/gpu-offers",
    (
        Rows(
            "data[]",
            {
                "gpuType": "string",
                "gpuModel": "string",
                "baseGpuType": "string",
                "interconnectVariants": "array",
                "hasMultipleVariants": "boolean",
                "displayName": "string",
                "popularity": "integer",
                "totalAvailable": "integer",
                "lowestPrice": "number",
                "highestPrice": "number",
                "averagePrice": "number",
                "providers": "array",
                "offers": "array",
            },
            required=("offers",),
        ),
        Rows(
            "data[].offers[]",
            {
                "provider": "string",
                "offerId": "string",
                "name": "string",
                "description": "string",
                "vcpus": "integer",
                "memory": "integer",
                "storage": "integer",
                "gpuCount": "integer",
                "price": "number",
                "available": "boolean",
                "clusters": "array",
                "region": "string",
                "gpu_memory": "integer",
                "os_options": "array",
                "maintenance": "boolean",
                "interconnectType": "string",
                "interconnectDescription": "string",
                "instanceType": "string",
                "supportsCloudInit": "boolean",
                "spot_price": "number",
            },
            required=("price", "gpuCount"),
            optional=("spot_price",),
            prices=("price", "spot_price"),
        ),
    ),
)
OFFER_FIELDS = FORMAT.required("data[].offers[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of the offers feed, each archived as it arrives."""
    key = API_KEY.of(ctx)
    headers = API_KEY.headers(key)
    access = "api_key" if key else "public"
    payloads: list[Payload] = []
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env) as client:
        for page in range(1, MAX_PAGES + 1):
            params = {"page": page, "limit": PAGE_SIZE}
            response = _http.send(client, OFFERS_URL, params=params, headers=headers)
            # Archived by hand (not _http.get) so the manifest records which path was used;
            # the key itself is never written.
            payload = ctx.archive.write(
                response.content, OFFERS_URL, ext="json", request={**params, "access": access}
            )
            payloads.append(payload)
            ctx.progress(f"gpu-offers page {page} ({access})")
            if page >= _total_pages(payload):
                return payloads
    raise SourceError(
        f"{SOURCE_NAME}: {OFFERS_URL} still reported more pages after {MAX_PAGES}: raise "
        "MAX_PAGES in extract/spheron.py if Spheron lists that many GPU types"
    )


def _total_pages(payload: Payload) -> int:
    body = load_json(payload, PROVIDER)
    pages = body.get("totalPages") if isinstance(body, dict) else None
    return pages if isinstance(pages, int) and pages > 0 else 1


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Price records from archived feed pages; pure.

    A marketplace lists many offers for one GPU: each (GPU, GPU count, region, on-demand or
    spot) becomes one record at the cheapest offer's price, with the number of offers, their
    median and maximum in `extra`, so one odd host cannot hide the spread (across pages: the
    feed pages by GPU type, but nothing here depends on it).
    """
    result = each_row(payloads, SOURCE_NAME, PROVIDER, rows=rows, offers=offers)
    result.records = _summaries(result.records)
    result.notes.extend(_access_notes(payloads))
    return result


def rows(page: Page) -> list[tuple[str, Any]]:
    """Every offer of every GPU type on the page, with the type's name."""
    found = []
    for group in _groups(page):
        name = str(group.get("displayName") or group.get("gpuType") or "").strip()
        listed = group.get("offers") or []
        # A type whose offers are no list is one row, refused as it is; the others load.
        if isinstance(listed, list):
            found.extend((name, offer) for offer in listed)
        else:
            found.append((name, listed))
    return found


def _groups(page: Page) -> list[dict[str, Any]]:
    payload, body = page.payload, page.json()
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise shape_error(PROVIDER, payload, "'data' list of GPU types", body)
    groups = [g for g in body["data"] if isinstance(g, dict)]
    if groups and not any(isinstance(g.get("offers"), list) for g in groups):
        raise ParseError(
            f"{PROVIDER}: no GPU type in {payload.url} ({payload.ref}) has an 'offers' list "
            f"(fields: {', '.join(sorted(field_names(groups)))}): the feed format changed; "
            f"report it, then re-parse the archived payload with `{REPLAY}`"
        )
    all_offers = [o for g in groups if isinstance(g.get("offers"), list) for o in g["offers"]]
    if all_offers:
        require_columns(field_names(all_offers), OFFER_FIELDS, payload, PROVIDER)
    return groups


def offers(row: tuple[str, Any], page: Page) -> list[Item]:
    """One offer as a record at its own price (summarised per key by `parse`); pure."""
    name, offer = row
    if not isinstance(offer, dict):
        return [page.reject("offer is not an object", offer)]
    sku = str(offer.get("offerId") or "")
    model = "spot" if is_spot(offer) else "on_demand"
    try:
        count = parse_count(offer.get("gpuCount"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", offer, sku)]
    text = offer.get("spot_price") if model == "spot" else offer.get("price")
    if text is None and model == "spot":
        text = offer.get("price")
    price, why = json_price(text, f"{name} {model.replace('_', '-')} offer {sku}")
    if price is None:
        return [page.reject(why, offer, sku)]
    memory = offer.get("gpu_memory")
    return [
        page.record(
            region=str(offer.get("region") or DEFAULT_REGION),
            instance_type=f"{count}x {name}",
            chip=page.chip(name, memory if isinstance(memory, int | float) else None),
            chip_count=float(count),
            pricing_model=model,
            price_per_hour=price,
            sku=sku,
            extra={
                "available": offer.get("available") is True,
                "upstream_provider": offer.get("provider"),
                "gpu_memory_gb": memory,
                **estimate_of(offer),
            },
            # The offer's own host: vcpus, memory and storage (GB); the summary keeps the
            # cheapest offer's.
            vcpus=host_spec(offer.get("vcpus")),
            ram_gb=host_spec(offer.get("memory")),
            disk_gb=host_spec(offer.get("storage")),
        )
    ]


def is_spot(offer: dict[str, Any]) -> bool:
    """Spot offers carry spot_price, instanceType SPOT, or an offerId ending in ::spot."""
    return (
        offer.get("spot_price") is not None
        or str(offer.get("instanceType", "")).upper() == "SPOT"
        or str(offer.get("offerId", "")).endswith("::spot")
    )


def _summaries(found: list[PriceRecord]) -> list[PriceRecord]:
    """The cheapest offer per GPU, size, region and pricing model, with the spread."""
    groups: dict[tuple[str, str, str], list[PriceRecord]] = defaultdict(list)
    for record in found:
        groups[(record.instance_type, record.region, record.pricing_model)].append(record)
    summaries = []
    for _, entries in sorted(groups.items()):
        cheapest = min(entries, key=lambda r: (r.price_per_hour, r.sku))
        prices = [r.price_per_hour for r in entries]
        extra = {
            "price_basis": "cheapest offer, per instance-hour",
            "offers": len(entries),
            "available_offers": sum(1 for r in entries if r.extra.get("available")),
            "median_price_per_hour": round(statistics.median(prices), 6),
            "max_price_per_hour": max(prices),
            "upstream_provider": cheapest.extra.get("upstream_provider"),
            "gpu_memory_gb": cheapest.extra.get("gpu_memory_gb"),
            **estimate_of_all(r.extra for r in entries),
        }
        summaries.append(replace(cheapest, extra=extra))
    return summaries


def _access_notes(payloads: Sequence[Payload]) -> list[str]:
    """Which path the fetch used: the API with a key, or the public feed."""
    access = {p.request.get("access") for p in payloads} - {None}
    if access == {"api_key"}:
        return [f"read the gpu-offers API with {API_KEY.env}"]
    if access == {"public"}:
        return [f"read the public gpu-offers feed ({API_KEY.env} not set)"]
    return []


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Spheron GPU offers feed (JSON; the API with SPHERON_API_KEY, the public feed "
        "without): cheapest offer per GPU, size and region, on-demand and spot"
    ),
    fetch=fetch,
    parse=parse,
    title="Spheron",
    checked=Checked(
        asks="every page of the GPU offers feed",
        against="documentation and other projects' parsers",
        rest="reconstructed",
    ),
)
