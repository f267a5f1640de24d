"""AWS's public spot price feed (no credentials): the JSONP file behind the spot pricing page.

callback({"vers": ..., "config": {"rate": "perhr", "currencies": ["USD"], "regions":
[{"region", "instanceTypes": [{"type", "sizes": [{"size", "valueColumns": [{"name": "linux",
"prices": {"USD": "..."}}]}]}]}]}})

One Linux price per region and instance type (the feed has no zones): zone "". The feed
carries no publication time, so a price is dated by its fetch. Values such as "N/A*" mean
no spot market there; Java-style numbers such as "9.0E-4" occur for small prices. The feed
states its unit (`rate`) and currencies once for every price: a feed in another unit or
currency has each of its rows refused, never read as US dollars an hour.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from chipcost.core.catalog import aws_chip_for, aws_families, aws_family
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._http import http_client
from chipcost.extract._kit import Origin, TooDeep, json_of, missing_fields, positive
from chipcost.extract.aws._files import get_bytes
from chipcost.extract.aws._price_list import FAMILIES_CSV, INSTANCE_TYPE, INSTANCE_TYPES_CSV
from chipcost.extract.aws._public import REGION_CODE, skip_if_credentials
from chipcost.extract.base import CLOUD_OFFERS, Checked, FetchContext, Source, refuse_empty

SOURCE_NAME = "aws-spot-feed"
PROVIDER = "aws"
SPOT_FEED_URL = "https://website.spot.ec2.aws.a2z.com/spot.js"
INSTEAD = "spot prices come from aws-spot (DescribeSpotPriceHistory, per zone)"
LINUX_COLUMN = "linux"
# The unit and currency the parser reads: every feed recorded states "perhr" and ["USD"]. A
# price per minute or month read as hourly would load 60 or 730 times off, so another unit
# (or no unit stated) refuses the feed's rows, as Azure's unit and AWS's Price List unit do.
HOURLY_RATE = "perhr"
CURRENCY = "USD"
# The feed still names the oldest regions the way the 2010 pricing pages did.
REGION_ALIASES = {
    "us-east": "us-east-1",
    "us-west": "us-west-1",
    "eu-ireland": "eu-west-1",
    "apac-sin": "ap-southeast-1",
    "apac-syd": "ap-southeast-2",
    "apac-tokyo": "ap-northeast-1",
}
# callback({...}); copies of the feed kept by other projects may open with a /* comment */.
JSONP = re.compile(r"^\s*(?:/\*.*?\*/\s*)*[\w.$]+\s*\((?P<body>.*)\)\s*;?\s*$", re.DOTALL)
# The feed's type groups of accelerator instances: gpuCurrentGen (as recorded, Inferentia
# too), gpuPreviousGen, and an ML group such as the sample's mlCurrentGen. A size in a current
# group of a family the catalog lacks is a new accelerator (p7.48xlarge): refused naming what
# to add, never skipped without a word. Other groups' sizes of such families are not ours.
ACCELERATOR_GROUPS = re.compile(r"^(gpu|ml)", re.IGNORECASE)
# Groups of retired types ("gpuPreviousGen"): a family the catalog lacks there is noted, not
# refused; one in a current group ("gpuCurrentGen") is a new accelerator, refused by name.
PREVIOUS_GENERATION = re.compile(r"previous", re.IGNORECASE)
SETTING = "CHIPCOST_AWS_SPOT_FEED_URL"


def _text(data: bytes) -> str:
    """The feed's text in the encoding its bytes say, as json.loads reads every JSON source's
    answer: a UTF-8 byte order mark before `callback(` is read past (it failed the feed as
    neither JSONP nor JSON), UTF-16 by its mark or its zero bytes."""
    return data.decode(json.detect_encoding(data), errors="replace")


def _document(data: bytes) -> Any:
    """The feed's object, out of its callback(...) when it has one."""
    text = _text(data)
    match = JSONP.match(text)
    return json.loads(match.group("body") if match else text)


# The feed's regions, their instance types, sizes and price columns, as spot.js (JSONP) and
# the plain spot.json a mirror may serve hold them.
FEED_ROWS = (
    Rows("config.regions[]", {"region": "string", "footnotes": "object", "instanceTypes": "array"}),
    Rows("config.regions[].instanceTypes[]", {"type": "string", "sizes": "array"}),
    Rows(
        "config.regions[].instanceTypes[].sizes[]",
        {"size": "string", "valueColumns": "array"},
        prices=("prices",),
    ),
    Rows(
        "config.regions[].instanceTypes[].sizes[].valueColumns[]",
        {"name": "string", "prices": "object"},
    ),
)
FEED = Format("spot price feed (JSONP)", "/spot.js", FEED_ROWS, decode=_document)
PLAIN_FEED = Format("spot price feed (plain JSON)", "/spot.json", FEED_ROWS)


def fetch(ctx: FetchContext) -> list[Payload]:
    """The feed, archived as it arrived."""
    skip_if_credentials(SOURCE_NAME, INSTEAD)
    url = ctx.settings.aws_spot_feed_url or SPOT_FEED_URL
    with http_client(SOURCE_NAME, ctx) as client:
        data = get_bytes(client, url, SOURCE_NAME)
    return [ctx.archive.write(data, url, ext="js", request={"kind": "spot-feed"})]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One spot record per region and accelerator type with a Linux price; pure."""
    result = ParseResult()
    for payload in payloads:
        feed = _feed(payload)
        unread = _unread(feed["config"], payload)
        for region in _list(feed["config"], "regions"):
            result.extend(_region(payload, region, str(feed.get("vers", "")), unread))
    result.notes = list(dict.fromkeys(result.notes))  # a family's note once, not per region
    if payloads:
        refuse_empty(result, payloads, PROVIDER)
    return result


def _feed(payload: Payload) -> dict[str, Any]:
    where = f"{SOURCE_NAME}: payload {payload.ref or payload.name or '?'} ({payload.url})"
    text = _text(payload.data)
    match = JSONP.match(text)
    # spot.json beside spot.js holds the same object without callback(...): a mirror may serve it.
    if not match and not text.lstrip().startswith("{"):
        raise ParseError(
            f"{where} is not a JSONP callback(...) file nor the feed's plain JSON: "
            "report a format change"
        )
    try:
        feed = json_of(match.group("body") if match else text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{where} holds no valid JSON ({exc}): fetch it again") from exc
    except TooDeep:  # named by payload and URL, as every other refusal of the feed is
        raise ParseError(
            f"{where} is nested deeper than the JSON reader goes (about 1,000 levels): not "
            "AWS's feed; report it"
        ) from None
    if not isinstance(feed, dict) or not isinstance(feed.get("config"), dict):
        raise ParseError(f"{where} has no config object: report a format change")
    if not isinstance(feed["config"].get("regions"), list):
        found = ", ".join(sorted(feed["config"])) or "nothing"
        raise ParseError(
            f"{where} has no config.regions list (found {found}): report a format change"
        )
    return feed


def _unread(config: Mapping[str, Any], payload: Payload) -> str:
    """Why no price of this feed is read as US dollars an hour ("" when all can be): its
    `rate` or `currencies`, stated once for the whole feed, is one the parser does not read."""
    where = f"payload {payload.ref or payload.name or '?'}"
    if missing := missing_fields(config, ("rate",)):
        return f"config {missing} ({where}); report it"
    if config["rate"] != HOURLY_RATE:
        return (
            f"config.rate {config['rate']!r} is not {HOURLY_RATE!r} ({where}): a price not "
            "per hour is not read; report it"
        )
    currencies = config.get("currencies", [CURRENCY])
    if not isinstance(currencies, list) or CURRENCY not in currencies:
        return (
            f"config.currencies {currencies!r} lacks {CURRENCY} ({where}): not converted; "
            f"point {SETTING} at AWS's own feed, or report it"
        )
    return ""


def _list(parent: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = parent.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _region(payload: Payload, entry: Mapping[str, Any], vers: str, unread: str) -> ParseResult:
    result = ParseResult()
    origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
    name = str(entry.get("region", ""))
    region = REGION_ALIASES.get(name, name)
    families = aws_families()
    for group in _list(entry, "instanceTypes"):
        kind = str(group.get("type", ""))
        for size in _list(group, "sizes"):
            instance_type = str(size.get("size", ""))
            family = aws_family(instance_type)
            known = family in families
            if not known and not ACCELERATOR_GROUPS.match(kind):
                continue  # not an accelerator type: not a price this source collects
            if not known and PREVIOUS_GENERATION.search(kind):
                # a retired accelerator the catalog never mapped (the feed's gpuPreviousGen
                # has listed cg1): named once a run, not refused in every region every day
                result.notes.append(
                    f"{family} sizes in the feed's {kind} group are not collected: the "
                    f"family is not in {FAMILIES_CSV} (add it there to price it)"
                )
                continue
            raw = {"region": name, "type": group.get("type"), **size}
            extra = {"feedRegion": name, "feedType": kind, "feedVersion": vers}
            try:
                if unread:
                    raise _Refused(unread)
                if not known:
                    raise _Refused(
                        f"family {family} is not in {FAMILIES_CSV}, though the feed lists it "
                        f"in {kind}: add it there, and its sizes to {INSTANCE_TYPES_CSV}"
                    )
                record = _spot_record(origin, region, instance_type, size, extra)
            except _Refused as exc:
                reason = f"{instance_type} in {region or name}: {exc}"
                offer = None if isinstance(exc, _NotOffered) else _offer(region, instance_type)
                result.rejects.append(origin.reject(reason, raw, offer=offer))
                continue
            result.records.append(record)
    return result


class _Refused(Exception):
    """Internal: a feed entry that cannot become a record; the message says why."""


class _NotOffered(_Refused):
    """Internal: the feed's word that the size has no spot market there ("N/A")."""


def _offer(region: str, instance_type: str) -> dict[str, str | None]:
    """The offer a refused entry keeps open: its spot offer in its region, or in every region
    when the feed names one chipcost cannot tell (a renamed region could be any of them). An
    entry the feed says has no spot market there names none: its offer is withdrawn."""
    known = region if REGION_CODE.match(region) else None
    return {"region": known, "instance_type": instance_type, "pricing_model": "spot"}


def _spot_record(
    origin: Origin,
    region: str,
    instance_type: str,
    size: Mapping[str, Any],
    extra: dict[str, str],
) -> PriceRecord:
    if not REGION_CODE.match(region):
        raise _Refused(f"unknown region name in the feed: add it to REGION_ALIASES in {__name__}")
    if not INSTANCE_TYPE.fullmatch(instance_type):
        raise _Refused(
            f"size {instance_type!r} is not an EC2 instance type name (lower-case letters, "
            "digits and hyphens, a dot): refused, not loaded as another type"
        )
    match = aws_chip_for(instance_type)
    if not match.chip_count > 0:
        raise _Refused(f"chip count unknown: add {instance_type} to {INSTANCE_TYPES_CSV}")
    return origin.record(
        region=region,
        instance_type=instance_type,
        chip=match.chip,
        chip_count=match.chip_count,
        pricing_model="spot",
        price_per_hour=_linux_price(size),
        extra={k: v for k, v in (extra | match.share_label() | estimate_of(size)).items() if v},
    )


def _linux_price(size: Mapping[str, Any]) -> float:
    columns = _list(size, "valueColumns")
    texts = {_usd(c) for c in columns if str(c.get("name")) == LINUX_COLUMN}
    if not texts:
        found = ", ".join(str(c.get("name")) for c in columns) or "none"
        raise _Refused(f"no {LINUX_COLUMN!r} price column (found {found})")
    if len(texts) > 1:  # neither is the price: the feed says two things of one size
        raise _Refused(f"{LINUX_COLUMN!r} priced twice: {', '.join(sorted(texts))}")
    return spot_price(texts.pop())


def _usd(column: Mapping[str, Any]) -> str:
    prices = column.get("prices")
    if not isinstance(prices, dict):
        return ""
    if CURRENCY not in prices and prices:
        found = ", ".join(map(str, prices))
        raise _Refused(f"priced in {found}, not {CURRENCY}: not converted; report it")
    return str(prices.get(CURRENCY, ""))


def spot_price(text: str) -> float:
    """USD per hour from the feed's text: '9.0E-4' is a number, 'N/A*' is no spot market."""
    if text.strip().upper().startswith("N/A"):
        raise _NotOffered(f"no spot market: the feed lists {text!r} (not offered as spot here)")
    return positive(text, "spot price", _Refused)


SOURCE = Source(
    most_offers=CLOUD_OFFERS,
    formats=(FEED, PLAIN_FEED),
    settings={"aws_spot_feed_url": SETTING},
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "AWS public spot price feed (no credentials needed): Linux spot prices of GPU and "
        "ML-ASIC instances per region; runs only when no AWS credentials are found"
    ),
    fetch=fetch,
    parse=parse,
    title="AWS",
    checked=Checked(
        asks="the public `spot.js` feed",
        against=(
            "**recorded**: AWS's feed as its `spot.json` twin serves it (alexei-led/spotinfo's "
            "copy), an excerpt: af-south-1's GPU group, seven g4dn sizes and inf1.24xlarge; "
            "spot.js trimmed by ligoj/plugin-prov-aws to 4 non-accelerator sizes"
        ),
        when="2025 or later; 2018-04-10",
        rest="the other regions' accelerator sizes",
    ),
)
