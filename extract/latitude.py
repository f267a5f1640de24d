"""Latitude.sh's API (LATITUDE_API_KEY): its bare-metal GPU plans, each region's price per
server-hour in US dollars."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._bounds import too_many_places
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    field_names,
    json_price,
    parse_count,
    require_columns,
    shape_error,
    slug,
)
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
)

SOURCE_NAME = "latitude"
PROVIDER = "latitude"
# Every plan with each region's stock and prices (hour, month, year; in USD and BRL). Only GPU
# plans are asked for; a CPU plan that comes all the same is counted and left out.
PLANS_URL = "https://api.latitude.sh/plans?filter[gpu]=true"
API_KEY = _fetch.ApiKey(
    "latitude_api_key",
    "LATITUDE_API_KEY",
    "Latitude.sh",
    "its dashboard (API keys)",
    accept_json=True,
)
# The price read: US dollars per hour. The month and year prices of the same currency are kept
# beside it; Latitude.sh sets its BRL prices on their own, and they are not read.
CURRENCY, PERIOD = "USD", "hour"

FORMAT = Format(
    "plans",
    "/plans",
    (
        Rows(
            "data[]",
            {
                "id": "string",
                "type": "string",
                "attributes": "object",
            },
            required=("attributes",),
        ),
        Rows(
            "data[].attributes",
            {
                "slug": "string",
                "name": "string",
                "features": "array",
                "specs": "object",
                "regions": "array",
                "available_operating_systems": "array",
            },
            required=("slug", "specs", "regions"),
        ),
    ),
)
FIELDS = FORMAT.required("data[].attributes")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The GPU plans, archived as they arrive (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"GPU plans": PLANS_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """(plan, region) pairs of the plans listed under `data` (JSON:API), fields checked."""
    body = page.json()
    plans = body.get("data") if isinstance(body, dict) else None
    if not isinstance(plans, list):
        raise shape_error(PROVIDER, page.payload, "data list of plans", body)
    attributes = [p.get("attributes") for p in plans if isinstance(p, dict)]
    if attributes:
        require_columns(field_names(attributes), FIELDS, page.payload, PROVIDER)
    found: list[Any] = []
    for plan in plans:
        regions = _attributes(plan).get("regions")
        if isinstance(regions, list) and too_many_places(regions, ""):
            found.append((plan, regions))  # refused whole by `offers`
        elif isinstance(regions, list) and regions:
            found += [(plan, region) for region in regions]
        else:
            found.append((plan, None))
    return found


def offers(row: Any, page: Page) -> list[Item]:
    """One on-demand record per GPU plan and region, per server-hour in US dollars; pure."""
    plan, region = row
    attributes = _attributes(plan)
    name = str(attributes.get("slug") or "").strip()
    specs = attributes.get("specs") if isinstance(attributes.get("specs"), dict) else {}
    gpu = specs.get("gpu")
    if not name:
        return [page.reject(f"plan {plan!r:.80} has no slug", plan)]
    if isinstance(region, list) and (why := too_many_places(region, name)):
        return [page.reject(why, plan, name)]
    if not gpu:  # {} or null: a CPU-only server
        return [Skip("a CPU-only plan: no accelerator to price", name)]
    if not isinstance(gpu, dict) or not str(gpu.get("type") or "").strip():
        return [page.reject(f"{name}: specs.gpu {gpu!r:.80} names no GPU type", plan, name)]
    if not isinstance(region, dict) or not str(region.get("name") or "").strip():
        return [page.reject(f"{name}: a region with no name", plan, name)]
    where = str(region["name"]).strip()
    # A count or price that cannot be read keeps the plan's offer there open.
    offer = {"region": slug(where), "instance_type": name, "pricing_model": "on_demand"}
    try:
        count = parse_count(gpu.get("count"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", plan, offer=offer)]
    pricing = region.get("pricing") if isinstance(region.get("pricing"), dict) else {}
    prices = pricing.get(CURRENCY) if isinstance(pricing.get(CURRENCY), dict) else {}
    cell = prices.get(PERIOD)
    price, why = json_price(cell, f"{name} {where} pricing.{CURRENCY}.{PERIOD}")
    if price is None:  # null: withdrawn, unless another copy of the plan prices it
        return [page.no_price(why, region, cell, offer=offer, unpriced=offer)]
    memory = gpu.get("vram_per_gpu")
    extra = {
        "price_basis": f"pricing.{CURRENCY}.{PERIOD}: per server-hour",
        "region_name": where,
        "stock_level": region.get("stock_level"),
        "locations_in_stock": (region.get("locations") or {}).get("in_stock"),
        "monthly_price": prices.get("month"),
        "yearly_price": prices.get("year"),
        "gpu_type": gpu.get("type"),
        "interconnect": gpu.get("interconnect"),
        # cores and sockets, not vCPUs: kept as the API gives them
        "cpu": specs.get("cpu"),
        **estimate_of(region),
    }
    return [
        page.record(
            **offer,
            chip=page.chip(str(gpu["type"]), memory if isinstance(memory, int | float) else None),
            chip_count=float(count),
            price_per_hour=price,
            sku=str(plan.get("id") or name),
            extra={k: v for k, v in extra.items() if v is not None},
            ram_gb=host_spec((specs.get("memory") or {}).get("total")),
        )
    ]


def _attributes(plan: Any) -> dict[str, Any]:
    found = plan.get("attributes") if isinstance(plan, dict) else None
    return found if isinstance(found, dict) else {}


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Latitude.sh API (needs LATITUDE_API_KEY): bare-metal GPU plans per region, on demand "
        "per server-hour in US dollars"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Latitude.sh",
    checked=Checked(
        asks="`GET /plans?filter[gpu]=true` (with `LATITUDE_API_KEY`)",
        against=(
            "**recorded** plan objects, as the public pricing page embeds them (a public GPU price"
            " index's fixture)"
        ),
        when="2026-08-22",
        rest='the API\'s `{"data": [...]}` envelope',
    ),
)
parse = SOURCE.parse
