"""AWS's Spot Instance Advisor data (public, no credentials): how often spot capacity of an
instance type is taken back, per region and operating system, and the usual saving.

{"ranges": [{"index": 0, "label": "<5%", "dots": 0, "max": 5}, ...],
 "instance_types": {"p5.48xlarge": {"emr": ..., "cores": ..., "ram_gb": ...}},
 "spot_advisor": {"us-east-1": {"Linux": {"p5.48xlarge": {"s": 70, "r": 1}}, "Windows": ...}}}

`r` indexes `ranges` (the frequency of interruption bucket shown on AWS's Spot Instance
Advisor page), `s` is the savings over on-demand in percent. Not prices: each accelerator
type's bucket goes to the warehouse's `spot_interruptions`, which `prices` shows beside an AWS
spot price and `cost --max-interruption` filters on. Other instance types are counted in a
note. The bucket's upper bound is read from its label ("5-10%" -> 10, ">20%" -> 100).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from chipcost.core.catalog import aws_families, aws_family
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract._formats import Format, Rows
from chipcost.extract._http import http_client
from chipcost.extract._kit import Origin, TooDeep, json_of
from chipcost.extract.aws._files import get_bytes
from chipcost.extract.aws._price_list import INSTANCE_TYPE
from chipcost.extract.aws._public import REGION_CODE
from chipcost.extract.base import Checked, FetchContext, Source, refuse_empty

SOURCE_NAME = "aws-spot-advisor"
PROVIDER = "aws"
ADVISOR_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
TABLE = "spot_interruptions"
# "<5%", "5-10%", ">20%": the upper bound of a bucket, in percent (100 for an open one).
# [0-9], not \d: \d matches every script's digits, and float() reads them all.
_NUMBER = r"[0-9]+(?:\.[0-9]+)?"
_BOUND = re.compile(
    rf"^\s*(?:(?P<lt><)\s*(?P<lt_v>{_NUMBER})|(?P<lo>{_NUMBER})\s*-\s*(?P<hi>{_NUMBER})"
    rf"|(?P<gt>>)\s*{_NUMBER})\s*%\s*\Z"
)

ADVISOR = Format(
    "Spot Instance Advisor data",
    "/spot-advisor-data.json",
    (
        Rows(
            "ranges[]",
            {
                "index": "integer",
                "label": "string",
                "dots": "integer",
                "max": "integer",
            },
        ),
        Rows(
            "instance_types.*",
            {
                "emr": "boolean",
                "cores": "integer",
                "ram_gb": "number",
            },
        ),
        Rows(
            "spot_advisor.*.*.*",
            {
                "s": "integer",
                "r": "integer",
            },
        ),
    ),
)


def fetch(ctx: FetchContext) -> list[Payload]:
    """The advisor's one data file, archived as it arrived."""
    with http_client(SOURCE_NAME, ctx) as client:
        data = get_bytes(client, ADVISOR_URL, SOURCE_NAME)
    return [ctx.archive.write(data, ADVISOR_URL, ext="json", request={"kind": "spot-advisor"})]


def bucket_max(label: str) -> float | None:
    """The bucket's upper bound in percent: '<5%' -> 5, '5-10%' -> 10, '>20%' -> 100."""
    found = _BOUND.match(label)
    if not found:
        return None
    if found["lt"]:
        return float(found["lt_v"])
    if found["gt"]:
        return 100.0
    return float(found["hi"])


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One spot_interruptions row per region, accelerator type and operating system; pure."""
    result = ParseResult()
    rows: list[dict[str, object]] = []
    others = 0
    for payload in payloads:
        body = _body(payload)
        origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
        ranges = _ranges(body, payload, origin, result)
        if not ranges:  # every bucket unreadable: no row could say its risk
            raise ParseError(
                f"{SOURCE_NAME}: payload {payload.ref or payload.name} ({payload.url}) lists no "
                "readable bucket in ranges: an empty or changed file; the buckets held are kept"
            )
        families = aws_families()
        for region, systems in body["spot_advisor"].items():
            if not isinstance(systems, dict):
                result.rejects.append(origin.reject(f"{region}: not an object", systems))
                continue
            for os_name, types in systems.items():
                if not isinstance(types, dict):  # one entry of a wrong type: one reject
                    what = f"{region} ({os_name}): not an object of instance types"
                    result.rejects.append(origin.reject(what, {"type": type(types).__name__}))
                    continue
                for instance_type, stats in types.items():
                    if aws_family(instance_type) not in families:
                        others += 1
                        continue
                    row = _row(origin, ranges, region, os_name, instance_type, stats, result)
                    if row is not None:
                        rows.append(row)
    result.facts[TABLE] = rows
    if others:
        result.notes.append(f"{others} row(s) not loaded: not an accelerator instance type")
    if not rows and not result.rejects:
        refuse_empty(result, payloads, PROVIDER, rows=others)
    return result


def _body(payload: Payload) -> dict[str, Any]:
    where = f"{SOURCE_NAME}: payload {payload.ref or payload.name or '?'} ({payload.url})"
    try:
        body = json_of(payload.data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(f"{where} holds no valid JSON ({exc}): fetch it again") from None
    except TooDeep:  # a document nested thousands deep: no advisor file is
        raise ParseError(
            f"{where} is nested deeper than Python's JSON reader goes: not the advisor's data; "
            "fetch it again, or report it"
        ) from None
    if not isinstance(body, dict):
        raise ParseError(f"{where} is not a JSON object: report a format change")
    for key, kind in (("spot_advisor", dict), ("ranges", list)):
        if not isinstance(body.get(key), kind):
            found = ", ".join(sorted(body)) or "nothing"
            raise ParseError(
                f"{where} has no {key} {kind.__name__} (found {found}): the advisor's data "
                "changed shape; report it"
            )
    return body


def _ranges(
    body: dict[str, Any], payload: Payload, origin: Origin, result: ParseResult
) -> dict[int, tuple[str, float]]:
    """Bucket index -> (label, upper bound): a range whose label cannot be read is refused."""
    found = {}
    for entry in body["ranges"]:
        label = str(entry.get("label", "")) if isinstance(entry, dict) else ""
        top = bucket_max(label)
        index = entry.get("index") if isinstance(entry, dict) else None
        if top is None or not isinstance(index, int) or isinstance(index, bool):
            result.rejects.append(origin.reject(f"a range that is not a bucket: {entry!r}", entry))
            continue
        found[index] = (label.strip(), top)
    return found


def _row(
    origin: Origin,
    ranges: dict[int, tuple[str, float]],
    region: str,
    os_name: str,
    instance_type: str,
    stats: Any,
    result: ParseResult,
) -> dict[str, object] | None:
    raw = {"region": region, "os": os_name, "instance_type": instance_type, "stats": stats}
    where = f"{instance_type} in {region} ({os_name})"
    index = stats.get("r") if isinstance(stats, dict) else None
    if not REGION_CODE.match(region):
        result.rejects.append(origin.reject(f"{where}: not a region code", raw))
        return None
    if not INSTANCE_TYPE.fullmatch(instance_type):
        result.rejects.append(origin.reject(f"{where}: not an instance type name", raw))
        return None
    if not isinstance(index, int) or isinstance(index, bool) or index not in ranges:
        result.rejects.append(origin.reject(f"{where}: bucket {index!r} is not in ranges", raw))
        return None
    savings = stats.get("s")
    # A saving may be negative: AWS's own file lists p5.48xlarge in ca-central-1 at -62 (spot
    # dearer than its on-demand basis). The bucket still holds, so the row is kept as stated.
    if savings is not None and (
        isinstance(savings, bool) or not isinstance(savings, int | float) or not savings <= 100
    ):
        result.rejects.append(origin.reject(f"{where}: savings {savings!r} is not a percent", raw))
        return None
    if savings is not None and savings < 0:
        result.notes.append(f"{where}: savings {savings} (spot dearer than on demand, as stated)")
    label, top = ranges[index]
    return {
        "region": region,
        "instance_type": instance_type,
        "os": os_name,
        "interruption": label,
        "interruption_max": top,
        "savings_percent": None if savings is None else float(savings),
        "source": origin.source,
        "observed_at": origin.observed_at,
        "payload_ref": origin.payload_ref,
    }


SOURCE = Source(
    formats=(ADVISOR,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "AWS Spot Instance Advisor data (public, no credentials): the frequency of "
        "interruption bucket and savings per region, accelerator type and OS"
    ),
    fetch=fetch,
    parse=parse,
    reference=True,
    title="AWS",
    checked=Checked(
        asks="the Spot Instance Advisor's data file",
        against=(
            "**recorded**: AWS's whole file as alexei-led/spotinfo fetched it (33 regions, 1,428 "
            "accelerator rows)"
        ),
        when="2025-06-28",
    ),
)
