"""Seeweb's ECS API (SEEWEB_API_TOKEN): Cloud Server GPU plans per region, in euros as Seeweb
states them (every read converts them at the ECB's rate of the price's day)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import _fetch
from chipcost.extract._bounds import too_many_places
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._fx import ECB_DAILY
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import json_price, listed_rows, parse_count
from chipcost.extract._rates import with_archived_rates
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
    each_row,
    unpriced_skips,
)

SOURCE_NAME = "seeweb"
PROVIDER = "seeweb"
PLANS_URL = "https://api.seeweb.it/ecs/v2/plans"
API_KEY = _fetch.ApiKey(
    "seeweb_api_key",
    "SEEWEB_API_TOKEN",
    "Seeweb",
    "its cloud panel (API token)",
    header="X-APITOKEN",
    scheme="",
    accept_json=True,
)

FORMAT = Format(
    "ECS plans v2",
    "/ecs/v2/plans",
    (
        Rows(
            "plans[]",
            {
                "name": "string",
                "cpu": "string",
                "ram": "string",
                "disk": "string",
                "gpu": "string",
                "gpu_label": "string|null",
                "hourly_price": "number",
                "available": "boolean",
                "id": "integer",
                "host_type": "string",
                "available_regions": "array",
            },
            required=("name", "gpu", "hourly_price", "available_regions"),
            prices=("hourly_price",),
        ),
    ),
)
FIELDS = FORMAT.required("plans[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The plans, archived as they arrive (the token never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"plans": PLANS_URL}, API_KEY)


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU plan and region, per instance-hour, in euros; and the rates of the
    ECB daily file an earlier version archived beside the plans, as fx_rates rows
    (extract/_rates.py); pure."""
    return with_archived_rates(payloads, SOURCE_NAME, _listing)


def _listing(payloads: list[Payload]) -> ParseResult:
    return each_row(payloads, SOURCE_NAME, PROVIDER, rows=rows, offers=offers)


def rows(page: Page) -> list[Any]:
    """The plans of the listing."""
    return listed_rows(page.payload, PROVIDER, "plans", FIELDS, body=page.json())


def offers(plan: Any, page: Page) -> list[Item]:
    """One record per region of a GPU plan Seeweb sells; pure."""
    if not isinstance(plan, dict) or str(plan.get("gpu") or "0").strip() in ("0", ""):
        return [
            Skip("a CPU-only plan", str(plan.get("name") or "") if isinstance(plan, dict) else "")
        ]
    name = str(plan.get("name") or "")
    if plan.get("available") is False:
        # "available" is not capacity: false marks a plan Seeweb no longer sells
        return [Skip("a retired plan (available: false)", name)]
    label = str(plan.get("gpu_label") or "").strip()
    try:
        count = parse_count(plan.get("gpu"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", plan, name)]
    cell = plan.get("hourly_price")
    eur, why = json_price(cell, f"{name} hourly_price")
    if eur is None:
        return [page.no_price(why, plan, cell, name), *_not_sold(cell, plan, name, why)]
    if not label:
        return [page.reject(f"{name}: a GPU plan without gpu_label", plan, name)]
    regions = _regions(plan)
    if not regions:
        return [page.reject(f"{name}: the plan lists no region to rent it in", plan, name)]
    if why := too_many_places(regions, name):
        return [page.reject(why, plan, name)]
    # "L40s 48GB", "RTX PRO 6000 96GB": the catalog reads a label's trailing memory size.
    chip = page.chip(label)
    extra: dict[str, Any] = {
        "gpu_label": label,
        "price_basis": "per instance-hour",
        **estimate_of(plan),
    }
    return [
        page.record(
            region=region,
            instance_type=name,
            chip=chip,
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=eur,
            currency="EUR",
            sku=name,
            extra=extra,
            # The plan's cpu, ram (MB, as GiB here) and disk (GB), as text.
            vcpus=host_spec(plan.get("cpu")),
            ram_gb=host_spec(plan.get("ram"), per=1024),
            disk_gb=host_spec(plan.get("disk")),
        )
        for region in regions
    ]


def _not_sold(cell: object, plan: dict[str, Any], name: str, why: str) -> list[Item]:
    """Of a price saying the plan has none (null, "Contact us"), a quiet skip of its offer in
    each region: another copy of the plan pricing one refuses both, as priced twice
    (Skip.unpriced); alone, the plan's reject says it."""
    regions = _regions(plan)
    if too_many_places(regions, name):
        return []
    offers = ({"region": r, "instance_type": name, "pricing_model": "on_demand"} for r in regions)
    return unpriced_skips(cell, offers, why, plan)


def _regions(plan: dict[str, Any]) -> list[str]:
    """Where the plan is sold (not whether it has capacity now), each once."""
    regions = plan.get("available_regions")
    found = {
        str(region.get("location") or "").strip()
        for region in (regions if isinstance(regions, list) else [])
        if isinstance(region, dict)
    }
    return sorted(found - {""})


SOURCE = Source(
    formats=(FORMAT, ECB_DAILY),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Seeweb ECS API (needs SEEWEB_API_TOKEN): Cloud Server GPU plans on demand, per "
        "instance and region, in euros (reads convert them at the ECB's rate of each day)"
    ),
    fetch=fetch,
    parse=parse,
    title="Seeweb",
    checked=Checked(
        asks="GPU plans (euros)",
        against=(
            '**mock**: gpuhunt\'s `/plans` ("mirrors the live /plans shape"); a recorded ECB file '
            "(an earlier version's archive)"
        ),
        when="ECB file 2017-03-08",
    ),
)
