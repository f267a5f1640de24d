"""EC2 Spot prices: the current Linux price of each accelerator type in every zone of a region."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from chipcost.core.catalog import aws_accelerator_types, aws_family, aws_no_spot_families
from chipcost.core.errors import SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import Origin
from chipcost.extract.aws._calls import (
    REGION_UNUSABLE,
    AwsCallFailed,
    advice,
    aws_client,
    aws_errors,
    catalog_accelerator,
    json_body,
    json_safe,
    named,
    positive_number,
    region_of_zone,
    zone_refused,
)
from chipcost.extract.aws._calls import RowRefused as _Refused
from chipcost.extract.aws._calls import response_bytes as _bytes
from chipcost.extract.base import CLOUD_OFFERS, Checked, FetchContext, Source, refuse_empty

SOURCE_NAME = "aws-spot"
PROVIDER = "aws"
HISTORY = "DescribeSpotPriceHistory"
REGIONS_OPERATION = "DescribeRegions"
EC2_URL = "https://ec2.{region}.amazonaws.com/ {operation}"
PERMISSION = "ec2:DescribeSpotPriceHistory and ec2:DescribeRegions"
PRODUCT_DESCRIPTIONS = ("Linux/UNIX",)
# DescribeRegions is asked here; any enabled region answers it.
HOME_REGION = "us-east-1"
# When DescribeRegions cannot be called: the commercial regions that sell accelerator
# instances (GPU or Trainium/Inferentia) as of 2026. Opt-in regions an account has not
# enabled answer OptInRequired and are skipped with a note.
REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "sa-east-1",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "eu-central-1",
    "eu-central-2",
    "eu-north-1",
    "eu-south-2",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-south-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-4",
    "me-central-1",
)
# The API's largest page: a region's accelerator spot prices fit in one or two pages.
PAGE_SIZE = 1000

REGIONS_FORMAT = Format(
    "EC2 DescribeRegions",
    "/ DescribeRegions",
    (
        Rows(
            "Regions[]",
            {
                "OptInStatus": "string",
                "RegionName": "string",
                "Endpoint": "string",
            },
        ),
    ),
)
HISTORY_FORMAT = Format(
    "EC2 DescribeSpotPriceHistory",
    "/ DescribeSpotPriceHistory",
    (
        Rows(
            "SpotPriceHistory[]",
            {
                "AvailabilityZone": "string",
                "InstanceType": "string",
                "ProductDescription": "string",
                "SpotPrice": "string",
                "Timestamp": "string",
                "AvailabilityZoneId": "string",
            },
            # Carried by the recorded answers, not by the sample's week.
            optional=("AvailabilityZoneId",),
            # A region this account cannot use answers an error in its place, archived as it came.
            always=False,
            prices=("SpotPrice",),
        ),
        Rows("Error", {"Code": "string", "Message": "string"}, always=False),
    ),
)


def spot_types() -> list[str]:
    """The catalog's accelerator types, less the families AWS runs no Spot market for."""
    no_spot = aws_no_spot_families()
    return [t for t in aws_accelerator_types() if aws_family(t) not in no_spot]


def spot_request(instance_types: Sequence[str], now: datetime) -> dict[str, Any]:
    """DescribeSpotPriceHistory arguments: StartTime now returns only each zone's current price."""
    return {
        "InstanceTypes": list(instance_types),
        "ProductDescriptions": list(PRODUCT_DESCRIPTIONS),
        "StartTime": now,
    }


def history_request(
    instance_types: Sequence[str], start: datetime, end: datetime
) -> dict[str, Any]:
    """DescribeSpotPriceHistory arguments for every change from `start` to `end` (AWS keeps 90
    days), the price in force at `start` included."""
    return {**spot_request(instance_types, start), "EndTime": end}


def ec2_client(region: str) -> Any:
    return aws_client("ec2", region, SOURCE_NAME)


def fetch(
    ctx: FetchContext,
    client_for: Callable[[str], Any] | None = None,
    now: datetime | None = None,
) -> list[Payload]:
    """Every page of every region's spot prices (and the region list), archived as it arrives."""
    client_for = client_for or ec2_client
    now = now or datetime.now(UTC)
    home = client_for(HOME_REGION)
    payloads, regions = _regions(home, ctx)
    _fetch_regions(ctx, client_for, home, regions, spot_request(spot_types(), now), payloads)
    return payloads


def fetch_history(
    ctx: FetchContext,
    start: datetime,
    end: datetime,
    regions: Sequence[str] | None = None,
    client_for: Callable[[str], Any] | None = None,
) -> list[Payload]:
    """Every spot price change from `start` to `end` in `regions` (default: the account's),
    archived page by page as `fetch` archives today's prices (chipcost backfill --spot)."""
    client_for = client_for or ec2_client
    home = client_for(HOME_REGION)
    payloads, found = _regions(home, ctx) if regions is None else ([], list(regions))
    request = history_request(spot_types(), start, end)
    _fetch_regions(ctx, client_for, home, found, request, payloads)
    return payloads


def _fetch_regions(
    ctx: FetchContext,
    client_for: Callable[[str], Any],
    home: Any,
    regions: list[str],
    request: dict[str, Any],
    payloads: list[Payload],
) -> None:
    unusable = 0
    for number, region in enumerate(regions, 1):
        client = home if region == HOME_REGION else client_for(region)
        ctx.progress(f"{HISTORY} {region} ({number}/{len(regions)})")
        try:
            _fetch_region(client, ctx, region, request, payloads)
        except AwsCallFailed as exc:
            if exc.code not in REGION_UNUSABLE:
                raise
            payloads.append(_archive_error(ctx, region, exc))
            unusable += 1
    if regions and unusable == len(regions):
        raise SourceError(
            f"{SOURCE_NAME}: every region refused {HISTORY} (e.g. AuthFailure): check the AWS "
            "credentials and that they allow " + PERMISSION
        )


def _regions(client: Any, ctx: FetchContext) -> tuple[list[Payload], list[str]]:
    """The account's enabled regions from DescribeRegions, else the built-in REGIONS."""
    what = f"{SOURCE_NAME}: {REGIONS_OPERATION}"
    try:
        with aws_errors(what, PERMISSION):
            response = client.describe_regions()
    except AwsCallFailed as exc:
        ctx.progress(f"{exc}; using the built-in list of {len(REGIONS)} regions")
        return [], list(REGIONS)
    payload = ctx.archive.write(
        _bytes(response),
        EC2_URL.format(region=HOME_REGION, operation=REGIONS_OPERATION),
        request={"operation": REGIONS_OPERATION, "region": HOME_REGION},
    )
    names = sorted(
        r["RegionName"] for r in response.get("Regions", []) if isinstance(r.get("RegionName"), str)
    )
    return [payload], names or list(REGIONS)


def _fetch_region(
    client: Any, ctx: FetchContext, region: str, request: dict[str, Any], payloads: list[Payload]
) -> None:
    """Append each page to `payloads` as it is archived, so pages before a failure are kept."""
    token = None
    url = EC2_URL.format(region=region, operation=HISTORY)
    what = f"{SOURCE_NAME}: {HISTORY} in {region}"
    paginator = client.get_paginator("describe_spot_price_history")
    pages = paginator.paginate(**request, PaginationConfig={"PageSize": PAGE_SIZE})
    with aws_errors(what, PERMISSION):
        for page in pages:
            ctx.on_time(what)
            asked = {"operation": HISTORY, "region": region, **request}
            asked.update(MaxResults=PAGE_SIZE, NextToken=token)
            payloads.append(ctx.archive.write(_bytes(page), url, request=json_safe(asked)))
            token = page.get("NextToken") or None


def _archive_error(ctx: FetchContext, region: str, exc: AwsCallFailed) -> Payload:
    """A region this account cannot use: its error is archived, so replays note it too."""
    ctx.progress(f"{region} skipped: {exc}")
    return ctx.archive.write(
        exc.error_body(),
        EC2_URL.format(region=region, operation=HISTORY),
        request={"operation": HISTORY, "region": region},
    )


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per region, zone and instance type (the newest price); pure."""
    result = ParseResult()
    # Every price at the newest time: two different ones at one instant are refused by the
    # kit (one offer priced twice), never the page's first or last taken.
    newest: dict[tuple[str, str, str], tuple[datetime, list[PriceRecord]]] = {}
    asked: set[str] = set()
    answered: set[str] = set()
    superseded = 0
    for payload, raw, made in _entries(payloads, result):
        if raw is None:  # a page answered: what it asked for
            asked.update(payload.request.get("InstanceTypes") or [])
            continue
        answered.add(str(raw.get("InstanceType", "")) if isinstance(raw, dict) else "")
        if made is None:
            continue
        stamp, record = made
        key = (record.region, record.zone, record.instance_type)
        superseded += key in newest
        if key not in newest or stamp > newest[key][0]:
            newest[key] = (stamp, [record])
        elif stamp == newest[key][0]:
            newest[key][1].append(record)
    result.records = [record for _, records in newest.values() for record in records]
    refuse_empty(result, payloads, PROVIDER)
    result.notes.extend(_notes(payloads, asked - answered, superseded))
    return result


Series = dict[tuple[str, str, str], list[tuple[datetime, PriceRecord]]]


def history_series(payloads: Sequence[Payload]) -> tuple[Series, ParseResult]:
    """Every price of every (region, zone, instance type), oldest first, each with when it
    took effect; the rejects and notes beside them (a ParseResult without records); pure."""
    result = ParseResult()
    series: Series = {}
    for _, _, made in _entries(payloads, result):
        if made is not None:
            stamp, record = made
            key = (record.region, record.zone, record.instance_type)
            series.setdefault(key, []).append((stamp, record))
    for prices in series.values():  # the pages come newest first; a change once
        prices.sort(key=lambda p: p[0])
        prices[:] = [p for n, p in enumerate(prices) if n == 0 or p[0] != prices[n - 1][0]]
    return series, result


def _entries(
    payloads: Sequence[Payload], result: ParseResult
) -> Iterator[tuple[Payload, Any, tuple[datetime, PriceRecord] | None]]:
    """(page, None, None) for each page answered, then (page, entry, (when, record)) for each
    of its entries; an entry refused is a reject in `result` (None in place of the record), a
    region refused a note."""
    for payload in payloads:
        if payload.request.get("operation") == REGIONS_OPERATION:
            continue
        body = json_body(payload, SOURCE_NAME, "SpotPriceHistory")
        if "Error" in body:
            result.notes.append(_skipped_region(payload, body["Error"]))
            continue
        yield payload, None, None
        origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
        for raw in body["SpotPriceHistory"]:
            try:
                made = spot_record(raw, str(payload.request.get("region", "")), origin)
            except _Refused as exc:
                result.rejects.append(origin.reject(str(exc), raw, offer=exc.offer))
                made = None
            yield payload, raw, made


def spot_record(raw: object, region: str, origin: Origin) -> tuple[datetime, PriceRecord]:
    """(when the price was set, the record) for one SpotPriceHistory entry, or _Refused."""
    if not isinstance(raw, dict):
        raise _Refused(f"SpotPriceHistory entry is a {type(raw).__name__}, not an object")
    zone, instance_type = raw.get("AvailabilityZone"), raw.get("InstanceType")
    if not (isinstance(zone, str) and isinstance(instance_type, str) and zone and instance_type):
        raise _Refused("entry has no AvailabilityZone or InstanceType: cannot tell what it prices")
    if why := zone_refused(zone):
        raise _Refused(why)
    region = region or region_of_zone(zone)
    if region_of_zone(zone) != region:
        raise _Refused(f"zone {zone} is not in the region asked ({region})")
    if raw.get("ProductDescription") not in PRODUCT_DESCRIPTIONS:
        raise _Refused(
            f"ProductDescription is {raw.get('ProductDescription')!r}, not "
            f"{PRODUCT_DESCRIPTIONS[0]!r}: not a price this source collects"
        )
    # Its spot offer in that zone: a price or time that cannot be read keeps it open.
    offer = dict(region=region, zone=zone, instance_type=instance_type, pricing_model="spot")
    try:
        price = positive_number(raw.get("SpotPrice"), "SpotPrice")
        stamp = _timestamp(raw.get("Timestamp"))
        match = catalog_accelerator(instance_type)
    except _Refused as exc:
        raise _Refused(str(exc), offer) from None
    extra = {"Timestamp": stamp.isoformat(), "AvailabilityZoneId": raw.get("AvailabilityZoneId")}
    extra |= match.share_label() | estimate_of(raw)
    record = origin.record(
        region=region,
        zone=zone,
        instance_type=instance_type,
        chip=match.chip,
        chip_count=match.chip_count,
        pricing_model="spot",
        price_per_hour=price,
        extra={key: str(value) for key, value in extra.items() if value},
    )
    return stamp, record


def _timestamp(text: object) -> datetime:
    try:
        stamp = datetime.fromisoformat(str(text))
    except ValueError as exc:
        raise _Refused(f"Timestamp {text!r} is not an ISO 8601 time") from exc
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _skipped_region(payload: Payload, error: Any) -> str:
    code = error.get("Code", "?") if isinstance(error, dict) else "?"
    said = error.get("Message", "") if isinstance(error, dict) else str(error)
    region = payload.request.get("region", "?")
    return f"region {region} skipped: {code} ({said}): {advice(code, PERMISSION)}"


def _notes(payloads: Sequence[Payload], unanswered: set[str], superseded: int) -> list[str]:
    notes = []
    if payloads and not any(p.request.get("operation") == REGIONS_OPERATION for p in payloads):
        notes.append(f"{REGIONS_OPERATION} was not answered: queried the built-in region list")
    for family, why in aws_no_spot_families().items():
        types = [t for t in aws_accelerator_types() if aws_family(t) == family]
        notes.append(f"{', '.join(types) or family}: no spot market ({why})")
    if unanswered:
        notes.append(
            f"no spot price in any region queried for {named(sorted(unanswered))} "
            "(no Spot capacity offered there today)"
        )
    if superseded:
        notes.append(
            f"{superseded} older price(s) in the query window gave way to a newer one in the "
            "same zone (all are in the archived payload)"
        )
    return notes


SOURCE = Source(
    most_offers=CLOUD_OFFERS,
    formats=(REGIONS_FORMAT, HISTORY_FORMAT),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "EC2 DescribeSpotPriceHistory: the current Linux/UNIX spot price of every accelerator "
        "type in every availability zone of every enabled region"
    ),
    fetch=fetch,
    parse=parse,
    title="AWS",
    checked=Checked(
        asks="`DescribeSpotPriceHistory` (accelerator types, latest per zone)",
        against="**documented example**: botocore's `DescribeSpotPriceHistory` example",
        when="2014 data, 2022 commit",
        rest="accelerator answers reconstructed; searched 2026-11-26, none found",
    ),
)
