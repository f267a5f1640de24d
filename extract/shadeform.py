"""Shadeform's instance types (SHADEFORM_API_KEY): one keyed API reselling GPU VMs of about
twenty clouds, each offer kept with the cloud that runs it as its seller."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _http
from chipcost.extract._kit import host_spec, json_price, listed_rows, missing_key, parse_count
from chipcost.extract._resale import seller, with_part
from chipcost.extract.base import FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "shadeform"
PROVIDER = "shadeform"
# Every GPU instance type of every cloud Shadeform resells, with the regions it is listed in
# (GET /instances/types of Shadeform's API reference; no filter, so unavailable ones come too).
TYPES_URL = "https://api.shadeform.ai/v1/instances/types"
API_KEY_ENV = "SHADEFORM_API_KEY"  # declared in SOURCE.settings; named in messages
FIELDS = ("cloud", "shade_instance_type", "cloud_instance_type", "configuration",
          "hourly_price", "availability")  # fmt: skip


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every instance type, archived as it arrives (the key never)."""
    key = ctx.settings.shadeform_api_key
    if not key:
        raise missing_key(API_KEY_ENV, "Shadeform", "its platform (Settings, API key)")
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV) as client:
        payload = _http.get(ctx, client, TYPES_URL, headers={"X-API-KEY": key}, ext="json")
    ctx.progress("instances/types")
    return [payload]


def rows(page: Page) -> list[Any]:
    """The instance types, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "instance_types", FIELDS, body=page.json())


def offers(row: Any, page: Page) -> list[Item]:
    """One on-demand record per region an instance type is listed in, per instance-hour; pure.

    The record's provider is Shadeform (who rents and bills it); the cloud that runs it is the
    seller, first in the instance type's name and in extra.seller."""
    try:
        name, count, gpu, cents = _instance_type(row)
    except ValueError as exc:
        return [page.reject(str(exc), row, _name(row))]
    places = [a for a in row.get("availability") or [] if isinstance(a, dict) and a.get("region")]
    if not places:
        return [Skip("an instance type listed in no region", name)]
    config = row["configuration"]
    memory = config.get("vram_per_gpu_in_gb")
    memory = float(memory) if isinstance(memory, int | float) and memory > 0 else None
    offer = page.offer(
        instance_type=name,
        chip=page.chip(with_part(gpu, config.get("interconnect"), memory), memory),
        chip_count=float(count),
        pricing_model="on_demand",
        # hourly_price is "the hourly price of the instance in cents" (the API reference).
        price_per_hour=round(cents / 100, 6),
        sku=str(row.get("cloud_instance_type") or ""),  # the seller's own name for it
        extra=_extra(row, config, str(row["cloud"]), memory),
        # The instance's configuration: vcpus, memory_in_gb and storage_in_gb.
        vcpus=host_spec(config.get("vcpus")),
        ram_gb=host_spec(config.get("memory_in_gb")),
        disk_gb=host_spec(config.get("storage_in_gb")),
    )
    return [
        offer.record(
            region=str(place["region"]),
            extra={
                "available": place.get("available") is True,
                "region_name": place.get("display_name"),
            },
        )  # fmt: skip
        for place in places
    ]


def _name(row: Any) -> str:
    """<cloud>/<shade_instance_type>: "the combination of cloud and shade instance type uniquely
    denotes a GPU instance type" (Shadeform's concepts page); the cloud's own type name alone
    may repeat within a cloud. "" when either is missing."""
    if not isinstance(row, dict):
        return ""
    cloud = str(row.get("cloud") or "").strip()
    shade = str(row.get("shade_instance_type") or "").strip()
    return f"{cloud}/{shade}" if cloud and shade else ""


def _instance_type(row: Any) -> tuple[str, int, str, float]:
    """(name, GPU count, gpu_type, price in cents) of one type, or ValueError saying why not."""
    name = _name(row)
    if not name:
        raise ValueError(f"instance type {row!r:.80} has no cloud or shade_instance_type")
    config = row.get("configuration")
    if not isinstance(config, dict):
        raise ValueError(f"{name}: configuration is not an object")
    try:
        count = parse_count(config.get("num_gpus"))
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from exc
    gpu = str(config.get("gpu_type") or "").strip()
    cents, why = json_price(row.get("hourly_price"), f"{name} hourly_price (cents)")
    if cents is None or not gpu:
        raise ValueError(why or f"{name}: configuration has no gpu_type")
    return name, count, gpu, cents


def _extra(row: dict, config: dict, cloud: str, memory: float | None) -> dict[str, Any]:
    extra = {
        **seller(cloud, "shadeform"),
        "cloud_instance_type": row.get("cloud_instance_type"),
        "shade_instance_type": row.get("shade_instance_type"),
        "gpu_type": config.get("gpu_type"),
        "gpu_memory_gb": memory,
        "vcpus": config.get("vcpus"),
        "memory_gb": config.get("memory_in_gb"),
        "interconnect": config.get("interconnect"),
        "deployment_type": row.get("deployment_type"),
        "price_basis": "per instance-hour; hourly_price / 100",
    }
    return {k: v for k, v in extra.items() if v is not None}


SOURCE = Source(
    settings={"shadeform_api_key": API_KEY_ENV},
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Shadeform instance types (needs SHADEFORM_API_KEY): on-demand prices of the GPU VMs "
        "of about twenty clouds it resells, per region, the cloud kept as the seller"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
)
parse = SOURCE.parse
