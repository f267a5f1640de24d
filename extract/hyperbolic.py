"""Hyperbolic's VM catalog (HYPERBOLIC_API_KEY): on-demand prices of its GPU VM shapes, the
catalog Hyperbolic serves for SkyPilot."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import Offer, json_price, listed_rows, parse_count
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
)

SOURCE_NAME = "hyperbolic"
PROVIDER = "hyperbolic"
# Every VM shape with its price, in SkyPilot's catalog columns (SkyPilot's
# fetch_hyperbolic.py reads it and writes each entry as a row of its vms.csv).
CATALOG_URL = "https://api.hyperbolic.xyz/v2/skypilot/catalog"
API_KEY = _fetch.ApiKey(
    "hyperbolic_api_key", "HYPERBOLIC_API_KEY", "Hyperbolic", "its app (Settings, API key)"
)
FORMAT = Format(
    "SkyPilot catalog v2",
    "/v2/skypilot/catalog",
    (
        Rows(
            "vms[]",
            {
                "InstanceType": "string",
                "AcceleratorName": "string",
                "AcceleratorCount": "integer",
                "vCPUs": "integer",
                "MemoryGiB": "integer",
                "StorageGiB": "integer",
                "Price": "number",
                "Region": "string",
                "GpuInfo": "object",
                "SpotPrice": "null",
            },
            required=(
                "InstanceType",
                "AcceleratorName",
                "AcceleratorCount",
                "Price",
                "Region",
                "GpuInfo",
            ),
            prices=("Price", "SpotPrice"),
        ),
    ),
)
FIELDS = FORMAT.required("vms[]")
# Hyperbolic lists every shape in Region "default": it names no place, so the record says global.
UNPLACED = {"default": "global", "": "global"}
MIB_PER_GB = 1024


def fetch(ctx: FetchContext) -> list[Payload]:
    """The VM catalog, archived as it arrives (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"skypilot catalog": CATALOG_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """The catalog's VM shapes, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "vms", FIELDS, body=page.json())


def offers(vm: Any, page: Page) -> list[Item]:
    """An on-demand record per VM shape (and a spot one where it has a spot price), per
    instance-hour; pure."""
    name = str(vm.get("InstanceType") or "").strip() if isinstance(vm, dict) else ""
    gpu = str(vm.get("AcceleratorName") or "").strip() if isinstance(vm, dict) else ""
    if not name or not gpu:
        return [page.reject(f"VM {vm!r:.80} has no InstanceType or AcceleratorName", vm)]
    try:
        count = parse_count(vm.get("AcceleratorCount"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", vm, name)]
    region = str(vm.get("Region") or "").strip()
    memory, model = _gpu_info(vm.get("GpuInfo"))
    offer = page.offer(
        region=UNPLACED.get(region.lower(), region),
        instance_type=name,
        chip=page.chip(_spelling(gpu, model), memory),
        chip_count=float(count),
        sku=name,
        extra=_extra(vm, region, memory, model),
        vcpus=host_spec(vm.get("vCPUs")),
        ram_gb=host_spec(vm.get("MemoryGiB")),
        disk_gb=host_spec(vm.get("StorageGiB")),
    )
    price, why = json_price(vm.get("Price"), f"{name} Price")
    # null: a copy of the shape pricing it refuses both (Page.no_price), as priced twice
    made: list[Item] = [
        offer.record(pricing_model="on_demand", price_per_hour=price)
        if price is not None
        else page.no_price(why, vm, vm.get("Price"), name, unpriced=_of(offer, "on_demand"))
    ]
    spot = vm.get("SpotPrice")
    if spot in (None, ""):  # not sold on spot: said nowhere, unless a copy prices it there
        _, why = json_price(spot, f"{name} SpotPrice")
        return [*made, Skip(why, unpriced=_of(offer, "spot"), row=vm, quiet=True)]
    if spot == 0:
        return made  # no spot price: not sold on spot
    spot_price, why = json_price(spot, f"{name} SpotPrice")
    if spot_price is None:
        return [*made, page.no_price(why, vm, spot, name, unpriced=_of(offer, "spot"))]
    return [*made, offer.record(pricing_model="spot", price_per_hour=spot_price)]


def _of(offer: Offer, model: str) -> dict[str, str]:
    """The key of `offer` under `model` (Page.no_price's `unpriced`)."""
    return {**offer.shared, "pricing_model": model}


def _gpu_info(info: Any) -> tuple[float | None, str | None]:
    """(GB per GPU, the GPU's full name) from GpuInfo's first GPU, when it states them."""
    gpus = info.get("Gpus") if isinstance(info, dict) else None
    first = gpus[0] if isinstance(gpus, list) and gpus and isinstance(gpus[0], dict) else {}
    info_memory = first.get("MemoryInfo")
    size = info_memory.get("SizeInMiB") if isinstance(info_memory, dict) else None
    memory = round(size / MIB_PER_GB, 1) if isinstance(size, int | float) and size > 0 else None
    return memory, first.get("Name")


def _spelling(accelerator: str, model: object) -> str:
    """GpuInfo's GPU name where it states one ("NVIDIA-H100-80GB-HBM3": the SXM part, which
    AcceleratorName "H100" does not say), else AcceleratorName. A stated name chipcost does
    not know is not passed over for the shorter one: the record is `unknown`, named in the
    notes."""
    if isinstance(model, str) and model.strip():
        return model.strip()
    return accelerator


def _extra(vm: dict, region: str, memory: float | None, model: Any) -> dict[str, Any]:
    extra = {
        "gpu_model": model,
        "gpu_memory_gb": memory,
        "region_listed": region if region.lower() in UNPLACED else None,
        "price_basis": "per instance-hour",
        **estimate_of(vm),
    }
    return {k: v for k, v in extra.items() if v is not None}


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Hyperbolic VM catalog (needs HYPERBOLIC_API_KEY): on-demand (and, where listed, spot) "
        "prices of its GPU VM shapes, per instance"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Hyperbolic",
    checked=Checked(
        asks="`GET /v2/skypilot/catalog`",
        against=(
            "**recorded** catalog rows: SkyPilot's published Hyperbolic catalog, written entry by "
            "entry from this endpoint's answer, read back into it"
        ),
        when="catalog commit 00e7b16",
        rest="the JSON types of the numbers, `SpotPrice` null",
    ),
)
parse = SOURCE.parse
