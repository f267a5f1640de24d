"""OCI public price list (cetools products API): per-GPU prices of the GPU compute shapes."""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _http
from chipcost.extract._kit import (
    field_names,
    load_json,
    reject,
    require_columns,
    require_offers,
    shape_error,
)
from chipcost.extract.base import FetchContext, Source

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
EXPECTED_FIELDS = ("partNumber", "displayName", "metricName", "currencyCodeLocalizations")
# OCI lists one price for every commercial region.
REGION = "global"


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
    path = resources.files("chipcost").joinpath("data", name)
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
        raise ValueError(f"{shape} in chipcost/data/{SHAPE_TABLE} is not a GPU shape name")
    model = found.group("model") or found.group("gen")
    return models.get(model, UNKNOWN_CHIP), int(found.group("count"))


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Price records from archived price lists; pure."""
    result = ParseResult()
    skipped: Counter[str] = Counter()
    unmapped: set[str] = set()
    for payload in payloads:
        body = load_json(payload, PROVIDER)
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            raise shape_error(PROVIDER, payload, "items list", body)
        items = body["items"]
        require_columns(field_names(items), EXPECTED_FIELDS, payload, PROVIDER)
        page = ParseResult()
        for item in items:
            if _is_gpu_rental(item, skipped):
                page.extend(part_offers(item, payload, str(body.get("lastUpdated", ""))))
                if str(item.get("partNumber", "")) not in shape_table():
                    unmapped.add(f"{item.get('partNumber')} ({item.get('displayName')})")
        # The price list always holds GPU parts: none at all means the metric was renamed.
        require_offers(page, payload, PROVIDER)
        if body.get("hasMore"):
            page.notes.append(f"{payload.url} says hasMore: products after this page are missing")
        result.extend(page)
    result.notes.extend(
        f"skipped {count} '{GPU_METRIC}' row(s) that are {what}, not rentals"
        for what, count in sorted(skipped.items())
    )
    unknown = sorted({r.instance_type for r in result.records if r.chip == UNKNOWN_CHIP})
    if unknown:
        result.notes.append(
            f"shape(s) {', '.join(unknown)} name a GPU not in chipcost/data/{MODEL_TABLE}: "
            "loaded as chip 'unknown'; add the model"
        )
    if unmapped:
        result.notes.append(
            f"{len(unmapped)} GPU part(s) price no shape in chipcost/data/{SHAPE_TABLE}: "
            f"{', '.join(sorted(unmapped))}; add the shapes each prices"
        )
    return result


def _is_gpu_rental(item: Any, skipped: Counter[str]) -> bool:
    if not isinstance(item, dict) or item.get("metricName") != GPU_METRIC:
        return False
    if not str(item.get("serviceCategory", "")).startswith(GPU_CATEGORY):
        return False
    for marker in NOT_RENTALS:
        if marker in str(item.get("displayName", "")):
            skipped[marker] += 1
            return False
    return True


def part_offers(item: dict[str, Any], payload: Payload, last_updated: str) -> ParseResult:
    """One record per shape that uses this GPU part, or a reject saying why none."""
    result = ParseResult()
    part = str(item.get("partNumber", ""))
    per_gpu, problem = _usd_payg(item)
    if not problem and part not in shape_table():
        problem = (
            f"GPU part {part} ({item.get('displayName')}) is not in chipcost/data/{SHAPE_TABLE}:"
            " add the shapes it prices"
        )
    if problem:
        result.rejects.append(reject(SOURCE_NAME, problem, item, payload, part))
        return result
    for shape, chip, gpus in shape_table()[part]:
        result.records.append(
            PriceRecord(
                observed_at=payload.fetched_at,
                provider=PROVIDER,
                source=SOURCE_NAME,
                region=REGION,
                instance_type=shape,
                chip=chip,
                chip_count=float(gpus),
                pricing_model="on_demand",
                # OCI prices per GPU-hour; a shape rents all its GPUs.
                price_per_hour=round(per_gpu * gpus, 6),
                sku=part,
                source_url=payload.url,
                payload_ref=payload.ref,
                extra={
                    "per_gpu_hour": per_gpu,
                    "display_name": item.get("displayName"),
                    "price_list_updated": last_updated,
                },
            )
        )
    return result


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
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "OCI public price list (cetools products API): pay-as-you-go per-GPU prices of the "
        "GPU compute shapes, one price for every commercial region"
    ),
    fetch=fetch,
    parse=parse,
)
