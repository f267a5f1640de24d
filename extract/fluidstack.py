"""Fluidstack's configurations (FLUIDSTACK_API_KEY): the per-GPU-hour on-demand price of each
GPU type it has capacity for, with the GPU counts and regions it can be rented in."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._bounds import too_many_places
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import (
    field_names,
    json_price,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Source,
    unpriced_skips,
)

SOURCE_NAME = "fluidstack"
PROVIDER = "fluidstack"
# Every GPU type with free capacity, its per-GPU price, the counts and regions it is rented in
# (what SkyPilot's fetch_fluidstack.py reads to write its catalog).
CONFIGURATIONS_URL = "https://platform.fluidstack.io/list_available_configurations"
API_KEY = _fetch.ApiKey(
    "fluidstack_api_key",
    "FLUIDSTACK_API_KEY",
    "Fluidstack",
    "its console (API keys)",
    header="api-key",
    scheme="",
)
FORMAT = Format(
    "available configurations",
    "/list_available_configurations",
    (
        Rows(
            "[]",
            {
                "gpu_type": "string",
                "gpu_counts": "array",
                "price_per_gpu_hr": "number",
                "regions": "array",
            },
            required=("gpu_type", "gpu_counts", "price_per_gpu_hr", "regions"),
        ),
    ),
)
FIELDS = FORMAT.required("[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The configurations, archived as they arrive (the key never: it goes in a header)."""
    return _fetch.keyed_get(
        ctx, PROVIDER, {"available configurations": CONFIGURATIONS_URL}, API_KEY
    )


def rows(page: Page) -> list[Any]:
    """The configurations (the answer is a bare list), their fields checked."""
    body = page.json()
    if not isinstance(body, list):
        raise shape_error(PROVIDER, page.payload, "list of configurations", body)
    if body:
        require_columns(field_names(body), FIELDS, page.payload, PROVIDER)
    return body


def offers(plan: Any, page: Page) -> list[Item]:
    """One on-demand record per GPU count and region of a GPU type, per instance-hour (the
    per-GPU price times the count); pure."""
    gpu = str(plan.get("gpu_type") or "").strip() if isinstance(plan, dict) else ""
    if not gpu:
        return [page.reject(f"configuration {plan!r:.80} has no gpu_type", plan)]
    cell = plan.get("price_per_gpu_hr")
    price, why = json_price(cell, f"{gpu} price_per_gpu_hr")
    if price is None:
        return [page.no_price(why, plan, cell, gpu), *_not_sold(cell, plan, gpu, why)]
    counts, regions = plan.get("gpu_counts"), plan.get("regions")
    if not isinstance(counts, list) or not counts or not isinstance(regions, list) or not regions:
        return [page.reject(f"{gpu}: no gpu_counts or regions listed", plan, gpu)]
    if why := too_many_places(regions, gpu):
        return [page.reject(why, plan, gpu)]
    chip = page.chip(gpu)
    made: list[Item] = []
    for count in counts:
        try:
            gpus = parse_count(count)
        except ValueError as exc:
            made.append(page.reject(f"{gpu}: {exc}", plan, gpu))
            continue
        for region in regions:
            made.append(
                page.record(
                    region=str(region),
                    instance_type=f"{gpu}::{gpus}",
                    chip=chip,
                    chip_count=float(gpus),
                    pricing_model="on_demand",
                    price_per_hour=round(price * gpus, 6),
                    sku=gpu,
                    extra={
                        "price_per_gpu_hour": price,
                        "price_basis": "per GPU-hour (price_per_gpu_hr) x GPUs",
                    },
                )
            )
    return made


def _not_sold(cell: object, plan: dict[str, Any], gpu: str, why: str) -> list[Item]:
    """Of a price saying the GPU type has none (null, "Contact us"), a quiet skip of each offer
    it names (a GPU count in a region): another copy of the type pricing one refuses both, as
    priced twice (Skip.unpriced); alone, the type's reject says it."""
    counts, regions = plan.get("gpu_counts"), plan.get("regions")
    if (
        not isinstance(counts, list)
        or not isinstance(regions, list)
        or too_many_places(regions, gpu)
    ):
        return []
    made: list[Item] = []
    for count in counts:
        try:
            gpus = parse_count(count)
        except ValueError:
            continue
        offers = (
            {"region": str(r), "instance_type": f"{gpu}::{gpus}", "pricing_model": "on_demand"}
            for r in regions
        )
        made += unpriced_skips(cell, offers, why, plan)
    return made


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Fluidstack configurations (needs FLUIDSTACK_API_KEY): on-demand prices of each GPU "
        "type per GPU count and region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Fluidstack",
    checked=Checked(
        asks="`GET /list_available_configurations`",
        against=(
            "docs only: SkyPilot's fetcher (field list); configurations read back from SkyPilot's "
            "published Fluidstack catalog; **recorded** GPU names: the 23 `gpu_type` names of that"
            " fetcher's map"
        ),
        when="catalog commit 002403b",
        rest="the whole answer reconstructed: JSON types, order",
    ),
)
parse = SOURCE.parse
