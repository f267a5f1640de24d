"""Massed Compute's VM API (MASSED_COMPUTE_API_KEY): the GPU inventory, each configuration at
its price per instance-hour."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
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
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
)

SOURCE_NAME = "massedcompute"
PROVIDER = "massedcompute"
# Every GPU configuration with its price and capacity; the API takes a bearer key. (The public
# /pricing page prints the same table as a React flight stream, not read here.)
INVENTORY_URL = "https://vm.massedcompute.com/api/v1/gpu-inventory"
API_KEY = _fetch.ApiKey(
    "massed_compute_api_key",
    "MASSED_COMPUTE_API_KEY",
    "Massed Compute",
    "its console (Settings, API)",
)
# description: "4x H100 NVL (94GB) NVLink", "1x RTX A6000 (48GB) [Premium]": the count, the
# GPU, its memory in brackets where given, then words of the variant.
DESCRIPTION = re.compile(
    r"^(?P<count>\d+)\s*x\s+(?P<model>[^(\[]+)(?:\((?P<memory>\d+)\s*GB\))?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
# "[Spot]" in a description: the configuration is interruptible, priced as spot.
SPOT = re.compile(r"\[\s*spot\s*\]", re.IGNORECASE)
# Massed Compute places a VM where it has capacity: the API names regions with capacity, not a
# price per region.
REGION = "global"

FORMAT = Format(
    "GPU inventory v1",
    "/api/v1/gpu-inventory",
    (
        Rows(
            "gpu_inventory.*",
            {
                "instance_type": "object",
                "regions_with_capacity_available": "array",
                "capacity_available": "integer",
            },
            prices=("price_cents_per_hour",),
        ),
        Rows(
            "gpu_inventory.*.instance_type",
            {
                "name": "string",
                "description": "string",
                "price_cents_per_hour": "number",
                "specs": "object",
            },
            required=("name", "description", "price_cents_per_hour"),
        ),
    ),
)
FIELDS = FORMAT.required("gpu_inventory.*.instance_type")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The GPU inventory, archived as it arrives (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"GPU inventory": INVENTORY_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """The inventory's configurations (an object keyed by product name), fields checked."""
    body = page.json()
    found = body.get("gpu_inventory") if isinstance(body, dict) else None
    if not isinstance(found, dict):
        raise shape_error(PROVIDER, page.payload, "gpu_inventory object", body)
    kinds = [entry.get("instance_type") for entry in found.values() if isinstance(entry, dict)]
    if kinds:
        require_columns(field_names(kinds), FIELDS, page.payload, PROVIDER)
    return list(found.values())


def offers(entry: Any, page: Page) -> list[Item]:
    """One record per GPU configuration, at its price per instance-hour; pure."""
    kind = entry.get("instance_type") if isinstance(entry, dict) else None
    if not isinstance(kind, dict):
        return [page.reject("an inventory entry with no instance_type object", entry)]
    name = str(kind.get("name") or "").strip()
    described = DESCRIPTION.match(str(kind.get("description") or "").strip())
    if described is None:
        if name.startswith("cpu"):
            return [Skip("a CPU-only configuration: no accelerator to price", name)]
        why = f"description {kind.get('description')!r} names no '<count>x <GPU>'"
        return [page.reject(why, entry, name)]
    try:
        count = parse_count(described["count"])
    except ValueError as exc:
        return [page.reject(str(exc), entry, name)]
    cell = kind.get("price_cents_per_hour")
    cents, why = json_price(cell, f"{name} price_cents_per_hour")
    model = "spot" if SPOT.search(described["rest"]) else "on_demand"
    if cents is None:  # null: a copy of the configuration pricing it refuses both
        offer = {"region": REGION, "instance_type": name, "pricing_model": model}
        return [page.no_price(why, entry, cell, name, unpriced=offer)]
    memory = float(described["memory"]) if described["memory"] else None
    specs = kind.get("specs") if isinstance(kind.get("specs"), dict) else {}
    regions = entry.get("regions_with_capacity_available") or []
    extra = {
        "price_basis": "per instance-hour (price_cents_per_hour / 100)",
        "description": kind.get("description"),
        "capacity_available": entry.get("capacity_available"),
        "regions_with_capacity": [r.get("name") for r in regions if isinstance(r, dict)],
        **estimate_of(kind),
    }
    return [
        page.record(
            region=REGION,
            instance_type=name,
            chip=page.chip(described["model"].strip(), memory),
            chip_count=float(count),
            pricing_model=model,
            price_per_hour=round(cents / 100, 6),
            sku=name,
            extra={k: v for k, v in extra.items() if v is not None},
            vcpus=host_spec(specs.get("vcpu_count")),
            ram_gb=host_spec(specs.get("memory_gib")),
            disk_gb=host_spec(specs.get("storage_gb")),
        )
    ]


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Massed Compute VM API (needs MASSED_COMPUTE_API_KEY): GPU configurations per "
        "instance-hour, on demand (spot where the configuration says [Spot])"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Massed Compute",
    checked=Checked(
        asks="`GET /api/v1/gpu-inventory` (with `MASSED_COMPUTE_API_KEY`)",
        against=(
            "**mock**: a public API client's test answer (brevdev/cloud), in the shape of the "
            "API's OpenAPI document"
        ),
    ),
)
parse = SOURCE.parse
