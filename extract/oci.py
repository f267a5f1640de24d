"""OCI public price list (cetools products API): per-GPU prices of the GPU compute shapes."""

from __future__ import annotations

import csv
import re
from functools import cache
from importlib import resources
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import field_names, require_columns, shape_error
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "oci"
PROVIDER = "oci"
# Oracle's public, unauthenticated price list (the one its cost estimator reads). One GET
# returns every product; asking for all of them means a new GPU part shows up as a reject
# to map, instead of being missed by a partNumber filter.
PRODUCTS_URL = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/"
PARAMS = {"currencyCode": "USD"}
SHAPE_TABLE = "oci_gpu_shapes.csv"
# GPU rentals are billed per GPU-hour; per-node, per-OCPU and per-day rows are other things.
GPU_METRIC = "GPU Per Hour"
GPU_CATEGORY = "Compute - GPU"
PAYG = "PAY_AS_YOU_GO"
# Rows with the GPU metric that are not cloud rentals: per-GPU software licences and
# on-premises (Cloud@Customer, Roving Edge) or VMware bundles. Counted in a note.
NOT_RENTALS = ("NVIDIA AI Enterprise", "Cloud@Customer", "Roving Edge", "VMware")
UNMAPPED = f"is not in core/data/{SHAPE_TABLE}"
# OCI lists one price for every commercial region.
REGION = "global"

FORMAT = Format(
    "cetools products v1",
    "/pls/apex/cetools/api/v1/products/",
    (
        Rows(
            "items[]",
            {
                "partNumber": "string",
                "displayName": "string",
                "metricName": "string",
                "serviceCategory": "string",
                "currencyCodeLocalizations": "array",
                "description": "string",
            },
            required=(
                "partNumber",
                "displayName",
                "metricName",
                "serviceCategory",
                "currencyCodeLocalizations",
            ),
            optional=("description",),
            prices=("currencyCodeLocalizations",),
        ),
    ),
)
EXPECTED_FIELDS = FORMAT.required("items[]")


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """The whole USD price list, archived as it arrives."""
    with client or _http.http_client(PROVIDER, ctx) as http:
        payload = _http.get(ctx, http, PRODUCTS_URL, params=PARAMS)
    ctx.progress(f"{SOURCE_NAME}: price list, {len(payload.data)} bytes")
    return [payload]


MODEL_TABLE = "oci_gpu_models.csv"
# BM.GPU.H100.8 (model H100, 8 GPUs), BM.GPU4.8 (generation GPU4), VM.GPU.A10.2.
SHAPE_NAME = re.compile(r"^(?:BM|VM)\.(?:GPU\.(?P<model>[^.]+)|(?P<gen>GPU\d+))\.(?P<count>\d+)$")


def _data_rows(name: str) -> list[dict[str, str]]:
    path = resources.files("chipcost.core").joinpath("data", name)
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))


@cache
def shape_table() -> dict[str, list[tuple[str, str, int]]]:
    """partNumber -> [(shape, chip, GPUs per shape)]: chip and count read from each shape name."""
    models = {row["model"]: row["chip"] for row in _data_rows(MODEL_TABLE)}
    table: dict[str, list[tuple[str, str, int]]] = {}
    for row in _data_rows(SHAPE_TABLE):
        chip, gpus = shape_chip(row["shape"], models)
        table.setdefault(row["part_number"], []).append((row["shape"], chip, gpus))
    return table


def shape_chip(shape: str, models: dict[str, str]) -> tuple[str, int]:
    """(chip, GPUs) a GPU shape's name gives; chip 'unknown' for a model the table lacks."""
    found = SHAPE_NAME.match(shape)
    if not found:
        raise ValueError(f"{shape} in core/data/{SHAPE_TABLE} is not a GPU shape name")
    model = found.group("model") or found.group("gen")
    return models.get(model, UNKNOWN_CHIP), int(found.group("count"))


def notes(result: ParseResult) -> list[str]:
    """The shapes and GPU parts the tables lack, to add there."""
    said = []
    unknown = sorted({r.instance_type for r in result.records if r.chip == UNKNOWN_CHIP})
    if unknown:
        said.append(
            f"shape(s) {', '.join(unknown)} name a GPU not in core/data/{MODEL_TABLE}: "
            "loaded as chip 'unknown'; add the model"
        )
    unmapped = sorted(
        f"{r.sku} ({r.row.get('displayName')})"
        for r in result.rejects
        if UNMAPPED in r.reason and isinstance(r.row, dict)
    )
    if unmapped:
        said.append(
            f"{len(unmapped)} GPU part(s) price no shape in core/data/{SHAPE_TABLE}: "
            f"{', '.join(unmapped)}; add the shapes each prices"
        )
    return said


def rows(page: Page) -> list[Any]:
    """Every product of the price list (the GPU rentals are told apart by `offers`)."""
    body = page.json()
    if not isinstance(body, dict) or not isinstance(body.get("items"), list):
        raise shape_error(PROVIDER, page.payload, "items list", body)
    items = body["items"]
    require_columns(field_names(items), EXPECTED_FIELDS, page.payload, PROVIDER)
    if body.get("hasMore"):
        page.note(f"{page.payload.url} says hasMore: products after this page are missing")
    return items


def offers(item: Any, page: Page) -> list[Item]:
    """One record per shape that uses a GPU part, or a reject saying why none; pure."""
    if not isinstance(item, dict) or item.get("metricName") != GPU_METRIC:
        return [Skip("another product (not billed per GPU-hour)")]
    if not str(item.get("serviceCategory", "")).startswith(GPU_CATEGORY):
        return [Skip(f"a '{GPU_METRIC}' row outside {GPU_CATEGORY}")]
    for marker in NOT_RENTALS:
        if marker in str(item.get("displayName", "")):
            return [Skip(f"a '{GPU_METRIC}' row that is {marker}, not a rental")]
    part = str(item.get("partNumber", ""))
    per_gpu, problem = _usd_payg(item)
    if not problem and part not in shape_table():
        problem = (
            f"GPU part {part} ({item.get('displayName')}) {UNMAPPED}: add the shapes it prices"
        )
    if problem:
        return [page.reject(problem, item, part)]
    updated = page.json().get("lastUpdated", "")
    return [
        page.record(
            region=REGION,
            instance_type=shape,
            chip=chip,
            chip_count=float(gpus),
            pricing_model="on_demand",
            # OCI prices per GPU-hour; a shape rents all its GPUs.
            price_per_hour=round(per_gpu * gpus, 6),
            sku=part,
            extra={
                "per_gpu_hour": per_gpu,
                "display_name": item.get("displayName"),
                "price_list_updated": str(updated),
                **estimate_of(item),
            },
        )
        for shape, chip, gpus in shape_table()[part]
    ]


def _usd_payg(item: dict[str, Any]) -> tuple[float, str]:
    """(per-GPU USD pay-as-you-go price, '') or (0, why not)."""
    localizations = item.get("currencyCodeLocalizations") or []
    usd = [c for c in localizations if isinstance(c, dict) and c.get("currencyCode") == "USD"]
    if len(usd) != 1:
        found = sorted(str(c.get("currencyCode")) for c in localizations if isinstance(c, dict))
        return 0.0, f"expected one USD price, found currencies {found or 'none'}"
    payg = [p for p in usd[0].get("prices") or [] if p.get("model") == PAYG]
    if len(payg) != 1:
        return 0.0, f"expected one {PAYG} price, found {len(payg)}"
    value = payg[0].get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return 0.0, f"{PAYG} value {value!r} is not a positive number"
    return float(value), ""


SOURCE = Source(
    formats=(FORMAT,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "OCI public price list (cetools products API): pay-as-you-go per-GPU prices of the "
        "GPU compute shapes, one price for every commercial region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    notes=notes,
    title="OCI",
    checked=Checked(
        asks="the whole public price list (`cetools` products, USD)",
        against=(
            "**recorded** price lists: opencost's (`pkg/cloud/oracle/test/prices_usd.json`, 450 "
            "items, 7 GPU parts) and getcomputable/gpu-index's (35 items, every one of the 29 "
            "GPU-metric rows, captured 2026-08-22): every GPU part prices its shapes but H100T and"
            " E4"
        ),
        when="committed 2024-01-19; captured 2026-08-22",
        rest="the sample's list",
    ),
)
parse = SOURCE.parse
