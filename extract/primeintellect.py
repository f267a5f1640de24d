"""Prime Intellect's GPU availability (PRIME_API_KEY): an aggregator's offers of the GPU
clouds it resells, each kept with the cloud that runs it as its seller."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from chipcost.core.errors import SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _http
from chipcost.extract._kit import (
    host_spec,
    json_price,
    listed_rows,
    load_json,
    missing_key,
    parse_count,
)
from chipcost.extract._resale import seller, with_part
from chipcost.extract.base import FetchContext, Item, Page, Source, each_row

SOURCE_NAME = "primeintellect"
PROVIDER = "primeintellect"
# Every GPU configuration on offer, unfiltered (Prime Intellect's API reference, "Get GPU
# Availability"): pages of at most 100 items, with the total count in each answer.
AVAILABILITY_URL = "https://api.primeintellect.ai/api/v1/availability/gpus"
PAGE_SIZE = 100
MAX_PAGES = 50
API_KEY_ENV = "PRIME_API_KEY"  # what Prime Intellect's own CLI reads; named in messages
FIELDS = ("cloudId", "gpuType", "provider", "gpuCount", "prices")
# security -> the record's plan: Prime lists secure-cloud and community-cloud offers.
PLANS = {"secure_cloud": "secure", "community_cloud": "community", None: "default"}
# gpuType names the memory per GPU after an underscore: "H100_80GB", "RTX_PRO_6000B_96GB".
GPU_TYPE = re.compile(r"^(?P<base>.+?)_(?P<gb>\d+(?:\.\d+)?)GB$", re.I)


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of the availability listing, archived as each arrives (the key never)."""
    key = ctx.settings.primeintellect_api_key
    if not key:
        raise missing_key(API_KEY_ENV, "Prime Intellect", "its dashboard (Settings, API keys)")
    headers = {"Authorization": f"Bearer {key}"}
    pages: list[Payload] = []
    seen = 0
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV) as client:
        while True:
            params = {"page": len(pages) + 1, "page_size": PAGE_SIZE}
            pages.append(_http.get(ctx, client, AVAILABILITY_URL, params=params, headers=headers,
                                   ext="json"))  # fmt: skip
            items, total = _count(pages[-1])
            seen += items
            ctx.progress(f"availability page {len(pages)}: {seen} of {total} offers")
            if not items or seen >= total:
                return pages
            if len(pages) >= MAX_PAGES:
                raise SourceError(
                    f"{PROVIDER}: {AVAILABILITY_URL} still had offers after {MAX_PAGES} pages "
                    f"({seen} of {total}): run again later, or report that the listing grew"
                )


def _count(page: Payload) -> tuple[int, int]:
    """(items on this page, the listing's totalCount) of one answer; a shape error fails."""
    body = load_json(page, PROVIDER)
    items = listed_rows(page, PROVIDER, "items", (), body=body)
    total = body.get("totalCount")
    return len(items), total if isinstance(total, int) else len(items)


def rows(page: Page) -> list[Any]:
    """The offers of one page, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "items", FIELDS, body=page.json())


def offers(item: Any, page: Page) -> list[Item]:
    """One record per offer (on demand, or spot where isSpot), per instance-hour: the price
    is the whole configuration's; pure."""
    upstream = str(item.get("provider") or "").strip() if isinstance(item, dict) else ""
    cloud_id = str(item.get("cloudId") or "").strip() if isinstance(item, dict) else ""
    gpu = str(item.get("gpuType") or "").strip() if isinstance(item, dict) else ""
    if not upstream or not cloud_id or not gpu:
        return [page.reject(f"offer {item!r:.80} has no provider, cloudId or gpuType", item)]
    try:
        count = parse_count(item.get("gpuCount"))
    except ValueError as exc:
        return [page.reject(f"{upstream}/{cloud_id}: {exc}", item, cloud_id)]
    name = f"{upstream}/{count}x {cloud_id}"
    security = item.get("security")
    if security not in PLANS:
        return [page.reject(f"{name}: security {security!r} is not secure or community", item)]
    prices = item.get("prices") if isinstance(item.get("prices"), dict) else {}
    price, why = json_price(prices.get("onDemand"), f"{name} prices.onDemand")
    if price is None:
        return [page.reject(why, item, cloud_id)]
    spelling, memory = _spelling(gpu, item.get("socket"))
    return [
        page.record(
            region=str(item.get("dataCenter") or item.get("region") or "global"),
            instance_type=name,
            chip=page.chip(spelling, memory),
            chip_count=float(count),
            # isSpot marks an interruptible offer (the provisioning guide's offer has the field)
            pricing_model="spot" if item.get("isSpot") is True else "on_demand",
            plan=PLANS[security],
            price_per_hour=price,
            currency=str(prices.get("currency") or "USD").upper(),
            sku=cloud_id,
            extra=_extra(item, upstream),
            **_host(item),
        )
    ]


def _spelling(gpu: str, socket: object) -> tuple[str, float | None]:
    """The chip spelling of a gpuType ("H100_80GB") with its socket ("PCIe", "SXM5"), and the
    GB per GPU the name states."""
    sized = GPU_TYPE.match(gpu)
    base, memory = (sized["base"], float(sized["gb"])) if sized else (gpu, None)
    return with_part(base.replace("_", " ").strip(), socket, memory), memory


def _host(item: dict) -> dict[str, float | None]:
    """The configuration's vcpu and memory defaultCount (what the price is for); its disk is
    billed apart from the price, so none is given with it."""

    def default(field: str) -> float | None:
        found = item.get(field)
        return host_spec(found.get("defaultCount")) if isinstance(found, dict) else None

    return {"vcpus": default("vcpu"), "ram_gb": default("memory")}


def _extra(item: dict, upstream: str) -> dict[str, Any]:
    def default(field: str) -> object:
        found = item.get(field)
        return found.get("defaultCount") if isinstance(found, dict) else None

    extra = {
        **seller(upstream, "primeintellect"),
        "gpu_type": item.get("gpuType"),
        "socket": item.get("socket"),
        "gpu_memory_gb": item.get("gpuMemory"),
        "country": item.get("country"),
        "stock_status": item.get("stockStatus"),
        "price_basis": "per instance-hour (the configuration); disk billed separately",
    }
    return {k: v for k, v in extra.items() if v is not None}


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Records of every page; an offer listed more than once (the same configuration in one
    place from the same seller, across pages too) keeps its cheapest price."""
    result = each_row(payloads, SOURCE_NAME, PROVIDER, rows=rows, offers=offers)
    result.records = _cheapest(result.records)
    return result


def _cheapest(records: list[PriceRecord]) -> list[PriceRecord]:
    same: dict[tuple[str, ...], list[PriceRecord]] = defaultdict(list)
    for record in records:
        same[record.offer_key()].append(record)
    kept = []
    for found in same.values():
        cheapest = min(found, key=lambda r: r.price_per_hour)
        listed = {"listings": len(found), "max": max(r.price_per_hour for r in found)}
        kept.append(replace(cheapest, extra={**cheapest.extra, **listed}) if len(found) > 1
                    else cheapest)  # fmt: skip
    return kept


SOURCE = Source(
    settings={"primeintellect_api_key": API_KEY_ENV},
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Prime Intellect GPU availability (needs PRIME_API_KEY): on-demand prices of the GPU "
        "configurations of the clouds it aggregates, per data centre, the cloud kept as seller"
    ),
    fetch=fetch,
    parse=parse,
)
