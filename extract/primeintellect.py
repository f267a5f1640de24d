"""Prime Intellect's GPU availability (PRIME_API_KEY): an aggregator's offers of the GPU
clouds it resells, each kept with the cloud that runs it as its seller."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from chipcost.core.errors import SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    json_price,
    listed_rows,
    load_json,
    missing_fields,
    parse_count,
)
from chipcost.extract._resale import seller, with_part
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source, each_row

SOURCE_NAME = "primeintellect"
PROVIDER = "primeintellect"
# Every GPU configuration on offer, unfiltered (Prime Intellect's API reference, "Get GPU
# Availability"): pages of at most 100 items, with the total count in each answer.
AVAILABILITY_URL = "https://api.primeintellect.ai/api/v1/availability/gpus"
PAGE_SIZE = 100
MAX_PAGES = 50
# PRIME_API_KEY: what Prime Intellect's own CLI reads.
API_KEY = _fetch.ApiKey(
    "primeintellect_api_key",
    "PRIME_API_KEY",
    "Prime Intellect",
    "its dashboard (Settings, API keys)",
)
# security -> the record's plan: Prime lists secure-cloud and community-cloud offers.
PLANS = {"secure_cloud": "secure", "community_cloud": "community", None: "default"}
# security's plan -> the prices field its price is in first: Prime's answers give a community
# offer's price in communityPrice with onDemand null, a secure offer's in onDemand.
PRICE_FIELDS = {
    "community": ("communityPrice", "onDemand"),
    "secure": ("onDemand", "communityPrice"),
    "default": ("onDemand", "communityPrice"),
}
# An offer's host parts: its field, the record's column, and the unit of its pricePerUnit.
HOST_PARTS = (("vcpu", "vcpus", "vCPU"), ("memory", "ram_gb", "GB"), ("disk", "disk_gb", "GB"))
# gpuType names the memory per GPU after an underscore: "H100_80GB", "RTX_PRO_6000B_96GB".
GPU_TYPE = re.compile(r"^(?P<base>.+?)_(?P<gb>\d+(?:\.\d+)?)GB$", re.I)

FORMAT = Format(
    "GPU availability v1",
    "/api/v1/availability/gpus",
    (
        Rows(
            "items[]",
            {
                "cloudId": "string",
                "gpuType": "string",
                "socket": "string",
                "provider": "string",
                "dataCenter": "string|null",
                "country": "string|null",
                "gpuCount": "integer",
                "gpuMemory": "integer",
                "disk": "object",
                "vcpu": "object",
                "memory": "object",
                "internetSpeed": "integer|null",
                "interconnect": "null",
                "interconnectType": "null",
                "provisioningTime": "null",
                "stockStatus": "string",
                "security": "string",
                "prices": "object",
                "images": "array",
                "isSpot": "null",
                "prepaidTime": "null",
            },
            required=("cloudId", "gpuType", "provider", "gpuCount", "prices"),
            prices=("prices",),
        ),
    ),
)
FIELDS = FORMAT.required("items[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of the availability listing, archived as each arrives (the key never)."""
    headers = API_KEY.headers(API_KEY.required(ctx))
    pages: list[Payload] = []
    seen = 0
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env) as client:
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
    where = str(item.get("dataCenter") or item.get("region") or "global")
    security = item.get("security")
    if security not in PLANS:
        # its plan cannot be told: its offers of either plan stay open
        offer = {"region": where, "instance_type": name, "pricing_model": None, "plan": None}
        why = f"{name}: security {security!r} is not secure or community"
        return [page.reject(why, item, cloud_id, offer=offer)]
    prices = item.get("prices") if isinstance(item.get("prices"), dict) else {}
    price, field, why = _price(prices, PLANS[security], name)
    if price is None:
        return [page.reject(why, item, cloud_id)]
    if missing := missing_fields(prices, ("currency",)):
        return [page.reject(f"{name}: its prices {missing}", item, cloud_id)]
    spelling, memory = _spelling(gpu, item.get("socket"))
    basis = _basis(item, price)
    return [
        page.record(
            region=where,
            instance_type=name,
            chip=page.chip(spelling, memory),
            chip_count=float(count),
            # isSpot marks an interruptible offer (the provisioning guide's offer has the field)
            pricing_model="spot" if item.get("isSpot") is True else "on_demand",
            plan=PLANS[security],
            price_per_hour=price,
            currency=str(prices["currency"]).upper(),
            sku=cloud_id,
            extra={
                **_extra(item, upstream),
                **basis.extra,
                "price_field": field,
                **estimate_of(item),
            },  # fmt: skip
            **basis.host,
        )
    ]


def _price(prices: dict, plan: str, name: str) -> tuple[float | None, str, str]:
    """(price, the field it is in, "") or (None, "", why not): a community-cloud offer's price
    is prices.communityPrice (its onDemand is null on Prime's answers), another's onDemand;
    the other field is read where the first is empty, as Prime's CLI reads either."""
    fields = PRICE_FIELDS[plan]
    for field in fields:
        if prices.get(field) is not None:
            price, why = json_price(prices[field], f"{name} prices.{field}")
            # to the micro-dollar: Prime sends sums with float noise (1.6567999999999998)
            return (round(price, 6) if price is not None else None), field, why
    return None, "", f"{name} prices.{fields[0]}: no price (neither {' nor '.join(fields)})"


def _spelling(gpu: str, socket: object) -> tuple[str, float | None]:
    """The chip spelling of a gpuType ("H100_80GB") with its socket ("PCIe", "SXM5"), and the
    GB per GPU the name states."""
    sized = GPU_TYPE.match(gpu)
    base, memory = (sized["base"], float(sized["gb"])) if sized else (gpu, None)
    return with_part(base.replace("_", " ").strip(), socket, memory), memory


@dataclass(frozen=True)
class Basis:
    """What an offer's price pays for: the host it states (vcpus, ram_gb, disk_gb of the
    record) and extra's price_basis with each part billed apart."""

    host: dict[str, float | None]
    extra: dict[str, Any]


def _basis(item: dict, price: float) -> Basis:
    """The configuration's vCPUs, memory and disk as the price covers them.

    Each of `vcpu`, `memory` and `disk` states a defaultCount, and where it is billed apart a
    pricePerUnit with defaultIncludedInPrice false. A part billed apart is named with its
    rate, not given as what the price buys. One exception is read from the price itself:
    RunPod's offers say their disk is billed apart, yet every price of them in a recorded
    answer is the GPU rate plus the default disk's charge (1.6568 = 1.64 + 120 GB x 0.00014),
    so a price that comes to whole cents only without that charge includes it."""
    host: dict[str, float | None] = {}
    said = ["per instance-hour (the configuration)"]
    extra: dict[str, Any] = {}
    for part, column, unit in HOST_PARTS:
        found = item.get(part) if isinstance(item.get(part), dict) else {}
        count, rate = host_spec(found.get("defaultCount")), _rate(found.get("pricePerUnit"))
        charge = round(count * rate, 6) if count is not None and rate is not None else None
        stated = found.get("defaultIncludedInPrice") is True
        if stated or _in_price(price, charge):
            host[column] = count
            if charge is not None:
                extra[f"{part}_charge_in_price"] = charge
                said.append(
                    f"the default {part} ({count:g} {unit}) included, {charge:g} an hour"
                    + ("" if stated else ", though the offer says it is billed apart")
                )
        elif rate is not None and found.get("defaultIncludedInPrice") is False:
            host[column] = None
            said.append(f"{part} billed apart at {rate:g} per {unit}-hour")
        else:
            host[column] = count if part != "disk" else None
    if host["disk_gb"] is None and "disk billed apart" not in " ".join(said):
        said.append("disk not said to be in the price")
    return Basis(host, {**extra, "price_basis": "; ".join(said)})


def _rate(value: object) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None  # type: ignore[arg-type]


def _in_price(price: float, charge: float | None) -> bool:
    """Whether a price that is not whole cents is whole cents once `charge` is taken off."""
    if not charge:
        return False
    cents = price * 100
    less = (price - charge) * 100
    return abs(cents - round(cents)) > 1e-6 and abs(less - round(less)) < 1e-6


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
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Prime Intellect GPU availability (needs PRIME_API_KEY): on-demand prices of the GPU "
        "configurations of the clouds it aggregates, per data centre, the cloud kept as seller"
    ),
    fetch=fetch,
    parse=parse,
    title="Prime Intellect",
    checked=Checked(
        asks="every page of `GET /api/v1/availability/gpus`, unfiltered",
        against=(
            "**recorded** answers kept by Prime Intellect's own CLI for its tests "
            "(PrimeIntellect-ai/prime `tests/data/availability_response.json` @ a79151f and @ "
            "6744759); **documented examples**: the offers in Prime Intellect's \"Get Availability "
            'Information" and "Provision GPU" guides; further offers from SkyPilot\'s published '
            "Prime Intellect catalog"
        ),
        when="docs as served 2026",
        rest="socket, country, stock of the catalog-derived offers reconstructed",
    ),
)
