"""SimplePod's GPU marketplace (SIMPLEPOD_API_KEY): the per-GPU-hour price of each GPU model its
machines rent, summarised per model and location."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of, estimate_of_all
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import (
    field_names,
    json_price,
    market_medians,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "simplepod"
PROVIDER = "simplepod"
# The machines on the market now, one page of up to 1,000 (SkyPilot's fetch_simplepod_cloud.py
# asks the same); the answer is a bare JSON list.
MARKET_URL = "https://api.simplepod.ai/instances/market/list?rentalStatus=active&itemsPerPage=1000"
API_KEY = _fetch.ApiKey(
    "simplepod_api_key",
    "SIMPLEPOD_API_KEY",
    "SimplePod",
    "its dashboard (API keys)",
    header="X-AUTH-TOKEN",
    scheme="",
)
FORMAT = Format(
    "market list",
    "/instances/market/list",
    (
        Rows(
            "[]",
            {
                "id": "integer",
                "instanceMarket": "string",
                "gpuModel": "string",
                "gpuCount": "integer",
                "gpuMemorySize": "integer",
                "cpuCoreCount": "integer",
                "systemMemory": "integer",
                "pricePerGpu": "number",
                "rentalStatus": "string",
                "isAvailableForDemand": "boolean",
                "rig": "object",
            },
            required=("gpuModel", "gpuCount", "pricePerGpu", "rig"),
            prices=("pricePerGpu",),
        ),
    ),
)
FIELDS = FORMAT.required("[]")
MIB_PER_GB = 1024  # gpuMemorySize is in MiB (12288 for a 12 GB RTX 3060)


def fetch(ctx: FetchContext) -> list[Payload]:
    """The market's active machines, archived as they arrive (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"market": MARKET_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """The market's machines (a bare list), their fields checked."""
    body = page.json()
    if not isinstance(body, list):
        raise shape_error(PROVIDER, page.payload, "list of market machines", body)
    if body:
        require_columns(field_names(body), FIELDS, page.payload, PROVIDER)
    return body


def offers(machine: Any, page: Page) -> list[Item]:
    """A record of one GPU of a machine at its pricePerGpu; combine() summarises each model
    and location to its median."""
    ref = str(machine.get("id") or "")
    model = str(machine.get("gpuModel") or "").strip()
    if not model:
        return [page.reject("machine has no gpuModel", machine, ref)]
    rig = machine.get("rig") if isinstance(machine.get("rig"), dict) else {}
    where = "-".join(str(rig[k]).strip() for k in ("region", "country") if rig.get(k))
    if not where:
        return [page.reject(f"{ref}: its rig names no region or country", machine, ref)]
    if machine.get("isAvailableForDemand") is False:
        return [Skip("a machine not rentable on demand now", ref)]
    # Its market: a machine whose count or price cannot be read keeps the market's offer open.
    offer = {"region": where, "instance_type": f"1x {model}", "pricing_model": "on_demand"}
    try:
        gpus = parse_count(machine.get("gpuCount"))
    except ValueError as exc:
        return [page.reject(f"{ref}: {exc}", machine, offer=offer)]
    cell = machine.get("pricePerGpu")
    price, why = json_price(cell, f"{ref} pricePerGpu")
    if price is None:
        return [page.no_price(why, machine, cell, offer=offer)]
    memory = machine.get("gpuMemorySize")
    gb = memory / MIB_PER_GB if isinstance(memory, int | float) and memory > 0 else None
    extra = {"price_basis": "per GPU-hour (pricePerGpu)", "gpus": gpus, "machine": ref,
             **estimate_of(machine)}  # fmt: skip
    return [
        page.record(
            **offer,
            chip=page.chip(model, gb),
            chip_count=1.0,
            price_per_hour=price,
            sku=model,
            extra=extra,
        )
    ]


def combine(records: list[PriceRecord], page: Page) -> list[PriceRecord]:
    """One record per GPU model and location: the median per-GPU price of its machines, with
    the spread, machine count and GPUs beside it."""
    return market_medians(records, lambda r: (r.instance_type, r.region), "machines", _market)


def _market(same: list[PriceRecord], cheapest: PriceRecord) -> dict[str, Any]:
    """The cheapest machine's price basis, the GPUs of all of them and their marks."""
    return {
        "price_basis": cheapest.extra["price_basis"],
        "gpus": sum(r.extra["gpus"] for r in same),
        **estimate_of_all(r.extra for r in same),
    }


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "SimplePod marketplace API (needs SIMPLEPOD_API_KEY): the median per-GPU-hour price of "
        "each GPU model per location, on demand"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    combine=combine,
    title="SimplePod",
    checked=Checked(
        asks="`GET /instances/market/list?rentalStatus=active&itemsPerPage=1000`",
        against=(
            "docs only: SkyPilot's fetcher and a public TypeScript client (field lists); machines "
            "and prices from SkyPilot's published SimplePod catalog"
        ),
        when="catalog commit 1010b75",
        rest="the whole answer reconstructed",
    ),
)
parse = SOURCE.parse
