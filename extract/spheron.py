"""Spheron's GPU offers feed (JSON): marketplace offers summarised per GPU, size and region."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from chipcost.core.errors import ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.core.settings import SOURCE_ENV
from chipcost.extract import _http
from chipcost.extract._kit import (
    ChipNames,
    field_names,
    json_price,
    load_json,
    parse_count,
    reject,
    require_columns,
    require_offers,
    shape_error,
)
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "spheron"
PROVIDER = "spheron"
# The offers feed behind Spheron's console and pricing page. It answers without a key (the
# public path); with SPHERON_API_KEY set the same endpoint is called as the API, with the key
# as a Bearer token, so account-specific offers are included.
OFFERS_URL = "https://app.spheron.ai/api/gpu-offers"
API_KEY_ENV = SOURCE_ENV["spheron_api_key"]  # named in messages; read by the settings
# The feed pages by GPU type; 50 types a page covers the catalogue in one or two calls.
PAGE_SIZE = 50
# A feed that keeps reporting more pages stops here instead of looping for ever.
MAX_PAGES = 20
# What every offer must carry; an offer list without them changed format (ParseError).
OFFER_FIELDS = ("price", "gpuCount")
DEFAULT_REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of the offers feed, each archived as it arrives."""
    key = ctx.settings.spheron_api_key
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"} if key else {}
    access = "api_key" if key else "public"
    payloads: list[Payload] = []
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV) as client:
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
    median and maximum in `extra`, so one odd host cannot hide the spread.
    """
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    offers: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for payload in payloads:
        groups = _groups(payload)
        page = ParseResult()
        before = sum(len(entries) for entries in offers.values())
        for group in groups:
            page.extend(_group_offers(group, payload, chips, offers))
        if before == sum(len(entries) for entries in offers.values()):
            require_offers(page, payload, PROVIDER)  # nothing usable and nothing refused
        result.extend(page)
    result.records.extend(_summaries(offers))
    result.notes.extend(chips.notes())
    result.notes.extend(_access_notes(payloads))
    return result


def _groups(payload: Payload) -> list[dict[str, Any]]:
    body = load_json(payload, PROVIDER)
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise shape_error(PROVIDER, payload, "'data' list of GPU types", body)
    groups = [g for g in body["data"] if isinstance(g, dict)]
    if groups and not any(isinstance(g.get("offers"), list) for g in groups):
        raise ParseError(
            f"{PROVIDER}: no GPU type in {payload.url} ({payload.ref}) has an 'offers' list "
            f"(fields: {', '.join(sorted(field_names(groups)))}): the feed format changed; "
            "report it, then re-parse the archived payload with `chipcost collect --replay`"
        )
    all_offers = [o for g in groups for o in g.get("offers") or []]
    if all_offers:
        require_columns(field_names(all_offers), OFFER_FIELDS, payload, PROVIDER)
    return groups


def _group_offers(
    group: dict[str, Any],
    payload: Payload,
    chips: ChipNames,
    offers: dict[tuple[str, str, str], list[dict[str, Any]]],
) -> ParseResult:
    """Sort one GPU type's usable offers by key into `offers`; rejects for the rest."""
    result = ParseResult()
    name = str(group.get("displayName") or group.get("gpuType") or "").strip()
    for offer in group.get("offers") or []:
        if not isinstance(offer, dict):
            result.rejects.append(reject(SOURCE_NAME, "offer is not an object", offer, payload))
            continue
        sku = str(offer.get("offerId") or "")
        model = "spot" if is_spot(offer) else "on_demand"
        try:
            count = parse_count(offer.get("gpuCount"))
        except ValueError as exc:
            result.rejects.append(reject(SOURCE_NAME, f"{name}: {exc}", offer, payload, sku))
            continue
        text = offer.get("spot_price") if model == "spot" else offer.get("price")
        if text is None and model == "spot":
            text = offer.get("price")
        price, why = json_price(text, f"{name} {model.replace('_', '-')} offer {sku}")
        if price is None:
            result.rejects.append(reject(SOURCE_NAME, why, offer, payload, sku))
            continue
        memory = offer.get("gpu_memory")
        chip = chips.chip(name, memory if isinstance(memory, int | float) else None)
        region = str(offer.get("region") or DEFAULT_REGION)
        entry = {**offer, "_price": price, "_count": count, "_chip": chip, "_payload": payload}
        offers[(f"{count}x {name}", region, model)].append(entry)
    return result


def is_spot(offer: dict[str, Any]) -> bool:
    """Spot offers carry spot_price, instanceType SPOT, or an offerId ending in ::spot."""
    return (
        offer.get("spot_price") is not None
        or str(offer.get("instanceType", "")).upper() == "SPOT"
        or str(offer.get("offerId", "")).endswith("::spot")
    )


def _summaries(offers: dict[tuple[str, str, str], list[dict[str, Any]]]) -> list[PriceRecord]:
    records = []
    for (instance_type, region, model), entries in sorted(offers.items()):
        cheapest = min(entries, key=lambda e: (e["_price"], str(e.get("offerId"))))
        prices = [e["_price"] for e in entries]
        payload: Payload = cheapest["_payload"]
        records.append(
            PriceRecord(
                observed_at=payload.fetched_at,
                provider=PROVIDER,
                source=SOURCE_NAME,
                region=region,
                instance_type=instance_type,
                chip=cheapest["_chip"],
                chip_count=float(cheapest["_count"]),
                pricing_model=model,
                price_per_hour=cheapest["_price"],
                sku=str(cheapest.get("offerId") or ""),
                source_url=payload.url,
                payload_ref=payload.ref,
                extra={
                    "price_basis": "cheapest offer, per instance-hour",
                    "offers": len(entries),
                    "available_offers": sum(1 for e in entries if e.get("available") is True),
                    "median_price_per_hour": round(statistics.median(prices), 6),
                    "max_price_per_hour": max(prices),
                    "upstream_provider": cheapest.get("provider"),
                    "gpu_memory_gb": cheapest.get("gpu_memory"),
                },
            )
        )
    return records


def _access_notes(payloads: Sequence[Payload]) -> list[str]:
    """Which path the fetch used: the API with a key, or the public feed."""
    access = {p.request.get("access") for p in payloads} - {None}
    if access == {"api_key"}:
        return [f"read the gpu-offers API with {API_KEY_ENV}"]
    if access == {"public"}:
        return [f"read the public gpu-offers feed ({API_KEY_ENV} not set)"]
    return []


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Spheron GPU offers feed (JSON; the API with SPHERON_API_KEY, the public feed "
        "without): cheapest offer per GPU, size and region, on-demand and spot"
    ),
    fetch=fetch,
    parse=parse,
)
