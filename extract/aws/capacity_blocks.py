"""EC2 Capacity Blocks for ML: the upfront price of 1-, 7- and 14-day blocks of one instance or
one UltraServer (a Trn2 or GB200 UltraServer is rented whole: its chips are all its instances')."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from chipcost.core.catalog import aws_capacity_block_types, aws_chip_for, aws_ultraserver_types
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import Origin, RowUnreadable, decimal, read_row
from chipcost.extract.aws._calls import (
    AwsCallFailed,
    aws_client,
    aws_errors,
    json_body,
    json_safe,
    named,
    region_of_zone,
    response_bytes,
    zone_refused,
)
from chipcost.extract.aws._calls import RowRefused as _Refused
from chipcost.extract.base import Checked, FetchContext, Source

SOURCE_NAME = "aws-capacity-blocks"
PROVIDER = "aws"
OPERATION = "DescribeCapacityBlockOfferings"
EC2_URL = "https://ec2.{region}.amazonaws.com/ " + OPERATION
PERMISSION = "ec2:DescribeCapacityBlockOfferings"
# Regions that sell Capacity Blocks for ML (EC2 User Guide, supported instance types and
# Regions). Every type of core/data/aws_capacity_block_types.csv is asked in each: the
# per-type region lists change often, and an empty answer costs one call.
REGIONS = ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1", "ap-southeast-4")
# 1, 7 and 14 days: the short blocks people rent for a fine-tune or an experiment.
DURATION_HOURS = (24, 168, 336)
# One instance: the price per instance-hour, comparable to the other pricing models. One
# UltraServer likewise: the price per UltraServer-hour.
INSTANCE_COUNT = 1
ULTRASERVER_COUNT = 1
# Error codes that mean "this type is not sold as Capacity Blocks in this region": archived
# and noted, not a failure of the source.
NOT_OFFERED = frozenset({"Unsupported", "UnsupportedOperation", "InvalidParameterValue"})
# An account AWS has not allowed to see UltraServer offerings is refused them alone ("This AWS
# Account is not authorized to call DescribeCapacityBlockOfferings API when requesting an EC2
# UltraServer"): noted like a type not offered, the instance blocks still collected.
ULTRASERVER_REFUSED = frozenset({"UnauthorizedOperation"})
PAGE_SIZE = 100
# What every offer of this source is, beside its type, zone and term: a block paid up front.
BLOCK_OFFER = {"pricing_model": "capacity_block", "payment": "all_upfront"}

OFFERINGS = Format(
    "EC2 DescribeCapacityBlockOfferings",
    "/ DescribeCapacityBlockOfferings",
    (
        Rows(
            "CapacityBlockOfferings[]",
            {
                "CapacityBlockOfferingId": "string",
                "InstanceType": "string",
                "AvailabilityZone": "string",
                "InstanceCount": "integer",
                "StartDate": "string",
                "EndDate": "string",
                "CapacityBlockDurationHours": "integer",
                "UpfrontFee": "string",
                "CurrencyCode": "string",
                "Tenancy": "string",
                "CapacityBlockDurationMinutes": "integer",
                "UltraserverType": "string",
                "UltraserverCount": "integer",
                "ZoneType": "string",
            },
            # An answer of no offering today has an empty list; an error (a type not sold in
            # the region) comes in its place, archived as it came.
            always=False,
            prices=("UpfrontFee",),
        ),
        Rows("Error", {"Code": "string", "Message": "string"}, always=False),
    ),
)


def offerings_request(instance_type: str, hours: int) -> dict[str, Any]:
    return {
        "InstanceType": instance_type,
        "InstanceCount": INSTANCE_COUNT,
        "CapacityDurationHours": hours,
    }


def ultraserver_request(ultraserver_type: str, hours: int) -> dict[str, Any]:
    """UltraServer offerings: P6e-GB200 ones are in a Local Zone (Dallas) that an account sees
    only once opted in, so every zone is asked for."""
    return {
        "UltraserverType": ultraserver_type,
        "UltraserverCount": ULTRASERVER_COUNT,
        "CapacityDurationHours": hours,
        "AllAvailabilityZones": True,
    }


def requests() -> list[dict[str, Any]]:
    """Every request fetch makes in a region, in order: each instance type's, then each
    UltraServer type's, for each duration."""
    asked = [offerings_request(t, h) for t in aws_capacity_block_types() for h in DURATION_HOURS]
    asked += [ultraserver_request(u, h) for u in aws_ultraserver_types() for h in DURATION_HOURS]
    return asked


def asked_for(request: Mapping[str, Any]) -> str:
    """What a request or offering is for: its UltraServer type, else its instance type."""
    return str(request.get("UltraserverType") or request.get("InstanceType") or "?")


def ec2_client(region: str) -> Any:
    return aws_client("ec2", region, SOURCE_NAME)


def fetch(ctx: FetchContext, client_for: Callable[[str], Any] | None = None) -> list[Payload]:
    """Every offering page of every (region, type, duration), archived as it arrives."""
    client_for = client_for or ec2_client
    payloads: list[Payload] = []
    for region in REGIONS:
        client = client_for(region)
        for request in requests():
            hours = request["CapacityDurationHours"]
            ctx.progress(f"{OPERATION} {region} {asked_for(request)} {hours}h")
            try:
                _fetch_pages(client, ctx, region, request, payloads)
            except AwsCallFailed as exc:
                if not _not_offered_here(request, exc):
                    raise
                payloads.append(_archive_error(ctx, region, request, exc))
    return payloads


def _not_offered_here(request: Mapping[str, Any], exc: AwsCallFailed) -> bool:
    """Whether AWS's error only says this is not sold here (or not to this account, for an
    UltraServer): archived and noted; any other error fails the source."""
    if exc.code in NOT_OFFERED:
        return True
    return "UltraserverType" in request and exc.code in ULTRASERVER_REFUSED


def _fetch_pages(
    client: Any, ctx: FetchContext, region: str, request: dict[str, Any], payloads: list[Payload]
) -> None:
    """Append each page to `payloads` as it is archived, so pages before a failure are kept."""
    token = None
    where = f"{asked_for(request)} {request['CapacityDurationHours']}h in {region}"
    paginator = client.get_paginator("describe_capacity_block_offerings")
    pages = paginator.paginate(**request, PaginationConfig={"PageSize": PAGE_SIZE})
    with aws_errors(f"{SOURCE_NAME}: {OPERATION} ({where})", PERMISSION):
        for page in pages:
            ctx.on_time(f"{SOURCE_NAME}: {OPERATION} ({where})")
            asked = {"region": region, **request, "MaxResults": PAGE_SIZE, "NextToken": token}
            url = EC2_URL.format(region=region)
            payloads.append(ctx.archive.write(response_bytes(page), url, request=json_safe(asked)))
            token = page.get("NextToken") or None


def _archive_error(
    ctx: FetchContext, region: str, request: dict[str, Any], exc: AwsCallFailed
) -> Payload:
    """A type not sold here: AWS's answer is archived, so replays note it too."""
    ctx.progress(f"{asked_for(request)} in {region}: {exc.code}")
    url = EC2_URL.format(region=region)
    return ctx.archive.write(exc.error_body(), url, request={"region": region, **request})


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per offer key: the cheapest offering, the others kept in its extra; pure."""
    result = ParseResult()
    by_key: dict[tuple[str, ...], list[PriceRecord]] = {}
    for payload in payloads:
        body = json_body(payload, SOURCE_NAME, "CapacityBlockOfferings")
        region = str(payload.request.get("region", ""))
        if "Error" in body:
            result.notes.append(_not_offered(payload, body["Error"]))
            continue
        origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
        for raw in body["CapacityBlockOfferings"]:
            try:
                record = read_row(partial(offering_record, region=region, origin=origin), raw)
            except (_Refused, RowUnreadable) as exc:
                offer = exc.offer if isinstance(exc, _Refused) else None
                # An offering's id names one start date, not its offer: the offer is named.
                sku = "" if offer else _offering_id(raw)
                result.rejects.append(origin.reject(str(exc), raw, sku, offer=offer))
                continue
            by_key.setdefault(record.offer_key(), []).append(record)
    result.records = [_cheapest(found) for found in by_key.values()]
    offered = {r.instance_type for r in result.records}
    absent = sorted({*aws_capacity_block_types(), *aws_ultraserver_types()} - offered)
    if payloads and absent:
        result.notes.append(f"no Capacity Block offering today for {named(absent)}")
    return result


def _not_offered(payload: Payload, error: Any) -> str:
    code = error.get("Code", "?") if isinstance(error, dict) else "?"
    said = error.get("Message", "") if isinstance(error, dict) else str(error)
    asked = payload.request
    return (
        f"no Capacity Blocks of {asked_for(asked)} for "
        f"{asked.get('CapacityDurationHours', '?')}h in {asked.get('region', '?')}: {code} ({said})"
    )


def offering_record(raw: object, region: str, origin: Origin) -> PriceRecord:
    """One CapacityBlockOffering as a record priced per instance-hour (per UltraServer-hour for
    an UltraServer block: instance_type is the UltraServer type, chip_count all its chips), or
    _Refused."""
    if not isinstance(raw, dict):
        raise _Refused(f"offering is a {type(raw).__name__}, not an object")
    try:
        instance_type, zone, hours, count, fee = _offering_terms(raw)
        chip, chip_count = _rented(raw, instance_type)
    except _Refused as exc:
        raise _Refused(str(exc), _offer(raw, region)) from None
    extra = {
        name: raw.get(name)
        for name in ("CapacityBlockOfferingId", "StartDate", "EndDate", "CurrencyCode")
    }
    extra.update(UpfrontFee=raw.get("UpfrontFee"), InstanceCount=count, DurationHours=hours)
    if raw.get("UltraserverType"):
        extra.update(UltraserverCount=count, InstanceCount=raw.get("InstanceCount"))
        extra.update(InstanceType=raw.get("InstanceType"), ZoneType=raw.get("ZoneType"))
    extra.update(estimate_of(raw))
    return origin.record(
        region=region or region_of_zone(zone),
        zone=zone,
        instance_type=instance_type,
        chip=chip,
        chip_count=chip_count,
        **BLOCK_OFFER,
        # The fee buys count instances (UltraServers) for hours: per instance-hour
        # (UltraServer-hour), like every other record.
        price_per_hour=round(fee / (count * hours), 10),
        term=_term(raw),
        upfront=round(fee / count, 10),
        sku=_offering_id(raw),
        extra={key: value for key, value in extra.items() if value is not None},
    )


def _offering_id(raw: object) -> str:
    return str(raw.get("CapacityBlockOfferingId", "")) if isinstance(raw, dict) else ""


def _term(raw: Mapping[str, Any]) -> str:
    """The block's listed length, which names it (1d, 7d, 23h); its dates price it."""
    whole = int(raw.get("CapacityBlockDurationHours") or 0)
    minutes = raw.get("CapacityBlockDurationMinutes") or 0
    return f"{whole // 24}d" if whole % 24 == 0 and not minutes else f"{whole}h"


def _offer(raw: Mapping[str, Any], region: str) -> dict[str, str | None] | None:
    """The offer a refused offering is a price of (its reject keeps it open), its term left
    out when its length cannot be read; None when it names no type or zone."""
    rented, zone = (
        raw.get("UltraserverType") or raw.get("InstanceType"),
        raw.get("AvailabilityZone"),
    )
    if not (isinstance(rented, str) and isinstance(zone, str) and rented and zone):
        return None
    try:
        term: str | None = _term(raw)
    except (TypeError, ValueError, ArithmeticError):
        term = None
    where = region or region_of_zone(zone) or None
    return {"region": where, "zone": zone, "instance_type": rented, "term": term} | BLOCK_OFFER


def _offering_terms(raw: dict[str, Any]) -> tuple[str, str, float, float, float]:
    """(what is rented, zone, hours, how many, fee) of a USD offering, or _Refused: an
    instance type and its instances, or an UltraServer type and its UltraServers."""
    server = raw.get("UltraserverType")
    rented, zone = server or raw.get("InstanceType"), raw.get("AvailabilityZone")
    if not (isinstance(rented, str) and isinstance(zone, str) and rented and zone):
        raise _Refused("offering has no InstanceType or AvailabilityZone")
    if why := zone_refused(zone):
        raise _Refused(why)
    if raw.get("CurrencyCode") != "USD":
        raise _Refused(f"non-USD currency {raw.get('CurrencyCode')}: not converted")
    counted = "UltraserverCount" if server else "InstanceCount"
    hours, count = _duration_hours(raw), _number(raw.get(counted), counted)
    if hours <= 0 or count <= 0:
        what = "UltraServer(s)" if server else "instance(s)"
        raise _Refused(
            f"offering of {count:g} {what} for {hours:g} hours: cannot price a block "
            f"with no {what.removesuffix('(s)')}s or no hours"
        )
    return rented, zone, hours, count, _number(raw.get("UpfrontFee"), "UpfrontFee")


def _rented(raw: dict[str, Any], rented: str) -> tuple[str, float]:
    """(chip, chips) of what an offering rents: an UltraServer's from
    aws_ultraserver_types.csv, an instance's from aws_instance_types.csv; or _Refused."""
    if raw.get("UltraserverType"):
        server = aws_ultraserver_types().get(rented)
        if server is None:
            raise _Refused(
                f"UltraServer type {rented} is not in core/data/aws_ultraserver_types.csv: "
                "chips unknown; add a row there"
            )
        return server.chip, float(server.chip_count)
    match = aws_chip_for(rented)
    if not match.known_type:
        raise _Refused(
            f"instance type {rented} is not in core/data/aws_instance_types.csv: "
            "chip count unknown; add a row there"
        )
    return match.chip, match.chip_count


def _duration_hours(raw: Mapping[str, Any]) -> float:
    """The block's length: from its StartDate and EndDate, what the fee buys, when both are
    given (a block listed as 24 hours may run 24 h 17 min); else from its duration fields."""
    span = _span_hours(raw.get("StartDate"), raw.get("EndDate"))
    if span is not None:
        return span
    hours = _number(raw.get("CapacityBlockDurationHours", 0), "CapacityBlockDurationHours")
    minutes = _number(raw.get("CapacityBlockDurationMinutes") or 0, "CapacityBlockDurationMinutes")
    return hours + minutes / 60


def _span_hours(start: object, end: object) -> float | None:
    """Hours from start to end (ISO 8601 or datetimes); None when either is missing or bad."""
    moments = []
    for value in (start, end):
        if isinstance(value, datetime):
            moments.append(value)
            continue
        try:
            moments.append(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
        except ValueError:
            return None
    if moments[0].tzinfo is None or moments[1].tzinfo is None or moments[1] <= moments[0]:
        return None
    return (moments[1] - moments[0]).total_seconds() / 3600


def _number(value: object, name: str) -> float:
    number = decimal(value)  # ASCII digits: float() would read "1_000" as 1000
    if number is None or number < 0:
        raise _Refused(f"{name} {value!r} is not a non-negative number")
    return number


def _cheapest(found: list[PriceRecord]) -> PriceRecord:
    """Offerings of one offer key at other start dates ride along in the cheapest's extra."""
    ordered = sorted(found, key=lambda r: (r.price_per_hour, str(r.extra.get("StartDate"))))
    best, others = ordered[0], ordered[1:]
    if not others:
        return best
    alternatives = [
        {name: r.extra.get(name) for name in ("CapacityBlockOfferingId", "StartDate", "UpfrontFee")}
        for r in others
    ]
    return replace(best, extra={**best.extra, "other_offerings": alternatives})


SOURCE = Source(
    formats=(OFFERINGS,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "EC2 DescribeCapacityBlockOfferings: upfront prices of 1-, 7- and 14-day Capacity "
        "Blocks for ML of one GPU or Trainium instance or one UltraServer, per availability zone"
    ),
    fetch=fetch,
    parse=parse,
    # No Capacity Block on offer today is an answer, not a failure.
    may_be_empty=True,
    title="AWS",
    checked=Checked(
        asks="`DescribeCapacityBlockOfferings` per region",
        against="botocore service models (field lists)",
        when="2026-08",
        rest="reconstructed; searched 2026-11-26, none found",
    ),
)
