"""TensorDock's marketplace through its v2 API (locations): the per-GPU-hour rate of each GPU
model each location deploys, summarised per model and country, with the vCPU, RAM and storage
rates billed beside it. An archived answer of the retired v0 marketplace API (hostnodes) is
read by its own parser, chosen by the URL it was fetched from, into the same offers."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows, format_of
from chipcost.extract._kit import (
    field_names,
    json_price,
    market_medians,
    require_columns,
    shape_error,
    slug,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "tensordock"
PROVIDER = "tensordock"
# Every deployment location with the GPU models it deploys, each at its per-GPU-hour price and
# the rates of the resources billed beside it (dashboard.tensordock.com/api/docs/fetch-hostnodes,
# "List Available Locations"). It supersedes the v0 marketplace's hostnodes listing, which
# gpuhunt dropped in 2026-02 (dstackai/gpuhunt pull request 215).
LOCATIONS_URL = "https://dashboard.tensordock.com/api/v2/locations"
# The v0 marketplace's listing of host nodes, fetched before the move to v2: no longer fetched,
# but its archived answers replay (an object of host nodes by id, each with its location and
# the GPUs it has free with their per-GPU-hour price; the vCPU, RAM and storage rates beside).
HOSTNODES_URL = "https://marketplace.tensordock.com/api/v0/client/deploy/hostnodes"
# Sent as a Bearer token when set, as every v2 call of TensorDock's documentation sends it;
# never archived or printed.
API_KEY = _fetch.ApiKey("tensordock_api_key", "TENSORDOCK_API_KEY", accept_json=True)
V2 = Format(
    "v2 locations",
    "/api/v2/locations",
    (
        Rows(
            "data.locations[]",
            {
                "id": "string",
                "city": "string",
                "stateprovince": "string",
                "country": "string",
                "tier": "integer",
                "gpus": "array",
            },
            required=("id", "country", "gpus"),
            prices=("price_per_hr", "pricing"),
        ),
        Rows(
            "data.locations[].gpus[]",
            {
                "v0Name": "string",
                "displayName": "string",
                "max_count": "integer",
                "price_per_hr": "number",
                "resources": "object",
                "pricing": "object",
                "network_features": "object",
            },
            required=("v0Name", "price_per_hr"),
        ),
    ),
)
V0 = Format(
    "v0 hostnodes",
    "/api/v0/client/deploy/hostnodes",
    (
        Rows(
            "hostnodes.*",
            {"location": "object", "networking": "object", "specs": "object", "status": "object"},
            required=("location", "specs"),
        ),
        Rows("hostnodes.*.specs.gpu.*", {"amount": "integer", "price": "number"}, ("price",)),
    ),
    retired="fetched until chipcost moved to the v2 API (2026); archived answers replay",
)
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
    checked; a location with no GPU is one row with none. An archived v0 answer (by its URL):
    one row per GPU model of each host node."""
    if format_of(SOURCE.formats, page.payload) is V0:
        return _v0_rows(page)
    body = page.json()
    data = body.get("data") if isinstance(body, dict) else None
    places = data.get("locations") if isinstance(data, dict) else None
    if not isinstance(places, list):
        raise shape_error(PROVIDER, page.payload, "data.locations list", body)
    if places:
        require_columns(
            field_names(places), V2.required("data.locations[]"), page.payload, PROVIDER
        )
    gpus = [gpu for place in places if isinstance(place, dict) for gpu in _listed(place)]
    if gpus:
        required = V2.required("data.locations[].gpus[]")
        require_columns(field_names(gpus), required, page.payload, PROVIDER)
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


def _v0_rows(page: Page) -> list[Any]:
    """The v0 answer's rows: one per GPU model of each host node ({"hostnode": id, "node":
    ..., "gpu": name, "spec": ...}), the fields checked; a node with no GPU is one row."""
    body = page.json()
    nodes = body.get("hostnodes") if isinstance(body, dict) else None
    if not isinstance(nodes, dict):
        raise shape_error(PROVIDER, page.payload, "hostnodes object", body)
    listed = list(nodes.values())
    if listed:
        require_columns(field_names(listed), V0.required("hostnodes.*"), page.payload, PROVIDER)
    specs = [s for n in listed for s in _v0_gpus(n).values()]
    if specs:
        required = V0.required("hostnodes.*.specs.gpu.*")
        require_columns(field_names(specs), required, page.payload, PROVIDER)
    found: list[Any] = []
    for node_id, node in nodes.items():
        gpus = _v0_gpus(node)
        found += [
            {"hostnode": node_id, "node": node, "gpu": name, "spec": spec}
            for name, spec in gpus.items()
        ] or [{"hostnode": node_id, "node": node, "gpu": None, "spec": None}]
    return found


def _v0_gpus(node: Any) -> dict[str, Any]:
    specs = node.get("specs") if isinstance(node, dict) else None
    gpus = specs.get("gpu") if isinstance(specs, dict) else None
    return gpus if isinstance(gpus, dict) else {}


def _v0_offers(row: Any, page: Page) -> list[Item]:
    """A v0 host node's GPU model: a record at its per-GPU-hour price, as a v2 location's."""
    node, name, spec = row["node"], row["gpu"], row["spec"]
    where = str(row["hostnode"])
    if not isinstance(node, dict):
        return [page.reject(f"host node {node!r:.60} is not an object", row)]
    if name is None:
        return [Skip("a location with no GPU listed", where)]
    place = node.get("location") if isinstance(node.get("location"), dict) else {}
    country = str(place.get("country") or "").strip()
    if not country or not isinstance(spec, dict):
        why = f"host node {where}: no location.country, or GPU {name} is not an object"
        return [page.reject(why, row, name)]
    price, why = json_price(spec.get("price"), f"host node {where} {name} price")
    if price is None:
        return [page.reject(why, row, name)]
    deployable = spec.get("amount")
    if not isinstance(deployable, int) or deployable < 1:
        return [Skip("no GPU of this model deployable at the location", f"{where} {name}")]
    specs = node["specs"]
    rates = {key: _rate(_v0_price(specs, part)) for key, part in V0_RESOURCES.items()}
    extra = {
        "location": where,
        "gpus_deployable": deployable,
        "price_basis": "per GPU-hour; vCPUs, RAM and storage are billed beside it",
        "resource_rates": {key: value for key, value in rates.items() if value is not None},
        "api": V0.name,
    }
    return [
        page.record(
            region=slug(country),
            instance_type=f"1x {name}",
            chip=page.chip(name),
            chip_count=1.0,
            pricing_model="on_demand",
            price_per_hour=price,
            sku=name,
            extra=extra,
        )
    ]


# The resources a v0 host node bills beside its GPUs: specs.<part>.price, by the record's name.
V0_RESOURCES = {"vcpu": "cpu", "ram_gb": "ram", "storage_gb": "storage"}


def _v0_price(specs: dict[str, Any], part: str) -> Any:
    found = specs.get(part)
    return found.get("price") if isinstance(found, dict) else None


def offers(row: Any, page: Page) -> list[Item]:
    """A record per GPU model of a location, at its per-GPU rate; combine() summarises each
    model and country to its median. A v0 row is read by the v0 parser."""
    if "hostnode" in row:
        return _v0_offers(row, page)
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
    formats=(V2, V0),
    title="TensorDock",
    checked=Checked(
        asks="v2 API `GET /api/v2/locations` (`TENSORDOCK_API_KEY` sent when set)",
        against=(
            "**documented example**: the `List Available Locations` response on TensorDock's API "
            "docs (its first GPU entry whole); **recorded** GPU names: the 16 of gpuhunt's v0 map"
        ),
        when="read 2026-11-26",
        rest="the other locations; the sample's (at the published rates)",
    ),
)
parse = SOURCE.parse
