"""JarvisLabs' server metadata (JL_API_KEY): per-GPU prices of VMs and containers per region."""

from __future__ import annotations

from typing import Any

from chipcost.core.catalog import listed_spelling
from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import json_price, listed_rows
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
)

SOURCE_NAME = "jarvislabs"
PROVIDER = "jarvislabs"
# What JarvisLabs' own SDK reads to list GPU types, prices and free devices per region.
SERVER_META_URL = "https://backendn.jarvislabs.net/misc/server_meta"
API_KEY = _fetch.ApiKey(
    "jarvislabs_api_key", "JL_API_KEY", "JarvisLabs", "its dashboard (API keys)"
)
FORMAT = Format(
    "server meta",
    "/misc/server_meta",
    (
        Rows(
            "server_meta[]",
            {
                "gpu_type": "string",
                "region": "string",
                "num_free_devices": "integer",
                "effective_num_free_devices": "integer",
                "spot_num_free_devices": "integer",
                "price_per_hour": "number",
                "spot_price": "number|null",
                "vram": "string",
                "cpus_per_gpu": "integer",
                "ram_per_gpu": "integer",
                "workload_type": "string|null",
                "num_gpus": "string",
            },
            required=("gpu_type", "region", "price_per_hour"),
            prices=("price_per_hour", "spot_price"),
        ),
    ),
)
FIELDS = FORMAT.required("server_meta[]")
# workload_type -> the kind of instance in the offer's name. Rows without one are the older
# VM-capable rows (gpuhunt provisions VMs from them).
KINDS = {"vm": "VM", None: "VM", "container": "container"}


def fetch(ctx: FetchContext) -> list[Payload]:
    """The server metadata, archived as it arrives (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"server_meta": SERVER_META_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """The rows of server_meta, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "server_meta", FIELDS, body=page.json())


def offers(row: Any, page: Page) -> list[Item]:
    """One record per pricing model of a GPU type, region and kind, per GPU-hour; pure."""
    gpu = str(row.get("gpu_type") or "").strip() if isinstance(row, dict) else ""
    region = str(row.get("region") or "").strip() if isinstance(row, dict) else ""
    workload = row.get("workload_type") if isinstance(row, dict) else ""
    kind = KINDS.get(workload, "") if workload is None or isinstance(workload, str) else ""
    if not gpu or not region or not kind:
        why = f"server_meta row {row!r:.80} has no gpu_type, region or known workload_type"
        return [page.reject(why, row, gpu)]
    # One name per card: JarvisLabs writes the RTX PRO 6000 "RTX PRO 6000" in one region and
    # "RTX-PRO6000" in another, which made two offers of one card.
    name = f"1x {listed_spelling(gpu)} {kind}"
    chip = page.chip(gpu, _number(row.get("vram")))
    # Spot is sold for containers only; a VM row's spot_price is not a price one can rent at.
    prices = [("on_demand", "price_per_hour")]
    made: list[Item] = []
    if kind == "container" and row.get("spot_price") not in (None, 0):
        prices.append(("spot", "spot_price"))
    elif kind == "container" and row.get("spot_price") is None:
        # not sold on spot: said nowhere, unless another copy of the row prices it (both refused)
        spot = {"region": region, "instance_type": name, "pricing_model": "spot"}
        _, why = json_price(None, f"{name} {region} spot_price")
        made.append(Skip(why, unpriced=spot, row=row, quiet=True))
    for model, field in prices:
        price, why = json_price(row.get(field), f"{name} {region} {field}")
        if price is None:  # null: a copy of the row pricing it refuses both
            offer = {"region": region, "instance_type": name, "pricing_model": model}
            made.append(page.no_price(why, row, row.get(field), gpu, unpriced=offer))
            continue
        made.append(_offer(page, row, (name, region, chip, model, price)))
    return made


def _number(value: object) -> float | None:
    """vram and num_gpus arrive as strings ("80"); None when not a positive number."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _offer(page: Page, row: dict, offer: tuple[str, str, str, str, float]) -> PriceRecord:
    name, region, chip, model, price = offer
    extra = {
        "price_basis": "per GPU-hour",
        "gpu_memory_gb": _number(row.get("vram")),
        "max_gpus": _number(row.get("num_gpus")),
        "free_gpus": row.get("spot_num_free_devices" if model == "spot" else "num_free_devices"),
        "workload_type": row.get("workload_type"),
        **estimate_of(row),
    }
    return page.record(
        region=region,
        instance_type=name,
        chip=chip,
        chip_count=1.0,
        pricing_model=model,
        price_per_hour=price,
        sku=str(row.get("gpu_type")),
        extra={k: v for k, v in extra.items() if v is not None},
        # One GPU is rented with cpus_per_gpu vCPUs and ram_per_gpu GB; no disk is listed.
        vcpus=host_spec(row.get("cpus_per_gpu")),
        ram_gb=host_spec(row.get("ram_per_gpu")),
    )


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "JarvisLabs server metadata (needs JL_API_KEY): per-GPU on-demand prices of VMs and "
        "containers, and container spot prices, per region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="JarvisLabs",
    checked=Checked(
        asks="`server_meta`",
        against="**mock**: gpuhunt's `server_meta`",
        when="2026-05 to 2026-06",
    ),
)
parse = SOURCE.parse
