"""TensorDock's marketplace through its v2 API (locations): the per-GPU-hour rate of each GPU
model each location deploys, summarised per model and country, with the vCPU, RAM and storage
rates billed beside it."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._kit import (
    field_names,
    json_price,
    market_medians,
    require_columns,
    shape_error,
    slug,
)
from chipcost.extract.base import FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "tensordock"
PROVIDER = "tensordock"
# Every deployment location with the GPU models it deploys, each at its per-GPU-hour price and
# the rates of the resources billed beside it (dashboard.tensordock.com/api/docs/fetch-hostnodes,
# "List Available Locations"). It supersedes the v0 marketplace's hostnodes listing, which
# gpuhunt dropped in 2026-02 (dstackai/gpuhunt pull request 215).
LOCATIONS_URL = "https://dashboard.tensordock.com/api/v2/locations"
# Sent as a Bearer token when set, as every v2 call of TensorDock's documentation sends it;
# never archived or printed.
API_KEY = _fetch.ApiKey("tensordock_api_key", "TENSORDOCK_API_KEY", accept_json=True)
FIELDS = ("id", "country", "gpus")
GPU_FIELDS = ("v0Name", "price_per_hr")
# The resources a VM pays beside its GPUs: extra.resource_rates, by the name the record gives them.
RESOURCES = {"vcpu": "per_vcpu_hr", "ram_gb": "per_gb_ram_hr", "storage_gb": "per_gb_storage_hr"}


def fetch(ctx: FetchContext) -> list[Payload]:
    """The locations, archived as they arrive; an endpoint answering 410 Gone fails the source
    in one line (the prices collected before are kept)."""
    headers = API_KEY.headers(API_KEY.of(ctx))
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env) as client:
        page = _http.get(ctx, client, LOCATIONS_URL, headers=headers, ext="json")
    ctx.progress(f"locations, {len(page.data)} bytes")
    return [page]


def rows(page: Page) -> list[Any]:
    """One row per GPU model of each location ({"location": ..., "gpu": ...}), the fields
    checked; a location with no GPU is one row with none."""
    body = page.json()
    data = body.get("data") if isinstance(body, dict) else None
    places = data.get("locations") if isinstance(data, dict) else None
    if not isinstance(places, list):
        raise shape_error(PROVIDER, page.payload, "data.locations list", body)
    if places:
        require_columns(field_names(places), FIELDS, page.payload, PROVIDER)
    gpus = [gpu for place in places if isinstance(place, dict) for gpu in _listed(place)]
    if gpus:
        require_columns(field_names(gpus), GPU_FIELDS, page.payload, PROVIDER)
    found: list[Any] = []
    for place in places:
        listed = _listed(place) if isinstance(place, dict) else []
        found += [{"location": place, "gpu": gpu} for gpu in listed] or [
            {"location": place, "gpu": None}
        ]
    return found


def _listed(place: dict[str, Any]) -> list[Any]:
    gpus = place.get("gpus")
    return gpus if isinstance(gpus, list) else []


def offers(row: Any, page: Page) -> list[Item]:
    """A record per GPU model of a location, at its per-GPU rate; combine() summarises each
    model and country to its median."""
    place, gpu = row["location"], row["gpu"]
    if not isinstance(place, dict):
        return [page.reject(f"location {place!r:.60} is not an object", row)]
    where = str(place.get("id") or "")
    if gpu is None:
        return [Skip("a location with no GPU listed", where)]
    country = str(place.get("country") or "").strip()
    name = str(gpu.get("v0Name") or "").strip() if isinstance(gpu, dict) else ""
    if not country or not name:
        why = f"location {where or '?'}: no country, or a GPU entry with no v0Name"
        return [page.reject(why, row, name)]
    price, why = json_price(gpu.get("price_per_hr"), f"location {where} {name} price_per_hr")
    if price is None:
        return [page.reject(why, row, name)]
    deployable = gpu.get("max_count")
    if not isinstance(deployable, int) or deployable < 1:
        return [Skip("no GPU of this model deployable at the location", f"{where} {name}")]
    pricing = gpu.get("pricing") if isinstance(gpu.get("pricing"), dict) else {}
    rates = {key: _rate(pricing.get(field)) for key, field in RESOURCES.items()}
    extra = {
        "location": where,
        "display_name": gpu.get("displayName"),
        "gpus_deployable": deployable,
        "price_basis": "per GPU-hour; vCPUs, RAM and storage are billed beside it",
        "resource_rates": {key: value for key, value in rates.items() if value is not None},
        **estimate_of(place),
    }
    chip = page.chip(name)  # the v0 name spells model, bus and memory: 'l40-pcie-48gb'
    return [
        page.record(
            region=slug(country),
            # The v0 name, as the v0 listing gave it: one offer across the API change.
            instance_type=f"1x {name}",
            chip=chip,
            chip_count=1.0,
            pricing_model="on_demand",
            price_per_hour=price,
            sku=name,
            extra={k: v for k, v in extra.items() if v is not None},
        )
    ]


def combine(records: list[PriceRecord], page: Page) -> list[PriceRecord]:
    """One record per GPU model and country: the median per-GPU rate of its locations, with the
    spread, location count and GPUs deployable beside it."""
    return market_medians(records, lambda r: (r.instance_type, r.region), "locations", _market)


def _market(same: list[PriceRecord], cheapest: PriceRecord) -> dict[str, Any]:
    """The cheapest location's rates and notes, the GPUs deployable in all of them."""
    return {
        **{key: value for key, value in cheapest.extra.items() if key != "location"},
        "gpus_deployable": sum(r.extra["gpus_deployable"] for r in same),
        "cheapest_location": cheapest.extra["location"],
    }


def _rate(price: Any) -> float | None:
    """A resource's price per unit-hour (0.003), or None."""
    ok = isinstance(price, int | float) and not isinstance(price, bool) and price >= 0
    return float(price) if ok else None


SOURCE = Source(
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "TensorDock v2 API locations: per-GPU-hour on-demand rates summarised per GPU model and "
        "country (median, with min, max and location count; vCPU, RAM and storage billed "
        "separately)"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    combine=combine,
)
parse = SOURCE.parse
