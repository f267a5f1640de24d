"""Verda (formerly DataCrunch) public API: instance types with fixed, dynamic, spot and
long-term prices per instance-hour."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord, Reject
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    Offer,
    Origin,
    field_names,
    json_price,
    load_json,
    missing_fields,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
    each_row,
)

SOURCE_NAME = "verda"
PROVIDER = "verda"
# Both endpoints answer without credentials (locations and availability need OAuth, and are
# not needed for prices). api.datacrunch.io still answers too; api.verda.com is the new name.
API = "https://api.verda.com/v1"
INSTANCE_TYPES_URL = f"{API}/instance-types"
PERIODS_URL = f"{API}/long-term/periods/instances"
# What every instance type must carry; a list without them changed format (ParseError).
# Verda prices are the same in every location (FIN-01, FIN-02, FIN-03, ICE-01).
REGION = "global"
# Price fields -> (pricing model, plan). Dynamic pricing is on-demand at a price that moves
# daily with demand (capped at max_dynamic_price), chosen instead of the fixed price.
PRICE_FIELDS = (
    ("price_per_hour", "on_demand", "default"),
    ("dynamic_price", "on_demand", "dynamic"),
    ("spot_price", "spot", "default"),
)
# A missing or zero optional price means "not offered for this type", not a zero price.
OPTIONAL = frozenset({"dynamic_price", "spot_price"})
# Long-term periods -> chipcost terms.
TERMS = {("month", 1): "1mo", ("month", 3): "3mo", ("month", 6): "6mo", ("month", 12): "1yr"}
TERMS |= {("year", 1): "1yr", ("year", 2): "2yr", ("year", 3): "3yr"}

log = logging.getLogger("chipcost.extract.verda")

PERIODS = Format(
    "long-term periods v1",
    "/v1/long-term/periods/instances",
    (
        Rows(
            "[]",
            {
                "code": "string",
                "name": "string",
                "is_enabled": "boolean",
                "unit_name": "string",
                "unit_value": "integer",
                "discount_percentage": "number",
            },
            required=("unit_name", "unit_value", "discount_percentage"),
        ),
    ),
)
TYPES = Format(
    "instance types v1",
    "/v1/instance-types",
    (
        Rows(
            "[]",
            {
                "best_for": "array",
                "cpu": "object",
                "deploy_warning": "null",
                "description": "string",
                "gpu": "object",
                "gpu_memory": "object",
                "id": "string",
                "instance_type": "string",
                "memory": "object",
                "model": "string",
                "name": "string",
                "p2p": "string|null",
                "price_per_hour": "string",
                "spot_price": "string",
                "dynamic_price": "string|null",
                "max_dynamic_price": "string",
                "serverless_price": "string|null",
                "serverless_spot_price": "null",
                "storage": "object",
                "currency": "string",
                "manufacturer": "string",
                "display_name": "null",
                "supported_os": "array",
            },
            required=("instance_type", "price_per_hour", "gpu"),
            prices=("price_per_hour", "spot_price", "dynamic_price", "max_dynamic_price"),
        ),
    ),
)
FIELDS = TYPES.required("[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Instance types, then the long-term periods (optional: failing them keeps the rest)."""
    with _http.http_client(PROVIDER, ctx) as client:
        payloads = [_http.get(ctx, client, INSTANCE_TYPES_URL, ext="json")]
        ctx.progress("instance types")
        # Commitment prices are derived from these discounts; without them the fixed,
        # dynamic and spot prices still load, and parse() says what is missing.
        payloads += _fetch.optional(
            ctx,
            client,
            PERIODS_URL,
            ext="json",
            what="long-term periods",
            lost="commitment prices skipped this run",
            log=log,
        )
    return payloads


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Price records from archived API responses; pure."""
    periods = [p for p in payloads if p.url.endswith("/long-term/periods/instances")]
    discounts, unread = _discounts(periods[-1]) if periods else ([], [])
    types = [p for p in payloads if p not in periods]
    result = each_row(
        types,
        SOURCE_NAME,
        PROVIDER,
        rows=rows,
        offers=lambda row, page: offers(row, page, discounts),
    )
    result.rejects.extend(unread)
    if not periods:
        result.notes.append(
            f"no long-term periods were fetched ({PERIODS_URL}): commitment prices are "
            "missing from this run"
        )
    return result


def rows(page: Page) -> list[Any]:
    """The instance types."""
    body = page.json()
    if not isinstance(body, list):
        raise shape_error(PROVIDER, page.payload, "list of instance types", body)
    if body:
        require_columns(field_names(body), FIELDS, page.payload, PROVIDER)
    return body


def _discounts(payload: Payload) -> tuple[list[tuple[str, float, dict[str, Any]]], list[Reject]]:
    """(term, discount fraction, period) for every enabled period, and a reject for each
    period not read (its unit, length, discount or enablement is not one chipcost reads)."""
    body = load_json(payload, PROVIDER)
    if not isinstance(body, list):
        raise shape_error(PROVIDER, payload, "list of long-term periods", body)
    require_columns(field_names(body), PERIODS.required("[]"), payload, PROVIDER)
    origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
    found, unread = [], []
    for period in body:
        if isinstance(period, dict) and period.get("is_enabled") is False:
            continue  # not offered now: its commitment prices are withdrawn
        term, discount, why = _period(period)
        if not why:
            found.append((term, discount, period))
            continue
        # Its commitment offers (of its term, or of any when the term cannot be told) were
        # not seen priced, but not withdrawn either: they stay open until it can be read.
        offer = {"region": REGION, "instance_type": None, "pricing_model": "commitment"}
        unread.append(origin.reject(why, period, offer=offer | {"term": term or None}))
    return found, unread


def _period(period: object) -> tuple[str, float, str]:
    """(term, discount fraction, "") of one long-term period, or why it is not read."""
    if not isinstance(period, dict):
        return "", 0.0, f"a long-term period is a {type(period).__name__}, not an object"
    name = f"long-term period {period.get('code') or period.get('name') or '?'}"
    unit, value = period.get("unit_name"), period.get("unit_value")
    term = TERMS.get((str(unit).lower().rstrip("s"), _whole(value)), "")
    discount = period.get("discount_percentage")
    if period.get("is_enabled") is not True:
        why = f"is_enabled {period.get('is_enabled')!r} is not true or false"
    elif not term:
        why = (
            f"unit_name {unit!r} with unit_value {value!r} is no term chipcost knows "
            f"({', '.join(f'{n} {u}' for u, n in TERMS)})"
        )
    elif isinstance(discount, bool) or not isinstance(discount, int | float):
        why = f"discount_percentage {discount!r} is not a number"
    elif not 0 <= discount < 100:
        why = f"discount_percentage {discount!r} is not from 0 to under 100"
    else:
        return term, discount / 100.0, ""
    return term, 0.0, f"{name}: {why}: its commitment prices are not read; report it"


def _whole(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and float(value).is_integer() else None


def offers(row: Any, page: Page, discounts: list[tuple[str, float, dict]]) -> list[Item]:
    """Fixed, dynamic and spot prices of one instance type, and its long-term prices; pure."""
    if not isinstance(row, dict):
        return [page.reject("instance type is not an object", row)]
    name = str(row.get("instance_type") or "")
    gpu = row.get("gpu") if isinstance(row.get("gpu"), dict) else {}
    if gpu.get("number_of_gpus") == 0 and not gpu.get("description"):
        return [Skip("a CPU-only type: no accelerator to price", name)]
    if missing := missing_fields(row, ("currency",)):
        return [page.reject(f"{name}: {missing}", row, offer=_offers_of(name))]
    try:
        count = parse_count(gpu.get("number_of_gpus"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", row, offer=_offers_of(name))]
    instance = page.offer(
        region=REGION,
        instance_type=name,
        chip=page.chip(_gpu_name(row, gpu), _memory_per_gpu(row, count)),
        chip_count=float(count),
        currency=str(row["currency"]).upper(),
        sku=str(row.get("id") or name),
        extra={"price_basis": "per instance-hour", **estimate_of(row)},
        **_host(row),
    )
    made: list[Item] = []
    for field, model, plan in PRICE_FIELDS:
        value = row.get(field)
        key = {"region": REGION, "instance_type": name, "pricing_model": model, "plan": plan}
        if field in OPTIONAL and value is None:
            # not sold so: said nowhere, unless another copy of the type prices it (both refused)
            _, why = json_price(value, f"{name} {field}")
            made.append(Skip(why, unpriced=key, row=row, quiet=True))
            continue
        if field in OPTIONAL and _is_zero(value):
            continue
        price, why = json_price(value, f"{name} {field}")
        if price is None:
            # Its offer; the fixed price's, the commitments priced from it too (any model, term).
            offer = _offers_of(name, plan=plan)
            if field != "price_per_hour":
                offer |= {"pricing_model": model, "term": "none"}
            # null: withdrawn, unless another copy of the type prices it (both refused)
            made.append(page.no_price(why, row, value, offer=offer, unpriced=key))
            continue
        extra = {"field": field}
        if row.get("max_dynamic_price") and plan == "dynamic":
            extra["max_dynamic_price"] = row["max_dynamic_price"]
        made.append(
            instance.record(pricing_model=model, plan=plan, price_per_hour=price, extra=extra)
        )
        if field == "price_per_hour":
            made.extend(_commitment(instance, price, *discount) for discount in discounts)
    return made


def _offers_of(name: str, **known: str) -> dict[str, str | None]:
    """What a refused row names of the offers of type `name` it keeps open: those agreeing
    with `known` (a pricing model, a plan), any value of the other fields of their key."""
    return {"region": REGION, "instance_type": name, "pricing_model": None, "term": None,
            "plan": None} | known  # fmt: skip


def _host(row: dict[str, Any]) -> dict[str, float | None]:
    """cpu.number_of_cores (the "30V" of "1B300.30V": vCPUs), memory.size_in_gigabytes and
    storage.size_in_gigabytes, where given (storage is "dynamic", chosen at launch, for
    most)."""

    def part(name: str, key: str) -> float | None:
        value = row.get(name)
        return host_spec(value.get(key)) if isinstance(value, dict) else None

    return {
        "vcpus": part("cpu", "number_of_cores"),
        "ram_gb": part("memory", "size_in_gigabytes"),
        "disk_gb": part("storage", "size_in_gigabytes"),
    }


def _gpu_name(row: dict[str, Any], gpu: dict[str, Any]) -> str:
    """'8x H200 SXM5 141GB' -> 'H200 SXM5 141GB' (the count prefix is not the chip's name)."""
    description = str(gpu.get("description") or row.get("name") or "").strip()
    head, _, rest = description.partition(" ")
    return rest if head.lower().endswith("x") and head[:-1].isdigit() else description


def _memory_per_gpu(row: dict[str, Any], count: int) -> float | None:
    """gpu_memory is the instance's total: per GPU is total / count."""
    memory = row.get("gpu_memory")
    size = memory.get("size_in_gigabytes") if isinstance(memory, dict) else None
    return float(size) / count if isinstance(size, int | float) and size > 0 else None


def _is_zero(value: object) -> bool:
    try:
        return float(value) == 0.0  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _commitment(
    instance: Offer, fixed: float, term: str, discount: float, period: dict[str, Any]
) -> PriceRecord:
    """A long-term contract price: the fixed price less the period's published discount."""
    extra = {
        "field": "price_per_hour",
        "derived_from": "price_per_hour x (1 - discount_percentage / 100)",
        "period": period.get("code") or period.get("name"),
        "discount_percentage": period.get("discount_percentage"),
    }
    price = round(fixed * (1.0 - discount), 6)
    return instance.record(
        pricing_model="commitment", plan="default", price_per_hour=price, term=term, extra=extra
    )


SOURCE = Source(
    formats=(TYPES, PERIODS),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Verda (formerly DataCrunch) public API: instance types with fixed, dynamic and "
        "spot prices, and long-term (commitment) prices from its published discounts"
    ),
    fetch=fetch,
    parse=parse,
    title="Verda",
    checked=Checked(
        asks="instance types and long-term periods",
        against=(
            "items of `instance_types.get()` kept in gpuhunt's tests (likely trimmed real items, "
            "not stated to be a recording)"
        ),
        when="2023-11 to 2025-12",
        rest="periods and the rest reconstructed; searched 2026-11-26, no recording found",
    ),
)
