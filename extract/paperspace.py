"""Paperspace's machine types (PAPERSPACE_API_KEY): each GPU machine's hourly rate, per
instance-hour, as its console's create-machine form reads them."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec, size_gb
from chipcost.extract._kit import (
    field_names,
    json_price,
    one_each,
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

SOURCE_NAME = "paperspace"
PROVIDER = "paperspace"
# Paperspace's public API (api.paperspace.com/v1) creates and lists machines but prices none;
# the console reads machine types with their default usage rates from this tRPC procedure,
# with the same bearer key.
MACHINE_TYPES_URL = "https://api.paperspace.com/trpc/machines.createFormDataV2"
API_KEY = _fetch.ApiKey(
    "paperspace_api_key",
    "PAPERSPACE_API_KEY",
    "Paperspace",
    "its console (Team settings, API keys)",
)
# Where the answer keeps the list (tRPC's result envelope).
MACHINE_TYPES_PATH = ("result", "data", "json", "machineTypes")
# A usage rate's `type` is its period: the hourly one is the price; a monthly one is kept beside.
HOURLY, MONTHLY = "hourly", "monthly"
# Paperspace prefixes its GPU names with their architecture ("Ampere A6000", "Hopper H100").
ARCHITECTURE = re.compile(r"^(Ampere|Hopper|Ada|Blackwell|Turing|Volta|Pascal)\s+", re.I)
# "A6000x4": a machine of several GPUs, where the metadata gives no count.
COUNT_SUFFIX = re.compile(r"x(\d+)$")
# The price is the same in each region; the regions where the machine is available are kept.
REGION = "global"
GIB = 1024**3

FORMAT = Format(
    "machines createFormDataV2",
    "/trpc/machines.createFormDataV2",
    (
        Rows(
            "result.data.json.machineTypes[]",
            {
                "label": "string",
                "cpus": "integer",
                "ram": "string",
                "gpu": "string|null",
                "metadata": "object",
                "supportsNvlink": "boolean",
                "defaultUsageRates": "array",
                "availability": "array",
            },
            required=("label", "gpu", "defaultUsageRates"),
            prices=("defaultUsageRates",),
        ),
    ),
)
FIELDS = FORMAT.required("result.data.json.machineTypes[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The machine types, archived as they arrive (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"machine types": MACHINE_TYPES_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """The machine types of the tRPC answer (result.data.json.machineTypes), fields checked."""
    body = page.json()
    found: Any = body
    for key in MACHINE_TYPES_PATH:
        found = found.get(key) if isinstance(found, dict) else None
    if not isinstance(found, list):
        raise shape_error(PROVIDER, page.payload, "result.data.json.machineTypes list", body)
    if found:
        require_columns(field_names(found), FIELDS, page.payload, PROVIDER)
    return found


def offers(kind: Any, page: Page) -> list[Item]:
    """One on-demand record per GPU machine type, at its hourly rate per instance-hour."""
    label = str(kind.get("label") or "").strip() if isinstance(kind, dict) else ""
    if not label:
        return [page.reject(f"machine type {kind!r:.80} has no label", kind)]
    gpu = str(kind.get("gpu") or "").strip()
    if not gpu or gpu.lower() == "none":
        return [Skip("a CPU-only machine type: no accelerator to price", label)]
    metadata = kind.get("metadata") if isinstance(kind.get("metadata"), dict) else {}
    try:
        stated = metadata.get("gpu-count")
        count = parse_count(stated if stated is not None else _count_of(label))
    except ValueError as exc:
        return [page.reject(f"{label}: {exc}", kind, label)]
    listed = [r for r in kind["defaultUsageRates"] or [] if isinstance(r, dict)]
    rates = one_each(listed, key=lambda r: r.get("type"), price=lambda r: r.get("rate"))
    if why := rates.conflict(HOURLY, f"{label}'s usage rate"):
        return [page.reject(why, kind, label)]
    hourly = rates.entries.get(HOURLY)
    if hourly is None:
        return [Skip("no hourly rate: rented by the month only", label)]
    price, why = json_price(hourly.get("rate"), f"{label} hourly rate")
    if price is None:  # null: a copy of the machine type pricing it refuses both
        offer = {"region": REGION, "instance_type": label, "pricing_model": "on_demand"}
        cell = hourly.get("rate")
        return [page.no_price(why, kind, cell, label, unpriced=offer)]
    available = [a.get("region") for a in kind.get("availability") or [] if isinstance(a, dict)]
    monthly = rates.entries.get(MONTHLY)
    extra = {
        "price_basis": "defaultUsageRates, type hourly: per instance-hour",
        "rate_description": hourly.get("description"),
        "monthly_rate": monthly.get("rate") if monthly else None,
        "gpu": gpu,
        "available_in": [r for r in available if r] or None,
        **estimate_of(kind),
    }
    memory = size_gb(metadata.get("gpu-memory"))
    return [
        page.record(
            region=REGION,
            instance_type=label,
            chip=page.chip(ARCHITECTURE.sub("", gpu), memory),
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=price,
            sku=label,
            extra={k: v for k, v in extra.items() if v is not None},
            vcpus=host_spec(kind.get("cpus")),
            ram_gb=host_spec(_number(kind.get("ram")), per=GIB),
        )
    ]


def _count_of(label: str) -> int:
    found = COUNT_SUFFIX.search(label)
    return int(found[1]) if found else 1


def _number(text: object) -> float | None:
    """RAM in bytes, sent as a string ("193273528320": 180 GiB)."""
    try:
        return float(str(text))
    except ValueError:
        return None


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Paperspace machine types (needs PAPERSPACE_API_KEY): GPU machines at their hourly "
        "rate per instance-hour, on demand; one price for every region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Paperspace",
    checked=Checked(
        asks="the console's `machines.createFormDataV2` (with `PAPERSPACE_API_KEY`)",
        against="docs only: the fields two public scrapers of it read",
        rest="reconstructed, every value made up",
    ),
)
parse = SOURCE.parse
