"""AWS Savings Plans offering rates: Compute and EC2 Instance plan rates of accelerator types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chipcost.core.catalog import aws_accelerator_types
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord, Reject
from chipcost.extract._bounds import count_refused
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import Origin
from chipcost.extract.aws._calls import RowRefused as _Refused
from chipcost.extract.aws._calls import (
    aws_client,
    aws_errors,
    catalog_accelerator,
    json_body,
    named,
    positive_number,
    token_pages,
)
from chipcost.extract.aws._price_list import REGION_NAME
from chipcost.extract.base import CLOUD_OFFERS, Checked, FetchContext, Source, refuse_empty

SOURCE_NAME = "aws-savings-plans"
PROVIDER = "aws"
# The Savings Plans API is global (one endpoint, signed for us-east-1) and lists every region.
SAVINGS_PLANS_REGION = "us-east-1"
OPERATION = "DescribeSavingsPlansOfferingRates"
SAVINGS_PLANS_URL = f"https://savingsplans.amazonaws.com/ {OPERATION}"
PERMISSION = "savingsplans:DescribeSavingsPlansOfferingRates"
# The API's word for a plan type -> the record's `plan`. SageMaker and Database plans do
# not price EC2 instances.
PLAN_TYPES = {"Compute": "compute", "EC2Instance": "ec2_instance"}
PAYMENT_OPTIONS = {
    "No Upfront": "no_upfront",
    "Partial Upfront": "partial_upfront",
    "All Upfront": "all_upfront",
}
# savingsPlanOffering.durationSeconds -> term; the API has no duration filter.
DURATIONS = {31536000: "1yr", 94608000: "3yr"}
# Linux shared-tenancy rates only, the same offer the Price List source collects on demand:
# RunInstances is the Linux/UNIX operation; other OS and tenancies are different prices.
OPERATIONS = ("RunInstances",)
EXPECTED_PROPERTIES = {"tenancy": "shared", "productDescription": "Linux/UNIX"}
HOURLY_UNIT = "Hrs"
# The largest page the API allows (maxResults 1..1000): fewer calls.
PAGE_SIZE = 1000
# The API documents no limit on values per filter; batches keep each request modest and
# name the batch in any error. Two batches cover today's catalog.
TYPES_PER_REQUEST = 40
# A few hundred rates per batch are a handful of pages; a runaway token loop stops here.
MAX_PAGES = 200

RATES = Format(
    "DescribeSavingsPlansOfferingRates",
    "/ DescribeSavingsPlansOfferingRates",
    (
        Rows(
            "searchResults[]",
            {
                "savingsPlanOffering": "object",
                "rate": "string",
                "unit": "string",
                "productType": "string",
                "serviceCode": "string",
                "usageType": "string",
                "operation": "string",
                "properties": "array",
            },
            required=("properties",),
            prices=("rate",),
        ),
        Rows(
            "searchResults[].properties[]",
            {
                "name": "string",
                "value": "string",
            },
        ),
    ),
)


def offering_rates_request(
    instance_types: Sequence[str], next_token: str | None = None
) -> dict[str, Any]:
    """The keyword arguments of one DescribeSavingsPlansOfferingRates call."""
    request: dict[str, Any] = {
        "savingsPlanTypes": list(PLAN_TYPES),
        "savingsPlanPaymentOptions": list(PAYMENT_OPTIONS),
        "products": ["EC2"],
        "serviceCodes": ["AmazonEC2"],
        "operations": list(OPERATIONS),
        "filters": [
            {"name": "instanceType", "values": list(instance_types)},
            *({"name": name, "values": [value]} for name, value in EXPECTED_PROPERTIES.items()),
        ],
        "maxResults": PAGE_SIZE,
    }
    if next_token:
        request["nextToken"] = next_token
    return request


def type_batches() -> list[list[str]]:
    types = list(aws_accelerator_types())
    return [types[i : i + TYPES_PER_REQUEST] for i in range(0, len(types), TYPES_PER_REQUEST)]


def fetch(ctx: FetchContext, client: Any = None) -> list[Payload]:
    """Every page of offering rates for the catalog's accelerator types, archived as it arrives."""
    client = client or aws_client("savingsplans", SAVINGS_PLANS_REGION, SOURCE_NAME)
    batches = type_batches()
    payloads: list[Payload] = []
    for number, batch in enumerate(batches, 1):
        where = f"instance types batch {number}/{len(batches)}"
        payloads.extend(_fetch_batch(client, ctx, batch, where))
    return payloads


def _fetch_batch(client: Any, ctx: FetchContext, batch: list[str], where: str) -> list[Payload]:
    def what(page: int) -> str:
        return f"{SOURCE_NAME}: {OPERATION} ({where}, page {page})"

    def call(request: dict[str, Any], page: int) -> dict[str, Any]:
        ctx.on_time(what(page))
        with aws_errors(what(page), PERMISSION):
            return client.describe_savings_plans_offering_rates(**request)

    return token_pages(
        ctx,
        SAVINGS_PLANS_URL,
        token="nextToken",
        max_pages=MAX_PAGES,
        request_of=lambda token: offering_rates_request(batch, token),
        call=call,
        progress=lambda page: f"{OPERATION} {where} page {page}",
        looping=lambda page: (
            f"{what(page)} returned a nextToken it had already returned: the API is looping; "
            "run again later, and report it if it persists"
        ),
        too_many=(
            f"{SOURCE_NAME}: {OPERATION} ({where}) still had a nextToken after {MAX_PAGES} "
            "pages: raise MAX_PAGES in extract/aws/savings_plans.py if AWS lists that many rates"
        ),
    )


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Price records from archived offering-rate pages; pure."""
    result = ParseResult()
    asked: set[str] = set()
    answered: set[str] = set()
    for payload in payloads:
        origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
        asked.update(_asked_types(payload))
        for raw in _search_results(payload):
            answered.add(_dig(raw, "properties", "instanceType"))
            try:
                result.records.append(rate_record(raw, origin))
            except _Refused as exc:
                sku = _dig(raw, "savingsPlanOffering", "offeringId")
                count_refused()
                result.rejects.append(Reject(SOURCE_NAME, str(exc), raw, sku, payload.ref))
    refuse_empty(result, payloads, PROVIDER)
    missing = sorted(asked - answered)
    if missing:
        result.notes.append(
            f"no Linux shared-tenancy savings-plan rate returned for {named(missing)}: "
            "AWS lists no savings plan for them (yet)"
        )
    return result


def rate_record(raw: object, origin: Origin) -> PriceRecord:
    """One offering rate as a record, or _Refused saying why it cannot be one."""
    if not isinstance(raw, Mapping):
        raise _Refused(f"search result is a {type(raw).__name__}, not an object")
    offering = _offering(raw)
    properties = _properties(raw)
    region, instance_type = properties.get("region"), properties.get("instanceType")
    if not region or not instance_type:
        raise _Refused("rate has no region or instanceType property: cannot tell what it prices")
    if not isinstance(region, str) or not REGION_NAME.fullmatch(region):
        raise _Refused(f"region {region!r} is not an AWS region name: not loaded as another one")
    _check_scope(raw, properties, instance_type)
    plan, term, payment = _plan_term_payment(offering)
    match = catalog_accelerator(instance_type)
    extra = {
        "usageType": raw.get("usageType"),
        "operation": raw.get("operation"),
        "planDescription": offering.get("planDescription"),
        "instanceFamily": properties.get("instanceFamily"),
        **match.share_label(),
        **estimate_of(raw),
    }
    # `rate` is what one instance-hour costs under the plan, whatever the payment option:
    # the upfront part is a prepayment of the plan's hourly commitment, not a fee on top,
    # so the rate is already the effective hourly price and no per-instance upfront exists.
    return origin.record(
        region=region,
        instance_type=instance_type,
        chip=match.chip,
        chip_count=match.chip_count,
        pricing_model="savings_plan",
        price_per_hour=positive_number(raw.get("rate"), "rate"),
        term=term,
        payment=payment,
        plan=plan,
        sku=str(offering.get("offeringId", "")),
        extra={key: str(value) for key, value in extra.items() if value},
    )


def _plan_term_payment(offering: Mapping[str, Any]) -> tuple[str, str, str]:
    """The record's plan, term and payment for a USD offering, or _Refused."""
    plan = _lookup(PLAN_TYPES, offering.get("planType"), "planType")
    term = _lookup(DURATIONS, offering.get("durationSeconds"), "durationSeconds")
    payment = _lookup(PAYMENT_OPTIONS, offering.get("paymentOption"), "paymentOption")
    if offering.get("currency") != "USD":
        raise _Refused(f"non-USD currency {offering.get('currency')}: not converted")
    return plan, term, payment


def _check_scope(raw: Mapping[str, Any], properties: dict[str, str], instance_type: str) -> None:
    """Refuse rates outside what the query asked for: other OS, tenancy, unit or usage."""
    for name, want in EXPECTED_PROPERTIES.items():
        if properties.get(name) != want:
            raise _Refused(
                f"{name} is {properties.get(name)!r}, not {want!r}: not a price this source "
                "collects"
            )
    if raw.get("unit") != HOURLY_UNIT:
        raise _Refused(f"unit is {raw.get('unit')!r}, not {HOURLY_UNIT!r}: not an hourly rate")
    usage = str(raw.get("usageType", ""))
    # BoxUsage is a running shared-tenancy instance; UnusedBox (idle capacity reservations)
    # and the like are other prices of the same type and would collide on the offer key.
    if not (usage == f"BoxUsage:{instance_type}" or usage.endswith(f"-BoxUsage:{instance_type}")):
        raise _Refused(
            f"usage type {usage!r} is not shared-tenancy instance usage (BoxUsage): not a "
            "price this source collects"
        )


def _lookup(table: Mapping[Any, str], value: object, name: str) -> str:
    try:
        known = value in table
    except TypeError:  # a damaged payload may put a list or an object here
        known = False
    if not known:
        expected = ", ".join(str(key) for key in table)
        raise _Refused(f"unknown {name} {value!r} (expected {expected})")
    return table[value]


def _offering(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    offering = raw.get("savingsPlanOffering")
    if not isinstance(offering, Mapping):
        raise _Refused("search result has no savingsPlanOffering")
    return offering


def _properties(raw: Mapping[str, Any]) -> dict[str, str]:
    listed = raw.get("properties")
    if not isinstance(listed, list):
        raise _Refused("search result has no properties list")
    return {
        str(p.get("name")): str(p.get("value"))
        for p in listed
        if isinstance(p, Mapping) and p.get("name")
    }


def _dig(raw: object, section: str, name: str) -> str:
    """A field of a raw search result, or '' (for rejects of malformed results)."""
    if not isinstance(raw, Mapping):
        return ""
    try:
        found = _properties(raw) if section == "properties" else _offering(raw)
    except _Refused:
        return ""
    return str(found.get(name, ""))


def _asked_types(payload: Payload) -> list[str]:
    for found in payload.request.get("filters") or []:
        if isinstance(found, Mapping) and found.get("name") == "instanceType":
            return [str(v) for v in found.get("values") or []]
    return []


def _search_results(payload: Payload) -> list[Any]:
    body = json_body(payload, SOURCE_NAME, "searchResults")
    if "Error" in body:
        raise ParseError(f"{SOURCE_NAME}: payload {payload.ref} is an error, not rates: re-fetch")
    return body["searchResults"]


SOURCE = Source(
    most_offers=CLOUD_OFFERS,
    formats=(RATES,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "AWS Savings Plans API (DescribeSavingsPlansOfferingRates): Compute and EC2 Instance "
        "savings-plan rates of EC2 accelerator types, 1 and 3 years, every payment option, "
        "Linux shared tenancy, every region"
    ),
    fetch=fetch,
    parse=parse,
    title="AWS",
    checked=Checked(
        asks="`DescribeSavingsPlansOfferingRates`",
        against="botocore service models (field lists)",
        when="2026-08",
        rest="reconstructed; searched 2026-11-26, none found",
    ),
)
