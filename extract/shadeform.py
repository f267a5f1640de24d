"""Shadeform's instance types (SHADEFORM_API_KEY): one keyed API reselling GPU VMs of about
twenty clouds, each offer kept with the cloud that runs it as its seller."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import Reject
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    Offer,
    json_price,
    listed_rows,
    parse_count,
)
from chipcost.extract._resale import seller, with_part
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
)

SOURCE_NAME = "shadeform"
PROVIDER = "shadeform"
# Every GPU instance type of every cloud Shadeform resells, with the regions it is listed in
# (GET /instances/types of Shadeform's API reference; no filter, so unavailable ones come too).
TYPES_URL = "https://api.shadeform.ai/v1/instances/types"
API_KEY = _fetch.ApiKey(
    "shadeform_api_key",
    "SHADEFORM_API_KEY",
    "Shadeform",
    "its platform (Settings, API key)",
    header="X-API-KEY",
    scheme="",
)
# An availability entry's rental_type -> the record's pricing model. Entries carry it since
# spot came (Shadeform's spot guide: "Every entry in an instance type's `availability` array
# carries a `rental_type`"); an entry without one is on demand, as every entry was before.
RENTAL_TYPES = {"on_demand": "on_demand", None: "on_demand", "spot": "spot"}

FORMAT = Format(
    "instance types v1",
    "/v1/instances/types",
    (
        Rows(
            "instance_types[]",
            {
                "cloud": "string",
                "shade_instance_type": "string",
                "cloud_instance_type": "string",
                "configuration": "object",
                "hourly_price": "number",
                "deployment_type": "string",
                "availability": "array",
                "boot_time": "object",
            },
            required=(
                "cloud",
                "shade_instance_type",
                "cloud_instance_type",
                "configuration",
                "hourly_price",
                "availability",
            ),
            prices=("hourly_price",),
        ),
    ),
)
FIELDS = FORMAT.required("instance_types[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every instance type, archived as it arrives (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"instances/types": TYPES_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """The instance types, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "instance_types", FIELDS, body=page.json())


def offers(row: Any, page: Page) -> list[Item]:
    """One record per entry of an instance type's availability, per instance-hour; pure.

    An entry is on demand (rental_type "on_demand", or none: the answer before spot existed)
    at the type's hourly_price in cents, or spot (rental_type "spot") at its own hourly_price,
    "a decimal string in dollars" (Shadeform's spot guide); each keeps its own `available`.
    The record's provider is Shadeform (who rents and bills it); the cloud that runs it is the
    seller, first in the instance type's name and in extra.seller."""
    try:
        name, count, gpu = _instance_type(row)
    except ValueError as exc:
        # A type named but not read keeps its offers open, whatever their region and model.
        known = {"instance_type": _name(row), "region": None, "pricing_model": None}
        return [page.reject(str(exc), row, offer=known if known["instance_type"] else None)]
    listed = row.get("availability")
    if not isinstance(listed, list):
        why = f"{name}: availability {listed!r:.40} is not a list of regions"
        return [page.reject(why, row, name)]
    if not listed:
        return [Skip("an instance type listed in no region", name)]
    config = row["configuration"]
    memory = config.get("vram_per_gpu_in_gb")
    memory = float(memory) if isinstance(memory, int | float) and memory > 0 else None
    offer = page.offer(
        instance_type=name,
        chip=page.chip(with_part(gpu, config.get("interconnect"), memory), memory),
        chip_count=float(count),
        sku=str(row.get("cloud_instance_type") or ""),  # the seller's own name for it
        extra=_extra(row, config, str(row["cloud"]), memory),
        # The instance's configuration: vcpus, memory_in_gb and storage_in_gb.
        vcpus=host_spec(config.get("vcpus")),
        ram_gb=host_spec(config.get("memory_in_gb")),
        disk_gb=host_spec(config.get("storage_in_gb")),
    )
    # hourly_price is "the hourly price of the instance in cents" (the API reference): the
    # price of every on-demand entry, so one that cannot be read is one reject for all of them.
    cell = row.get("hourly_price")
    cents, why = json_price(cell, f"{name} hourly_price (cents)")
    on_demand = (round(cents / 100, 6) if cents is not None else None, why, cell)
    made = [_entry(offer, place, n, on_demand, page) for n, place in enumerate(listed)]
    kept = [item for item in made if not isinstance(item, Reject)]
    # a reason met by several entries (every on-demand region of a bad price) is one reject
    refused: dict[str, list[Reject]] = {}
    for item in made:
        if isinstance(item, Reject):
            refused.setdefault(item.reason, []).append(item)
    return [*kept, *(item for same in refused.values() for item in _one_reject(same, row, name))]


def _one_reject(rejects: list[Reject], row: Any, name: str) -> list[Item]:
    """One reject of the row for the entries refused for one reason, naming what their offers
    share (a region they differ in matches any); by the type's name where they name none.
    Where a cell saying it has no price is of the offers of several regions, a quiet skip of
    each, so that another copy of the type pricing one refuses both (a reject holds one offer,
    Reject.unpriced)."""
    offers = [r.offer for r in rejects]
    shared = {k: v for k, v in offers[0].items() if all(o.get(k) == v for o in offers)}
    first = rejects[0].unpriced
    one = replace(rejects[0], row=row, sku="" if shared else name, offer=shared, unpriced={})
    if all(r.unpriced == first for r in rejects):
        return [replace(one, unpriced=first)]
    said = [Skip(r.reason, unpriced=r.unpriced, row=row, quiet=True) for r in rejects]
    return [one, *(skip for skip in said if skip.unpriced)]


def _entry(
    offer: Offer, place: object, n: int, on_demand: tuple[float | None, str, object], page: Page
) -> Item:
    """The record of availability[n], or a reject naming the field that cannot be read (and
    the offer a price that cannot be read keeps open); `on_demand`: the type's on-demand price,
    why not, and its cell."""
    where = f"{offer.shared['instance_type']} availability[{n}]"
    region = place.get("region") if isinstance(place, dict) else None
    if not isinstance(place, dict) or not isinstance(region, str) or not region.strip():
        return page.reject(f"{where}: {place!r:.60} names no region", place)
    rental = place.get("rental_type")
    model = RENTAL_TYPES.get(rental) if rental is None or isinstance(rental, str) else None
    if model is None:
        return page.reject(f"{where}: rental_type {rental!r:.40} is not on_demand or spot", place)
    if model == "spot":
        cell = place.get("hourly_price")
        price, why = json_price(cell, f"{where} hourly_price (dollars)")
        basis = "per instance-hour; the spot entry's hourly_price, in dollars"
    else:
        (price, why, cell), basis = on_demand, "per instance-hour; hourly_price / 100"
    if price is None:
        named = {"region": region.strip(), "pricing_model": model}
        named["instance_type"] = offer.shared["instance_type"]
        # null: withdrawn, unless another copy of the type prices it there (both refused)
        return page.no_price(why, place, cell, offer=named, unpriced=named)
    return offer.record(
        region=region.strip(),
        pricing_model=model,
        price_per_hour=price,
        extra={
            "available": place.get("available") is True,
            "region_name": place.get("display_name"),
            "price_basis": basis,
            **estimate_of(place),  # the sample marks an entry's own price apart from its type's
        },
    )


def _name(row: Any) -> str:
    """<cloud>/<shade_instance_type>: "the combination of cloud and shade instance type uniquely
    denotes a GPU instance type" (Shadeform's concepts page); the cloud's own type name alone
    may repeat within a cloud. "" when either is missing."""
    if not isinstance(row, dict):
        return ""
    cloud = str(row.get("cloud") or "").strip()
    shade = str(row.get("shade_instance_type") or "").strip()
    return f"{cloud}/{shade}" if cloud and shade else ""


def _instance_type(row: Any) -> tuple[str, int, str]:
    """(name, GPU count, gpu_type) of one type, or ValueError saying why not."""
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
    gpu = config.get("gpu_type")
    if not isinstance(gpu, str) or not gpu.strip():
        raise ValueError(f"{name}: configuration has no gpu_type ({gpu!r:.40})")
    return name, count, gpu.strip()


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
        **estimate_of(row),
    }
    return {k: v for k, v in extra.items() if v is not None}


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Shadeform instance types (needs SHADEFORM_API_KEY): on-demand (and, where listed, "
        "spot) prices of the GPU VMs of about twenty clouds it resells, per region, the cloud "
        "kept as the seller"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Shadeform",
    checked=Checked(
        asks="`GET /v1/instances/types`, unfiltered",
        against=(
            "**documented example** of `GET /instances/types` (Shadeform's `openapi.yaml`); "
            "listing prices from SkyPilot's published Shadeform catalog"
        ),
        when="docs 2026-03-05",
        rest="cloud instance names, storage, boot times reconstructed",
    ),
)
parse = SOURCE.parse
