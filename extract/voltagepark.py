"""Voltage Park's public API (no key): bare-metal H100 nodes per location, priced per GPU-hour
on Ethernet or InfiniBand, and the instant VM presets, priced per instance-hour."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    field_names,
    json_price,
    listed_rows,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source

SOURCE_NAME = "voltagepark"
PROVIDER = "voltagepark"
API = "https://cloud-api.voltagepark.com/api/v1"
# Both answer without a key (the dashboard's logged-out views read them); the marketing
# pricing page says "Contact for pricing" and is not read.
BARE_METAL_URL = f"{API}/bare-metal/locations"
PRESETS_URL = f"{API}/instant-deploy-presets/"
# A bare-metal location's two prices, per GPU-hour of a whole node: the fabric is the plan's
# difference (the node is the same), so each is an instance type of its own.
NETWORKS = {"ethernet": "gpu_price_ethernet", "infiniband": "gpu_price_infiniband"}
# Locations are opaque ids (no city in the answer): the offers' zone, under one region.
REGION = "global"

BARE_METAL = Format(
    "bare-metal locations v1",
    "/api/v1/bare-metal/locations",
    (
        Rows(
            "results[]",
            {
                "id": "string",
                "gpu_count_ethernet": "integer",
                "gpu_price_ethernet": "string",
                "gpu_count_infiniband": "integer",
                "gpu_price_infiniband": "string",
                "reserved_gpu_count_infiniband_cluster_one": "null",
                "reserved_gpu_count_infiniband_cluster_two": "null",
                "specs_per_node": "object",
            },
            required=("id", "gpu_price_ethernet", "gpu_price_infiniband", "specs_per_node"),
        ),
    ),
)
PRESETS = Format(
    "instant-deploy presets v1",
    "/api/v1/instant-deploy-presets/",
    (
        Rows(
            "[]",
            {
                "id": "string",
                "resources": "object",
                "operating_system": "string",
                "compute_rate_hourly": "string",
                "storage_rate_hourly": "string",
                "location_ids_with_availability": "array",
            },
            required=("id", "resources", "compute_rate_hourly"),
        ),
    ),
)
BARE_METAL_FIELDS = BARE_METAL.required("results[]")
PRESET_FIELDS = PRESETS.required("[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The bare-metal locations, then the instant VM presets, each archived as it arrives."""
    payloads = []
    with _http.http_client(PROVIDER, ctx) as client:
        for label, url in (("bare-metal locations", BARE_METAL_URL), ("VM presets", PRESETS_URL)):
            payloads.append(_http.get(ctx, client, url, ext="json"))
            ctx.progress(label)
    return payloads


def rows(page: Page) -> list[Any]:
    """The locations' rows (one page of `results`, checked whole) or the presets (a list)."""
    if page.payload.url.startswith(BARE_METAL_URL):
        body = page.json()
        found = listed_rows(page.payload, PROVIDER, "results", BARE_METAL_FIELDS, body=body)
        if body.get("has_next"):
            page.note("bare-metal locations: has_next is set; only the first page was read")
        return [("bare_metal", row) for row in found]
    body = page.json()
    if not isinstance(body, list):
        raise shape_error(PROVIDER, page.payload, "list of instant VM presets", body)
    if body:
        require_columns(field_names(body), PRESET_FIELDS, page.payload, PROVIDER)
    return [("preset", row) for row in body]


def offers(row: Any, page: Page) -> list[Item]:
    kind, found = row
    return _bare_metal(found, page) if kind == "bare_metal" else _preset(found, page)


def _bare_metal(location: Any, page: Page) -> list[Item]:
    """A record per fabric for a location's whole node, its per-GPU-hour price x its GPUs."""
    specs = location.get("specs_per_node") if isinstance(location, dict) else None
    if not isinstance(specs, dict) or not str(specs.get("gpu_model") or "").strip():
        return [page.reject("a location with no specs_per_node.gpu_model", location)]
    model = str(specs["gpu_model"]).strip()
    try:
        count = parse_count(specs.get("gpu_count"))
    except ValueError as exc:
        # its types are named by their count: the location's nodes, whatever the count, stay open
        where = {"region": REGION, "zone": str(location.get("id") or "")}
        return [page.reject(str(exc), location, offer=where | {"pricing_model": "on_demand"})]
    offer = page.offer(
        region=REGION,
        zone=str(location.get("id") or ""),
        chip=page.chip(model),
        chip_count=float(count),
        pricing_model="on_demand",
        vcpus=host_spec(specs.get("cpu_count")),
        ram_gb=host_spec(specs.get("ram_gb")),
        disk_gb=host_spec(specs.get("storage_gb")),
    )
    made: list[Item] = []
    for network, field in NETWORKS.items():
        name = f"{count}x {model} bare metal {network}"
        per_gpu, why = json_price(location.get(field), f"{name} {field}")
        if per_gpu is None:
            made.append(page.reject(why, location, name))
            continue
        extra = {
            "price_basis": f"{field} per GPU-hour x {count} GPUs of the node",
            "network": network,
            "gpus_available": location.get(field.replace("price", "count")),
            "cpu_model": specs.get("cpu_model"),
            **estimate_of(location),
        }
        made.append(
            offer.record(
                instance_type=name,
                sku=name,
                price_per_hour=round(per_gpu * count, 6),
                extra={k: v for k, v in extra.items() if v is not None},
            )
        )
    return made


def _preset(preset: Any, page: Page) -> list[Item]:
    """One record per VM preset, at its compute rate per instance-hour (storage beside it)."""
    resources = preset.get("resources") if isinstance(preset, dict) else None
    gpus = resources.get("gpus") if isinstance(resources, dict) else None
    if not isinstance(gpus, dict) or len(gpus) != 1:
        return [page.reject(f"preset {preset!r:.80} has not exactly one kind of GPU", preset)]
    [(model, spec)] = gpus.items()
    try:
        count = parse_count(spec.get("count") if isinstance(spec, dict) else None)
    except ValueError as exc:
        return [page.reject(str(exc), preset, model)]
    name = f"{count}x {model} VM {resources.get('vcpu_count')}c {resources.get('ram_gb')}GB"
    offer = {"region": REGION, "instance_type": name, "pricing_model": "on_demand"}
    cell = preset.get("compute_rate_hourly")
    price, why = json_price(cell, f"{name} compute_rate_hourly")
    if price is None:  # null: withdrawn, unless another copy of the preset prices it
        return [page.no_price(why, preset, cell, offer=offer, unpriced=offer)]
    extra = {
        "price_basis": "compute_rate_hourly per instance-hour; storage billed beside it",
        "storage_rate_hourly": preset.get("storage_rate_hourly"),
        "operating_system": preset.get("operating_system"),
        "locations_with_availability": preset.get("location_ids_with_availability"),
        **estimate_of(preset),
    }
    return [
        page.record(
            **offer,
            chip=page.chip(model),
            chip_count=float(count),
            price_per_hour=price,
            sku=str(preset.get("id") or name),
            extra={k: v for k, v in extra.items() if v is not None},
            vcpus=host_spec(resources.get("vcpu_count")),
            ram_gb=host_spec(resources.get("ram_gb")),
            disk_gb=host_spec(resources.get("storage_gb")),
        )
    ]


SOURCE = Source(
    formats=(
        BARE_METAL,
        PRESETS,
    ),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Voltage Park public API: bare-metal H100 nodes per location (per GPU-hour, Ethernet or "
        "InfiniBand) and instant VM presets (per instance-hour), on demand"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Voltage Park",
    checked=Checked(
        asks="`GET /api/v1/bare-metal/locations` and `/instant-deploy-presets/`, public",
        against="**recorded** answers (a public GPU price index's fixtures)",
        when="2026-08-22",
    ),
)
parse = SOURCE.parse
