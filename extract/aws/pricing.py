"""AWS Price List Query API (GetProducts): EC2 accelerator on-demand and reserved prices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, Reject
from chipcost.extract._bounds import count_refused
from chipcost.extract._formats import Format, Rows
from chipcost.extract.aws._calls import (
    CREDENTIAL_ERRORS,
    NO_CREDENTIALS,
    aws_client,
    client_config,
    json_body,
    token_pages,
)
from chipcost.extract.aws._instance_types import (
    accelerator_names,
    describe_unknown,
    is_describe,
    name_unknown,
)
from chipcost.extract.aws._price_list import (
    INSTANCE_FAMILIES,
    TERM_MATCH,
    Origin,
    decode_item,
    item_offers,
)
from chipcost.extract.base import CLOUD_OFFERS, Checked, FetchContext, Source, refuse_empty

SOURCE_NAME = "aws-pricing-api"
PROVIDER = "aws"
# The Price List Query API is served from a few regions only; us-east-1 answers for every
# region's prices, so one endpoint covers them all.
PRICING_REGION = "us-east-1"
PRICING_URL = f"https://api.pricing.{PRICING_REGION}.amazonaws.com/ GetProducts"
EC2_URL = "https://ec2.{region}.amazonaws.com/ DescribeInstanceTypes"
SERVICE_CODE = "AmazonEC2"
FORMAT_VERSION = "aws_v1"
# The API's maximum page size: fewer calls against its 10-request, 5-per-second bucket.
PAGE_SIZE = 100
# A query per instanceFamily spans every region: a few thousand products, tens of pages.
# A runaway paginator stops here instead of looping for ever.
MAX_PAGES = 400

PRODUCTS = Format(
    "Price List GetProducts",
    "/ GetProducts",
    (),
)
INSTANCE_TYPES = Format(
    "EC2 DescribeInstanceTypes",
    "/ DescribeInstanceTypes",
    (
        Rows(
            "InstanceTypes[]",
            {
                "InstanceType": "string",
                "CurrentGeneration": "boolean",
                "ProcessorInfo": "object",
                "VCpuInfo": "object",
                "MemoryInfo": "object",
                "GpuInfo": "object",
            },
        ),
        Rows(
            "InstanceTypes[].GpuInfo.Gpus[]",
            {
                "Name": "string",
                "Manufacturer": "string",
                "Count": "integer",
                "MemoryInfo": "object",
            },
        ),
    ),
)


def query_filters(instance_family: str) -> list[dict[str, str]]:
    """The GetProducts Filters of one instanceFamily query."""
    fields = {"instanceFamily": instance_family, **TERM_MATCH}
    return [{"Type": "TERM_MATCH", "Field": name, "Value": value} for name, value in fields.items()]


def get_products_request(instance_family: str, next_token: str | None = None) -> dict[str, Any]:
    """The keyword arguments of one GetProducts call (NextToken only after the first page)."""
    request: dict[str, Any] = {
        "ServiceCode": SERVICE_CODE,
        "Filters": query_filters(instance_family),
        "FormatVersion": FORMAT_VERSION,
        "MaxResults": PAGE_SIZE,
    }
    if next_token:
        request["NextToken"] = next_token
    return request


def pricing_client() -> Any:
    """A Price List client with timeouts and retries; SourceSkipped without credentials."""
    return aws_client("pricing", PRICING_REGION, SOURCE_NAME)


def ec2_client(region: str) -> Any:
    import boto3  # here, not at import: a replay or a read command never builds a client

    return boto3.client("ec2", region_name=region, config=client_config())


def fetch(ctx: FetchContext, client: Any = None, ec2_client_for: Any = None) -> list[Payload]:
    """Every GetProducts page of every accelerator query, each archived as it arrives.

    Accelerator types the catalog cannot name are then looked up with EC2
    DescribeInstanceTypes (GpuInfo/NeuronInfo), archived beside the price pages.
    """
    client = client if client is not None else pricing_client()
    payloads: list[Payload] = []
    for family in INSTANCE_FAMILIES:
        payloads.extend(_fetch_query(client, ctx, family))
    unknown = {r.instance_type: r.region for r in parse(payloads).records if r.chip == "unknown"}
    if unknown:
        ctx.progress(f"{SOURCE_NAME}: naming {len(unknown)} unknown type(s) with EC2")
        payloads.extend(describe_unknown(ctx, unknown, ec2_client_for or ec2_client, EC2_URL))
    return payloads


def _fetch_query(client: Any, ctx: FetchContext, family: str) -> list[Payload]:
    def call(request: dict[str, Any], page: int) -> dict[str, Any]:
        ctx.on_time(f"{SOURCE_NAME}: GetProducts instanceFamily {family!r} page {page}")
        return _get_products(client, request, f"instanceFamily {family!r} page {page}")

    return token_pages(
        ctx,
        PRICING_URL,
        token="NextToken",
        max_pages=MAX_PAGES,
        request_of=lambda token: get_products_request(family, token),
        call=call,
        progress=lambda page: f"{SOURCE_NAME}: GetProducts instanceFamily {family!r} page {page}",
        looping=lambda page: (
            f"{SOURCE_NAME}: GetProducts for instanceFamily {family!r} returned a NextToken "
            f"it had already returned (page {page}): the API is looping; run again later, "
            "and report it if it persists"
        ),
        too_many=(
            f"{SOURCE_NAME}: GetProducts for instanceFamily {family!r} still had a NextToken "
            f"after {MAX_PAGES} pages: raise MAX_PAGES in extract/aws/pricing.py if AWS lists "
            "that many"
        ),
    )


def _get_products(client: Any, request: dict[str, Any], where: str) -> dict[str, Any]:
    """One GetProducts call; expected failures become SourceError with what to do."""
    # imported when a source calls AWS: a replay only parses
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    what = f"{SOURCE_NAME}: GetProducts ({where})"
    try:
        return client.get_products(**request)
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code, message = error.get("Code", "?"), error.get("Message", "")
        raise SourceError(f"{what} failed with {code} ({message}): {_advice(code)}") from exc
    except NoCredentialsError as exc:
        raise SourceSkipped(NO_CREDENTIALS) from exc
    except BotoCoreError as exc:
        raise SourceError(
            f"{what} could not reach the AWS Price List API ({exc}): check the network or "
            "proxy, then run again"
        ) from exc


def _advice(code: str) -> str:
    if code == "ThrottlingException":
        return (
            "AWS throttled the request after the client's retries; run again later (the "
            "Price List API allows about 5 requests a second per account)"
        )
    if code in CREDENTIAL_ERRORS:
        return "refresh the AWS credentials, and allow pricing:GetProducts for them"
    if code in ("InvalidNextTokenException", "ExpiredNextTokenException"):
        return "the page token expired mid-run; run again"
    return "run again later; pages fetched so far are archived"


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Price records from archived GetProducts pages; pure."""
    result = ParseResult()
    items = 0
    names = accelerator_names([p for p in payloads if is_describe(p)])
    for payload in (p for p in payloads if not is_describe(p)):
        origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
        for raw in _price_list(payload):
            items += 1
            try:
                item = decode_item(raw)
            except ValueError as exc:
                count_refused()
                result.rejects.append(Reject(SOURCE_NAME, str(exc), raw, "", payload.ref))
                continue
            result.extend(item_offers(item, origin, expected=TERM_MATCH, raw=raw))
    name_unknown(result, names)
    result.notes = list(dict.fromkeys(result.notes))
    pages = [p for p in payloads if not is_describe(p)]
    if pages and not items:
        refs = ", ".join(p.ref or p.name for p in pages[:3])
        raise ParseError(
            f"{SOURCE_NAME}: {len(pages)} GetProducts page(s) ({refs}) held no products: an "
            "empty answer is refused, not taken as every offer withdrawn; check that the "
            f"instanceFamily values {', '.join(INSTANCE_FAMILIES)} still exist"
        )
    if pages:
        refuse_empty(result, pages, PROVIDER)
    return result


def _price_list(payload: Payload) -> list[Any]:
    page = json_body(payload, SOURCE_NAME, "PriceList")
    if not isinstance(page.get("PriceList"), list):  # an archived Error, which GetProducts never is
        raise ParseError(
            f"{SOURCE_NAME}: payload {payload.ref or payload.name or '?'} ({payload.url}) has no "
            f"PriceList list (found {', '.join(sorted(page))}): re-fetch, or report a format "
            "change"
        )
    return page["PriceList"]


SOURCE = Source(
    most_offers=CLOUD_OFFERS,
    formats=(
        PRODUCTS,
        INSTANCE_TYPES,
    ),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "AWS Price List Query API (GetProducts): EC2 GPU and ML-ASIC instances, Linux "
        "shared-tenancy on-demand and reserved-instance prices in every region"
    ),
    fetch=fetch,
    parse=parse,
    title="AWS",
    checked=Checked(
        asks=(
            "`GetProducts` (AmazonEC2, GPU and ML ASIC instance families, Linux, shared, on demand)"
        ),
        against=(
            "**documented example**: botocore's `GetProducts` example (PriceList as strings, "
            "`location` without `regionCode`)"
        ),
        when="2017 data, 2022 commit",
        rest="accelerator items reconstructed; searched 2026-11-26, none found",
    ),
)
