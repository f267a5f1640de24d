"""Cudo Compute's machine types (public): the per-GPU-hour price of each GPU machine type per
data centre, with the vCPU, memory, disk and IPv4 rates billed beside it."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import json_price, listed_rows
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
)

SOURCE_NAME = "cudo"
PROVIDER = "cudo"
# Every machine type in every data centre with its component prices, public and without a
# key (what gpuhunt's Cudo provider reads; SkyPilot's fetcher reads it through Cudo's SDK).
MACHINE_TYPES_URL = "https://rest.compute.cudo.org/v1/vms/machine-types-2"
FORMAT = Format(
    "machine types",
    "/v1/vms/machine-types-2",
    (
        Rows(
            "machineTypes[]",
            {
                "dataCenterId": "string",
                "machineType": "string",
                "cpuModel": "string",
                "gpuModel": "string",
                "gpuModelId": "string",
                "minVcpuPerMemoryGib": "number",
                "maxVcpuPerMemoryGib": "integer",
                "minVcpuPerGpu": "integer",
                "maxVcpuPerGpu": "integer",
                "vcpuPriceHr": "object",
                "memoryGibPriceHr": "object",
                "gpuPriceHr": "object",
                "minStorageGibPriceHr": "object",
                "ipv4PriceHr": "object",
                "maxVcpuFree": "integer",
                "totalVcpuFree": "integer",
                "maxMemoryGibFree": "integer",
                "totalMemoryGibFree": "integer",
                "maxGpuFree": "integer",
                "totalGpuFree": "integer",
                "maxStorageGibFree": "integer",
                "totalStorageGibFree": "integer",
            },
            required=("dataCenterId", "machineType", "gpuModel", "gpuPriceHr"),
            prices=(
                "vcpuPriceHr",
                "memoryGibPriceHr",
                "gpuPriceHr",
                "minStorageGibPriceHr",
                "ipv4PriceHr",
            ),
        ),
    ),
)
FIELDS = FORMAT.required("machineTypes[]")
# The rates a VM pays beside its GPUs: extra.resource_rates, by the name the record gives them.
RESOURCES = {"vcpu": "vcpuPriceHr", "memory_gib": "memoryGibPriceHr",
             "storage_gib": "minStorageGibPriceHr", "ipv4": "ipv4PriceHr"}  # fmt: skip
# "A40 (compute mode)", "L40S (graphics mode)": the mode a card runs in, not another chip.
MODE = re.compile(r"\s*\((compute|graphics) mode\)\s*$", re.I)


def fetch(ctx: FetchContext) -> list[Payload]:
    """The machine types, archived as they arrive."""
    return _fetch.one_page(ctx, PROVIDER, MACHINE_TYPES_URL, label="machine types", ext="json")


def rows(page: Page) -> list[Any]:
    """The machine types of every data centre, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "machineTypes", FIELDS, body=page.json())


def offers(kind: Any, page: Page) -> list[Item]:
    """One on-demand record per GPU machine type and data centre, per GPU-hour; pure."""
    name = str(kind.get("machineType") or "").strip() if isinstance(kind, dict) else ""
    place = str(kind.get("dataCenterId") or "").strip() if isinstance(kind, dict) else ""
    if not name or not place:
        return [page.reject(f"machine type {kind!r:.80} has no machineType or dataCenterId", kind)]
    gpu = str(kind.get("gpuModel") or "").strip()
    if not gpu or not kind.get("gpuModelId"):
        return [Skip("a CPU-only machine type: no accelerator to price", name)]
    listed = kind.get("gpuPriceHr")
    price, why = json_price(_value(listed), f"{name} {place} gpuPriceHr")
    if price is None:  # null: a copy of the machine type pricing it there refuses both
        cell = _value(listed) if isinstance(listed, dict) else listed
        offer = {"region": place, "instance_type": f"1x {gpu} ({name})"}
        unpriced = {**offer, "pricing_model": "on_demand"}
        return [page.no_price(why, kind, cell, name, unpriced=unpriced)]
    rates = {key: _value(kind.get(field)) for key, field in RESOURCES.items()}
    extra = {
        "price_basis": "per GPU-hour; vCPU, memory, disk and IPv4 are billed beside it",
        "resource_rates": {key: value for key, value in rates.items() if value is not None},
        "gpu_model": gpu,
        "cpu_model": kind.get("cpuModel"),
        "max_gpus_free": kind.get("maxGpuFree"),
        "gpus_free": kind.get("totalGpuFree"),
        **estimate_of(kind),
    }
    return [
        page.record(
            region=place,
            instance_type=f"1x {gpu} ({name})",
            chip=page.chip(MODE.sub("", gpu)),
            chip_count=1.0,
            pricing_model="on_demand",
            price_per_hour=price,
            sku=name,
            extra={k: v for k, v in extra.items() if v is not None},
        )
    ]


def _value(money: Any) -> Any:
    """A price object's `value` ({"value": "0.05"}: Cudo's decimal string), or None."""
    return money.get("value") if isinstance(money, dict) else None


SOURCE = Source(
    formats=(FORMAT,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Cudo Compute machine types: per-GPU-hour on-demand prices of its GPU VMs per data "
        "centre (vCPU, memory, disk and IPv4 billed separately)"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Cudo Compute",
    checked=Checked(
        asks="`GET /v1/vms/machine-types-2`",
        against=(
            "**mock**: gpuhunt's one machine type; GPU rates derived from SkyPilot's published "
            "Cudo catalog"
        ),
        when="catalog commit 16f33dd",
        rest="the other types' resource rates, CPU models, free counts",
    ),
)
parse = SOURCE.parse
