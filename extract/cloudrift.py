"""CloudRift's public instance-type list: GPU VM variants priced per instance, per datacenter."""

from __future__ import annotations

from typing import Any

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract import _http
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
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "cloudrift"
PROVIDER = "cloudrift"
# Answers without a key; the API versions its request format by date.
LIST_URL = "https://api.cloudrift.ai/api/v1/instance-types/list"
API_VERSION = "2025-03-21"
REQUEST = {
    "version": API_VERSION,
    "data": {"selector": {"ByServiceAndLocation": {"services": ["vm"]}}},
}
GIB = 1024**3

FORMAT = Format(
    "instance types list",
    "/api/v1/instance-types/list",
    (
        Rows(
            "data.instance_types[]",
            {
                "brand_short": "string",
                "variants": "array",
            },
            required=("brand_short", "variants"),
        ),
        Rows(
            "data.instance_types[].variants[]",
            {
                "name": "string",
                "nodes_per_dc": "object",
                "cost_per_hour": "number",
                "cpu_count": "integer",
                "logical_cpu_count": "integer",
                "dram": "integer",
                "disk": "integer",
                "gpu_count": "integer",
                "vram": "integer",
            },
            required=("name", "cost_per_hour", "gpu_count", "nodes_per_dc"),
            prices=("cost_per_hour",),
        ),
    ),
)
VARIANT_FIELDS = FORMAT.required("data.instance_types[].variants[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """One POST for every VM instance type, archived as it arrives (with the request body)."""
    with _http.http_client(PROVIDER, ctx) as client:
        payload = _http.get(ctx, client, LIST_URL, method="POST", json=REQUEST, ext="json")
    ctx.progress("instance-types/list")
    return [payload]


def rows(page: Page) -> list[tuple[str, Any]]:
    """(brand, variant) of every variant of every instance type; ("", type) for a type that
    has no brand or variants list, which offers() refuses."""
    found: list[tuple[str, Any]] = []
    for kind in _instance_types(page):
        brand = str(kind.get("brand_short") or "").strip() if isinstance(kind, dict) else ""
        variants = kind.get("variants") if isinstance(kind, dict) else None
        if not brand or not isinstance(variants, list):
            found.append(("", kind))
            continue
        found += [(brand, variant) for variant in variants]
    return found


def _instance_types(page: Page) -> list[Any]:
    body = page.json()
    payload = page.payload
    if isinstance(body, str):
        raise ParseError(
            f"{PROVIDER}: {payload.url} ({payload.ref or payload.name}) answered {body[:160]!r} "
            f"instead of instance types: the request format (version {API_VERSION}) may have "
            "changed; report it with the archived run"
        )
    data = body.get("data") if isinstance(body, dict) else None
    types = data.get("instance_types") if isinstance(data, dict) else None
    if not isinstance(types, list):
        raise shape_error(PROVIDER, payload, "data.instance_types list", data or body)
    variants = [
        v
        for t in types
        if isinstance(t, dict) and isinstance(t.get("variants"), list)
        for v in t["variants"]
    ]
    if variants:
        require_columns(field_names(variants), VARIANT_FIELDS, payload, PROVIDER)
    return types


def offers(row: tuple[str, Any], page: Page) -> list[Item]:
    """One record per datacenter of a GPU variant, per instance-hour; pure."""
    brand, variant = row
    if not brand:
        why = f"instance type {variant!r:.80} has no brand_short or variants list"
        return [page.reject(why, variant)]
    name = str(variant.get("name", "")) if isinstance(variant, dict) else ""
    if not isinstance(variant, dict) or variant.get("gpu_count") in (0, None):
        return [Skip("a CPU-only variant: nothing to price here", name)]
    try:
        count = parse_count(variant.get("gpu_count"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", variant, name)]
    cents, why = json_price(variant.get("cost_per_hour"), f"{name} cost_per_hour")
    if cents is None:
        return [page.reject(why, variant, name)]
    datacenters = variant.get("nodes_per_dc")
    places = sorted(datacenters) if isinstance(datacenters, dict) else []
    if not places:
        return [Skip("a variant offered in no datacenter today", name)]
    if why := too_many_places(places, name):
        return [page.reject(why, variant, name)]
    vram = variant.get("vram")
    memory = round(vram / GIB) if isinstance(vram, int | float) and vram > 0 else None
    chip = page.chip(brand, memory)
    extra = {"brand_short": brand, "gpu_memory_gb": memory, "price_field": "cost_per_hour / 100",
             **estimate_of(variant)}  # fmt: skip
    return [
        page.record(
            region=dc,
            instance_type=name,
            chip=chip,
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=round(cents / 100, 6),
            sku=name,
            extra={"price_basis": "per instance-hour", **extra, "nodes": datacenters[dc]},
            # logical_cpu_count (vCPUs), dram and disk in bytes (GiB here).
            vcpus=host_spec(variant.get("logical_cpu_count")),
            ram_gb=host_spec(variant.get("dram"), per=GIB),
            disk_gb=host_spec(variant.get("disk"), per=GIB),
        )
        for dc in places
    ]


SOURCE = Source(
    formats=(FORMAT,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "CloudRift public instance-type list: GPU VM variants on demand, per instance and "
        "datacenter"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="CloudRift",
    checked=Checked(
        asks="instance types of the `vm` service",
        against="docs only: the fields gpuhunt and SkyPilot read",
        rest="reconstructed",
    ),
)
parse = SOURCE.parse
