"""Mithril's spot auction (MITHRIL_API_KEY): the last clearing price of each instance type in
each region, its GPUs read from Mithril's instance types."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    PER_INSTANCE,
    field_names,
    load_json,
    parse_count,
    price_of,
    require_columns,
    shape_error,
)
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Source,
    each_row,
)

SOURCE_NAME = "mithril"
PROVIDER = "mithril"
API_URL = "https://api.mithril.ai/v2"
# What each instance type is (its GPUs), and every spot auction with its last price; the
# two answers SkyPilot's fetch_mithril.py joins into its Mithril catalog.
TYPES_URL = f"{API_URL}/instance-types"
AVAILABILITY_URL = f"{API_URL}/spot/availability"
API_KEY = _fetch.ApiKey(
    "mithril_api_key", "MITHRIL_API_KEY", "Mithril", "its console (Account, API keys)"
)

TYPES = Format(
    "instance types v2",
    "/v2/instance-types",
    (
        Rows(
            "[]",
            {
                "fid": "string",
                "name": "string",
                "gpu_type": "string",
                "num_gpus": "integer",
                "gpu_memory_gb": "integer",
                "num_cpus": "integer",
                "ram_gb": "integer",
            },
            required=("fid", "name", "gpu_type", "num_gpus"),
        ),
    ),
)
AUCTIONS = Format(
    "spot availability v2",
    "/v2/spot/availability",
    (
        Rows(
            "[]",
            {
                "fid": "string",
                "instance_type": "string",
                "region": "string",
                "capacity": "integer",
                "last_instance_price": "string",
            },
            required=("instance_type", "region", "last_instance_price"),
            prices=("last_instance_price",),
        ),
    ),
)
TYPE_FIELDS = TYPES.required("[]")
AUCTION_FIELDS = AUCTIONS.required("[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The instance types, then the spot auctions, archived as they arrive (the key never)."""
    return _fetch.keyed_get(
        ctx, PROVIDER, {"instance types": TYPES_URL, "spot availability": AVAILABILITY_URL}, API_KEY
    )


def listed(payload: Payload, fields: Sequence[str]) -> list[Any]:
    """The list an answer is (both answers are bare JSON lists), its fields checked."""
    body = load_json(payload, PROVIDER)
    if not isinstance(body, list):
        raise shape_error(PROVIDER, payload, "list", body)
    if body:
        require_columns(field_names(body), fields, payload, PROVIDER)
    return body


def instance_types(payloads: Sequence[Payload]) -> dict[str, dict[str, Any]]:
    """Each instance type by its fid, from the instance-types answer(s)."""
    found: dict[str, dict[str, Any]] = {}
    for payload in payloads:
        if payload.url == TYPES_URL:
            for kind in listed(payload, TYPE_FIELDS):
                if isinstance(kind, dict) and kind.get("fid"):
                    found[str(kind["fid"])] = kind
    return found


def rows(page: Page) -> list[Any]:
    """The spot auctions of one availability answer, their fields checked."""
    return listed(page.payload, AUCTION_FIELDS)


def offers(types: dict[str, dict[str, Any]], auction: Any, page: Page) -> list[Item]:
    """A spot record per auction: its last clearing price per instance-hour; pure."""
    fid = str(auction.get("instance_type") or "") if isinstance(auction, dict) else ""
    region = str(auction.get("region") or "") if isinstance(auction, dict) else ""
    kind = types.get(fid)
    if kind is None or not region:
        why = f"auction {auction!r:.80}: no region, or instance type {fid!r} is not listed"
        return [page.reject(why, auction, fid)]
    name = str(kind.get("name") or fid)
    # A count or price that cannot be read keeps the auction's offer open.
    offer = {"region": region, "instance_type": name, "pricing_model": "spot"}
    try:
        count = parse_count(kind.get("num_gpus"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", auction, offer=offer)]
    # Prices come as dollar strings ("$12.00"): the one place this API writes a currency mark.
    cell = auction.get("last_instance_price")
    price, why = price_of(cell, f"{name} {region} last_instance_price", PER_INSTANCE)
    if price is None:  # null: withdrawn, unless another copy of the auction prices it
        return [page.no_price(why, auction, cell, offer=offer, unpriced=offer)]
    memory = kind.get("gpu_memory_gb")
    memory = float(memory) if isinstance(memory, int | float) and memory > 0 else None
    return [
        page.record(
            **offer,
            chip=page.chip(str(kind.get("gpu_type") or ""), memory),
            chip_count=float(count),
            price_per_hour=price,
            sku=fid,
            extra=_extra(kind, auction),
            # The instance type's num_cpus and ram_gb; no disk is listed.
            vcpus=host_spec(kind.get("num_cpus")),
            ram_gb=host_spec(kind.get("ram_gb")),
        )
    ]


def _extra(kind: dict, auction: dict) -> dict[str, Any]:
    minimum, _ = price_of(auction.get("min_bid_price"), "min_bid_price", PER_INSTANCE)
    extra = {
        "price_basis": "per instance-hour: the auction's last clearing price",
        "auction": auction.get("fid"),
        "capacity": auction.get("capacity"),
        "min_bid_price": minimum,
        "gpu_type": kind.get("gpu_type"),
        "gpu_memory_gb": kind.get("gpu_memory_gb"),
        **estimate_of(auction),
    }
    return {k: v for k, v in extra.items() if v is not None}


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Spot records of the availability answer(s), each auction's type read from the
    instance-types answer of the same run; pure."""
    auctions = [p for p in payloads if p.url != TYPES_URL]
    each = partial(offers, instance_types(payloads))
    return each_row(auctions, SOURCE_NAME, PROVIDER, rows=rows, offers=each)


SOURCE = Source(
    formats=(
        TYPES,
        AUCTIONS,
    ),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Mithril spot auction (needs MITHRIL_API_KEY): the last clearing price of each GPU "
        "instance type per region, per instance"
    ),
    fetch=fetch,
    parse=parse,
    title="Mithril",
    checked=Checked(
        asks="`GET /v2/instance-types`, then `GET /v2/spot/availability`",
        against=(
            "docs only: SkyPilot's fetcher and Mithril's Flow SDK models (field lists); prices per"
            " region from SkyPilot's published Mithril catalog"
        ),
        when="catalog commit 1ba9415",
        rest="both answers reconstructed: most fids, auction ids, capacities",
    ),
)
