"""Hyperstack's Infrahub API (HYPERSTACK_API_KEY): its GPU flavors per region, priced from its
pricebook's per-GPU-hour rates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import _fetch
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    Lookup,
    field_names,
    json_price,
    listed_rows,
    load_json,
    one_each,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source, each_row

SOURCE_NAME = "hyperstack"
PROVIDER = "hyperstack"
# The flavors (GPU, count, vCPUs, RAM per region) and the pricebook (hourly rate per resource,
# a GPU model by name): what SkyPilot's Hyperstack fetcher joins to price each flavor.
FLAVORS_URL = "https://infrahub-api.nexgencloud.com/v1/core/flavors"
PRICEBOOK_URL = "https://infrahub-api.nexgencloud.com/v1/pricebook"
API_KEY = _fetch.ApiKey(
    "hyperstack_api_key",
    "HYPERSTACK_API_KEY",
    "Hyperstack",
    "its console (API keys)",
    header="api_key",
    scheme="",
    accept_json=True,
)
# Marks a group whose `flavors` is no list, or a flavor that is no object: a reject, not a loss.
UNREAD = "unreadable"

FLAVORS = Format(
    "core flavors v1",
    "/v1/core/flavors",
    (
        Rows(
            "data[]",
            {
                "gpu": "string",
                "region_name": "string",
                "flavors": "array",
            },
            required=("gpu", "region_name", "flavors"),
        ),
        Rows(
            "data[].flavors[]",
            {
                "id": "integer",
                "name": "string",
                "display_name": "null",
                "region_name": "string",
                "cpu": "integer",
                "ram": "number",
                "disk": "integer",
                "ephemeral": "integer",
                "gpu": "string",
                "gpu_count": "integer",
                "stock_available": "boolean",
                "created_at": "string",
                "labels": "array",
                "features": "object",
            },
        ),
    ),
)
PRICEBOOK = Format(
    "pricebook v1",
    "/v1/pricebook",
    (
        Rows(
            "[]",
            {
                "id": "integer",
                "name": "string",
                "value": "number|string",
                "original_value": "number|string",
                "discount_applied": "boolean",
                "start_time": "null",
                "end_time": "null",
            },
            required=("name", "original_value"),
        ),
    ),
)
GROUP_FIELDS = FLAVORS.required("data[]")
PRICE_FIELDS = PRICEBOOK.required("[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricebook, then the flavors, archived as they arrive (the key never)."""
    return _fetch.keyed_get(
        ctx, PROVIDER, {"pricebook": PRICEBOOK_URL, "flavors": FLAVORS_URL}, API_KEY
    )


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU flavor and region, per instance-hour; pure."""
    books = [p for p in payloads if p.url == PRICEBOOK_URL]
    if not books:
        raise ParseError(
            f"{PROVIDER}: no pricebook ({PRICEBOOK_URL}) among the payloads: the flavors cannot "
            "be priced; re-run the collection"
        )
    rates = pricebook(books[-1])
    flavors = [p for p in payloads if p.url != PRICEBOOK_URL]
    return each_row(
        flavors, SOURCE_NAME, PROVIDER, rows=rows, offers=lambda row, page: offers(row, page, rates)
    )


def pricebook(payload: Payload) -> Lookup[str, dict[str, Any]]:
    """The pricebook's entries by resource name (the answer is a bare list); a name listed
    at two rates prices nothing."""
    body = load_json(payload, PROVIDER)
    if not isinstance(body, list):
        raise shape_error(PROVIDER, payload, "pricebook list", body)
    if body:
        require_columns(field_names(body), PRICE_FIELDS, payload, PROVIDER)
    return one_each(
        body,
        key=lambda e: str(e["name"]) if isinstance(e, dict) and e.get("name") else None,
        price=lambda e: (e.get("original_value"), e.get("value")),
    )


def rows(page: Page) -> list[Any]:
    """Every flavor of every GPU and region group, with its group's GPU and region."""
    groups = listed_rows(page.payload, PROVIDER, "data", GROUP_FIELDS, body=page.json())
    found: list[Any] = []
    for group in groups:
        flavors = group.get("flavors") if isinstance(group, dict) else None
        if not isinstance(flavors, list):
            found.append({UNREAD: group})  # refused in offers(), not dropped
            continue
        where = {"group_gpu": group.get("gpu"), "group_region": group.get("region_name")}
        found += [{**where, **f} if isinstance(f, dict) else {UNREAD: f} for f in flavors]
    return found


def offers(flavor: Any, page: Page, rates: Lookup[str, dict[str, Any]]) -> list[Item]:
    """The flavor at its GPU's list rate (original_value) times its GPU count; pure."""
    if UNREAD in flavor:
        return [
            page.reject(f"a flavor group or flavor that is not an object: {flavor!r:.80}", flavor)
        ]
    name = str(flavor.get("name") or "").strip()
    gpu = str(flavor.get("gpu") or flavor.get("group_gpu") or "").strip()
    region = str(flavor.get("region_name") or flavor.get("group_region") or "").strip()
    if not gpu or flavor.get("gpu_count") in (0, None):
        return [Skip("a CPU-only flavor", name)]
    if not name or not region:
        return [page.reject(f"flavor {flavor!r:.80} has no name or region", flavor, gpu)]
    try:
        count = parse_count(flavor.get("gpu_count"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", flavor, name)]
    if twice := rates.conflict(gpu, "the pricebook's GPU"):
        return [page.reject(f"{name}: {twice}", flavor, name)]
    entry = rates.entries.get(gpu)
    if entry is None:
        return [page.reject(f"{name}: GPU {gpu!r} has no rate in the pricebook", flavor, name)]
    rate, why = json_price(entry.get("original_value"), f"pricebook {gpu} original_value")
    if rate is None:
        return [page.reject(why, flavor, name)]
    charged, _ = json_price(entry.get("value"), "value")
    extra: dict[str, Any] = {
        "price_per_gpu_hour": rate,
        "price_basis": "per GPU-hour (the pricebook's original_value) x GPUs",
        "stock_available": flavor.get("stock_available"),
        "ephemeral_gb": flavor.get("ephemeral"),
    }
    if charged is not None and charged != rate:
        extra["account_rate_per_gpu_hour"] = charged  # the key's discounted "value"
    return [
        page.record(
            region=region,
            instance_type=name,
            chip=page.chip(gpu),
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=round(rate * count, 6),
            sku=name,
            extra={k: v for k, v in extra.items() if v is not None},
            vcpus=host_spec(flavor.get("cpu")),
            ram_gb=host_spec(flavor.get("ram")),
            disk_gb=host_spec(flavor.get("disk")),
        )
    ]


SOURCE = Source(
    formats=(
        FLAVORS,
        PRICEBOOK,
    ),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Hyperstack Infrahub API (needs HYPERSTACK_API_KEY): on-demand prices of its GPU "
        "flavors per region, from the pricebook's per-GPU rates"
    ),
    fetch=fetch,
    parse=parse,
    title="Hyperstack",
    checked=Checked(
        asks="`GET /v1/pricebook`, then `GET /v1/core/flavors`",
        against=(
            "**documented examples**: the pricebook entry and the CPU flavor of Hyperstack's API "
            "reference; field lists of SkyPilot's fetcher and a Rust client"
        ),
        when="docs as served 2026",
        rest="the GPU flavors reconstructed",
    ),
)
