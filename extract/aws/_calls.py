"""What the AWS API sources share: a credential-checked client, AWS errors in plain words, JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from chipcost.core.catalog import ChipMatch, aws_chip_for
from chipcost.core.commands import REPLAY_DIR
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.core.payload import Payload
from chipcost.extract._kit import json_of, positive

if TYPE_CHECKING:
    import botocore.config

    from chipcost.extract.base import FetchContext

# Without credentials the public price files stand in (extract/aws/bulk.py, aws_spot_feed.py).
NO_CREDENTIALS = (
    "no AWS credentials: public price files are used instead (aws-bulk, aws-spot-feed); "
    "set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY to use the APIs "
    f"(or run `{REPLAY_DIR}`)"
)
# Error codes that mean "these credentials may not make this call".
CREDENTIAL_ERRORS = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
    }
)
# Throttling error codes: the Savings Plans API's, then EC2's.
THROTTLING = frozenset({"ThrottlingException", "Throttling", "RequestLimitExceeded"})
# EC2 codes that mean "this account cannot use this region" (not enabled, opt-in needed).
REGION_UNUSABLE = frozenset({"OptInRequired", "AuthFailure"})
# A zone name starts with its region: us-east-1a, us-west-2-lax-1a (Local Zone),
# us-east-1-wl1-bos-wlz-1 (Wavelength).
ZONE_REGION = re.compile(r"^([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-[0-9]+)")
# An availability zone as AWS names it ("us-east-1a", a Local Zone's "us-west-2-lax-1a"):
# one with anything else in it ("us-east-1a\x00") is no other zone to load beside it.
ZONE_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


@cache
def client_config() -> botocore.config.Config:
    """The AWS clients' config. Retries with backoff for throttling and 5xx live on the
    client, not in a loop here. The calls go to AWS's own endpoints: an endpoint in
    AWS_ENDPOINT_URL (or the AWS config files) is ignored, since it is typically an
    S3-compatible store's, set for s3fs or the AWS CLI, where the Price List, EC2 and
    Savings Plans APIs do not exist (docs/deploy.md)."""
    import botocore.config  # imported when a source calls AWS: a replay only parses

    return botocore.config.Config(
        connect_timeout=10,
        read_timeout=60,
        retries={"max_attempts": 8, "mode": "adaptive"},
        ignore_configured_endpoint_urls=True,
    )


class RowRefused(Exception):
    """A row of an AWS answer that cannot become a record; the message is the reject reason,
    `offer` the fields of the offer's key the row was read for before it was refused (its
    reject keeps that offer open: Origin.reject), None where the row names no offer."""

    def __init__(self, message: str, offer: dict[str, str | None] | None = None) -> None:
        super().__init__(message)
        self.offer = offer


def catalog_accelerator(instance_type: str) -> ChipMatch:
    """The catalog's chip for a type these sources asked for by name, or RowRefused."""
    match = aws_chip_for(instance_type)
    if not match.known_type:
        raise RowRefused(
            f"instance type {instance_type} is not an accelerator type of the catalog "
            "(core/data/aws_instance_types.csv), and this source asked only for those"
        )
    return match


def positive_number(text: object, name: str) -> float:
    """A price or rate of an AWS answer as a number, or RowRefused when it is not a positive,
    finite one; `name` is what the message calls it (SpotPrice, rate)."""
    return positive(text, name, RowRefused)


class AwsCallFailed(SourceError):
    """An AWS call failed after the client's retries: AWS's error `code` and `aws_message`."""

    def __init__(self, message: str, code: str = "", aws_message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.aws_message = aws_message

    def error_body(self) -> bytes:
        """The error as AWS stated it, archived where the call is not a failure of the source."""
        return json.dumps({"Error": {"Code": self.code, "Message": self.aws_message}}).encode()


def aws_client(service: str, region: str, source: str) -> Any:
    """A boto3 client with timeouts and adaptive retries; SourceSkipped without credentials."""
    import boto3  # here, not at import: a replay or a read command never builds a client
    from botocore.exceptions import BotoCoreError

    try:
        credentials = boto3.Session().get_credentials()
    except BotoCoreError as exc:
        raise SourceError(
            f"{source}: cannot load AWS credentials ({exc}): fix AWS_PROFILE or the AWS config "
            "files"
        ) from exc
    if credentials is None:
        raise SourceSkipped(NO_CREDENTIALS)
    return boto3.client(service, region_name=region, config=client_config())


@contextmanager
def aws_errors(what: str, permission: str) -> Iterator[None]:
    """Turn what boto3 raises inside the block into SourceError/SourceSkipped naming `what`."""
    # imported when a source calls AWS: a replay only parses
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, PaginationError

    try:
        yield
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code, message = error.get("Code", "?"), error.get("Message", "")
        raise AwsCallFailed(
            f"{what} failed with {code} ({message}): {advice(code, permission)}", code, message
        ) from exc
    except NoCredentialsError as exc:
        raise SourceSkipped(NO_CREDENTIALS) from exc
    except PaginationError as exc:
        raise AwsCallFailed(
            f"{what}: the API returned a page token it had already returned ({exc}): it is "
            "looping; run again later, and report it if it persists"
        ) from exc
    except BotoCoreError as exc:
        raise AwsCallFailed(
            f"{what} could not reach AWS ({exc}): check the network or proxy, then run again"
        ) from exc


def advice(code: str, permission: str) -> str:
    """What a user can do about an AWS error code."""
    code = str(code)  # a damaged error body may carry a list or a number here
    if code == "OptInRequired":
        return "this account has not enabled the region: enable it, or ignore this note"
    if code in ("Unsupported", "UnsupportedOperation"):
        return "AWS does not offer this in this region"
    if code in THROTTLING:
        return "AWS throttled the request after the client's retries; run again later"
    if code in CREDENTIAL_ERRORS or code in ("UnauthorizedOperation", "AuthFailure"):
        return f"refresh the AWS credentials, and allow {permission} for them"
    if code in ("InvalidNextTokenException", "InvalidNextToken", "ExpiredNextTokenException"):
        return "the page token expired mid-run; run again"
    if code in ("ValidationException", "InvalidParameterValue", "InvalidParameterCombination"):
        return "AWS refused the request's parameters: report it with the archived run"
    return "run again later; pages fetched so far are archived"


def token_pages(
    ctx: FetchContext,
    url: str,
    *,
    token: str,
    max_pages: int,
    request_of: Callable[[str | None], dict[str, Any]],
    call: Callable[[dict[str, Any], int], Mapping[str, Any]],
    progress: Callable[[int], str],
    looping: Callable[[int], str],
    too_many: str,
) -> list[Payload]:
    """Every page of an AWS call that pages by a `token` ("NextToken"), each archived as it
    arrives with the request that asked for it (its token included).

    A token returned twice is a looping API (`looping(page)` says so) and more than
    `max_pages` pages a runaway one (`too_many`): both fail the source, never loop for ever.
    """
    payloads: list[Payload] = []
    seen: set[str] = set()
    next_token: str | None = None
    for page in range(1, max_pages + 1):
        request = request_of(next_token)
        response = call(request, page)
        archived = {**request, token: next_token}
        payloads.append(ctx.archive.write(response_bytes(response), url, request=archived))
        ctx.progress(progress(page))
        next_token = response.get(token)
        if not next_token:
            return payloads
        if next_token in seen:
            raise SourceError(looping(page))
        seen.add(next_token)
    raise SourceError(too_many)


def response_bytes(response: Mapping[str, Any]) -> bytes:
    """A response as the JSON AWS sent (boto3's datetimes back to ISO 8601), metadata dropped."""
    body = {key: value for key, value in response.items() if key != "ResponseMetadata"}
    return json.dumps(body, default=_iso).encode("utf-8")


def json_safe(request: Mapping[str, Any]) -> dict[str, Any]:
    """A request's parameters as they can be written to a manifest (datetimes as ISO 8601)."""
    return json.loads(json.dumps(dict(request), default=_iso))


def _iso(value: object) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def named(names: list[str], limit: int = 8) -> str:
    """'a, b, c' or, for long lists, the first few and how many more (for notes)."""
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"


def zone_refused(zone: str) -> str:
    """Why `zone` is not read as an availability zone's name ("" when it is one)."""
    if ZONE_NAME.fullmatch(zone):
        return ""
    return (
        f"AvailabilityZone {zone!r} is not an AWS zone name (lower-case letters, digits and "
        "hyphens): refused, not loaded as another zone"
    )


def region_of_zone(zone: str) -> str:
    """The region an availability zone (or Local/Wavelength Zone) belongs to, or ''."""
    match = ZONE_REGION.match(zone) if isinstance(zone, str) else None
    return match.group(1) if match else ""


def json_body(payload: Payload, source: str, key: str) -> dict[str, Any]:
    """A payload's JSON object holding a `key` list (or an archived `Error`); else ParseError."""
    where = f"{source}: payload {payload.ref or payload.name or '?'} ({payload.url})"
    try:
        body = json_of(payload.data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(
            f"{where} is not JSON ({exc}): re-fetch, or report a format change"
        ) from exc
    if not isinstance(body, dict):
        raise ParseError(f"{where} is a JSON {type(body).__name__}, not an object: re-fetch")
    if not isinstance(body.get(key), list) and "Error" not in body:
        raise ParseError(
            f"{where} has no {key} list (found {', '.join(sorted(body)) or 'nothing'}): "
            "re-fetch, or report a format change"
        )
    return body
