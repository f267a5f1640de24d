"""Sample payloads of aws-savings-plans, aws-spot and aws-capacity-blocks for one run day.

Registered in EXTRA_WRITERS of scripts/make_sample_archive.py. Each response has AWS's real
shape (DescribeSavingsPlansOfferingRates, DescribeRegions, DescribeSpotPriceHistory,
DescribeCapacityBlockOfferings) and its request as the source records it; the prices are
synthetic (derived from the sample's on-demand prices), deterministic, and labelled: every
manifest says "sample": true and every response carries a top-level "chipcostSample" key.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from aws_price_list_payloads import SAMPLE_KEY, SAMPLE_LABEL, listed_price  # noqa: E402

from chipcost.archive import ArchiveWriter, run_stamp  # noqa: E402
from chipcost.core.catalog import aws_capacity_block_types  # noqa: E402
from chipcost.extract import aws_capacity_blocks as cb  # noqa: E402
from chipcost.extract import aws_savings_plans as sp  # noqa: E402
from chipcost.extract import aws_spot as spot  # noqa: E402

# Where each sample type is sold: a subset of the Price List sample's regions.
TYPES_REGIONS = {
    "p4d.24xlarge": ("us-east-1", "us-west-2"),
    "p5.48xlarge": ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1"),
    "p5en.48xlarge": ("us-east-1", "us-east-2"),
    "g6e.xlarge": ("us-east-1", "us-west-2"),
    "g6e.48xlarge": ("us-east-1", "us-west-2"),
    "trn1.32xlarge": ("us-east-1", "us-east-2"),
    "trn2.48xlarge": ("us-east-2", "us-west-2"),
    "inf2.48xlarge": ("us-east-1", "us-west-2"),
}
USAGE_PREFIX = {
    "us-east-1": "",
    "us-east-2": "USE2-",
    "us-west-2": "USW2-",
    "ap-northeast-1": "APN1-",
}
# Savings-plan rate as a share of on-demand, per (plan type, years) and payment option.
SP_SHARE = {
    ("Compute", 1): (0.72, 0.69, 0.67),
    ("Compute", 3): (0.50, 0.47, 0.45),
    ("EC2Instance", 1): (0.65, 0.62, 0.61),
    ("EC2Instance", 3): (0.42, 0.40, 0.38),
}
# Results per sample page: small, so that the first batch spans two pages as a real one can.
SP_PAGE = 100
ZONES = {
    "us-east-1": ("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1f"),
    "us-east-2": ("us-east-2a", "us-east-2b", "us-east-2c"),
    "us-west-2": ("us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"),
    "ap-northeast-1": ("ap-northeast-1a", "ap-northeast-1c", "ap-northeast-1d"),
}
# Typical spot price as a share of on-demand.
SPOT_SHARE = {
    "p4d.24xlarge": 0.45,
    "p5.48xlarge": 0.40,
    "p5en.48xlarge": 0.42,
    "g6e.xlarge": 0.35,
    "g6e.48xlarge": 0.37,
    "trn1.32xlarge": 0.38,
    "trn2.48xlarge": 0.45,
    "inf2.48xlarge": 0.34,
}
# Capacity Block price per instance-hour (us-east-1 level), and what the sample offers.
BLOCK_RATE = {
    "p4d.24xlarge": 11.7946,
    "p5.48xlarge": 31.464,
    "p5en.48xlarge": 36.184,
    "trn1.32xlarge": 9.8304,
    "trn2.48xlarge": 35.76,
}
BLOCK_CALLS = (
    ("us-east-1", "p5.48xlarge", (24, 168, 336)),
    ("us-east-1", "trn1.32xlarge", (24,)),
    ("us-east-2", "p5.48xlarge", (24, 168, 336)),
    ("us-east-2", "p5en.48xlarge", (24,)),
    ("us-east-2", "trn2.48xlarge", (336,)),
    ("us-west-2", "p4d.24xlarge", (168,)),
    ("ap-northeast-1", "p6-b300.48xlarge", (24,)),  # not sold there: an archived error
)
NOT_SUPPORTED = "The requested instance type is not supported for Capacity Blocks in this Region."


def unit(*parts: object) -> float:
    """A stable number in [0, 1) derived from its parts: the sample's only randomness."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big") / 2**48


def token(*parts: object) -> str:
    """A stable page token in the API's alphabet."""
    return "AAEAA" + hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:40]


def labelled(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, SAMPLE_KEY: SAMPLE_LABEL}


def fresh_writer(out: Path, stamp: str, source: str) -> ArchiveWriter:
    if (out / stamp / source).exists():
        shutil.rmtree(out / stamp / source)
    return ArchiveWriter(out, stamp, source, sample=True)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """The three sources' payloads of run day 1..8, archived the way their fetches do."""
    stamp = run_stamp(moment)
    write_savings_plans(fresh_writer(out, stamp, sp.SOURCE_NAME), day, moment)
    write_spot(fresh_writer(out, stamp, spot.SOURCE_NAME), day, moment)
    write_capacity_blocks(fresh_writer(out, stamp, cb.SOURCE_NAME), day, moment)
    return out / stamp


# ------------------------------------------------------------------ savings plans


def sp_rate(instance_type: str, region: str, plan: str, years: int, option: int, day: int):
    """One offering rate; from day 6 Compute plans of p5en are 5% cheaper."""
    share = SP_SHARE[(plan, years)][option]
    if day >= 6 and plan == "Compute" and instance_type.startswith("p5en."):
        share *= 0.95
    payment = list(sp.PAYMENT_OPTIONS)[option]
    family = instance_type.split(".")[0]
    scope = (plan, years, payment) if plan == "Compute" else (plan, years, payment, family, region)
    digest = hashlib.sha256("|".join(map(str, scope)).encode()).hexdigest()
    offering_id = f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
    described = "Compute" if plan == "Compute" else f"{family} EC2 Instance"
    where = "" if plan == "Compute" else f" in {region}"
    return {
        "savingsPlanOffering": {
            "offeringId": offering_id,
            "paymentOption": payment,
            "planType": plan,
            "durationSeconds": 31536000 * years,
            "currency": "USD",
            "planDescription": f"{years} year {payment} {described} Savings Plan{where}",
        },
        "rate": f"{round(listed_price(instance_type, region) * share, 4):g}",
        "unit": "Hrs",
        "productType": "EC2",
        "serviceCode": "AmazonEC2",
        "usageType": f"{USAGE_PREFIX[region]}BoxUsage:{instance_type}",
        "operation": "RunInstances",
        "properties": [
            {"name": "region", "value": region},
            {"name": "instanceType", "value": instance_type},
            {"name": "instanceFamily", "value": family},
            {"name": "productDescription", "value": "Linux/UNIX"},
            {"name": "tenancy", "value": "shared"},
        ],
    }


def write_savings_plans(writer: ArchiveWriter, day: int, moment: datetime) -> None:
    for number, batch in enumerate(sp.type_batches(), 1):
        results = [
            sp_rate(t, region, plan, years, option, day)
            for t in batch
            for region in TYPES_REGIONS.get(t, ())
            for plan, years in SP_SHARE
            for option in range(3)
        ]
        pages = [results[i : i + SP_PAGE] for i in range(0, len(results), SP_PAGE)] or [[]]
        asked_token = None
        for index, page in enumerate(pages):
            body: dict[str, Any] = {"searchResults": page}
            if index + 1 < len(pages):
                body["nextToken"] = token("savings-plans", day, number, index)
            request = sp.offering_rates_request(batch, asked_token)
            request["nextToken"] = asked_token
            url = sp.SAVINGS_PLANS_URL
            writer.write(_json(labelled(body)), url, fetched_at=moment, request=request)
            asked_token = body.get("nextToken")


# ------------------------------------------------------------------ spot


def spot_entries(region: str, day: int, moment: datetime) -> list[dict[str, Any]]:
    """2 or 3 zones per type and region, each price moving a few percent from day to day."""
    entries = []
    for instance_type, regions in TYPES_REGIONS.items():
        if region not in regions:
            continue
        zones = sorted(ZONES[region], key=lambda z: unit(instance_type, z))
        for zone in sorted(zones[: 2 + (unit(instance_type, region) > 0.4)]):
            level = 0.9 + 0.2 * unit(instance_type, zone)
            daily = 1 + 0.12 * (unit(instance_type, zone, day) - 0.5)
            price = listed_price(instance_type, region) * SPOT_SHARE[instance_type] * level * daily
            set_at = moment - timedelta(minutes=int(600 * unit(zone, instance_type, day)) + 5)
            entries.append(
                {
                    "AvailabilityZone": zone,
                    "InstanceType": instance_type,
                    "ProductDescription": "Linux/UNIX",
                    "SpotPrice": f"{price:.6f}",
                    "Timestamp": set_at.isoformat(),
                }
            )
    return entries


def write_spot(writer: ArchiveWriter, day: int, moment: datetime) -> None:
    regions = sorted(ZONES)
    listing = {"Regions": [_region(r) for r in regions]}
    writer.write(
        _json(labelled(listing)),
        spot.EC2_URL.format(region=spot.HOME_REGION, operation=spot.REGIONS_OPERATION),
        fetched_at=moment,
        request={"operation": spot.REGIONS_OPERATION, "region": spot.HOME_REGION},
    )
    request = spot.spot_request(spot.spot_types(), moment)
    for region in regions:
        entries = spot_entries(region, day, moment)
        # us-east-1 comes in two pages, so that replays go through the NextToken too.
        cut = len(entries) // 2 if region == "us-east-1" else len(entries)
        pages = [entries[:cut], entries[cut:]] if cut < len(entries) else [entries]
        asked_token = None
        for index, page in enumerate(pages):
            body: dict[str, Any] = {"SpotPriceHistory": page}
            last = index + 1 == len(pages)
            body["NextToken"] = "" if last else token("spot", region, day, index)
            asked = {"operation": spot.HISTORY, "region": region, **request}
            asked.update(StartTime=moment.isoformat())
            asked.update(MaxResults=spot.PAGE_SIZE, NextToken=asked_token)
            url = spot.EC2_URL.format(region=region, operation=spot.HISTORY)
            writer.write(_json(labelled(body)), url, fetched_at=moment, request=asked)
            asked_token = body["NextToken"] or None


def _region(name: str) -> dict[str, str]:
    return {
        "OptInStatus": "opt-in-not-required",
        "RegionName": name,
        "Endpoint": f"ec2.{name}.amazonaws.com",
    }


# ------------------------------------------------------------------ capacity blocks


def block_offerings(region: str, instance_type: str, hours: int, day: int, moment: datetime):
    """Offerings in two zones; us-east-1's first zone also offers a later, dearer start."""
    zones = sorted(ZONES[region], key=lambda z: unit("block", instance_type, z))[:2]
    starts = [(zones[0], 1), (zones[1], 2)] + ([(zones[0], 4)] if region == "us-east-1" else [])
    found = []
    for zone, days_ahead in starts:
        start = moment.replace(hour=11, minute=30) + timedelta(days=days_ahead)
        level = (
            1 + 0.06 * (unit(instance_type, zone, hours, day, days_ahead) - 0.5) + 0.01 * days_ahead
        )
        fee = round(BLOCK_RATE[instance_type] * hours * level, 2)
        digest = hashlib.sha256(
            f"{zone}{instance_type}{hours}{day}{days_ahead}".encode()
        ).hexdigest()
        found.append(
            {
                "CapacityBlockOfferingId": f"cb-0{digest[:16]}",
                "InstanceType": instance_type,
                "AvailabilityZone": zone,
                "InstanceCount": cb.INSTANCE_COUNT,
                "StartDate": start.isoformat(),
                "EndDate": (start + timedelta(hours=hours)).isoformat(),
                "CapacityBlockDurationHours": hours,
                "UpfrontFee": f"{fee:.2f}",
                "CurrencyCode": "USD",
                "Tenancy": "default",
                "CapacityBlockDurationMinutes": 0,
            }
        )
    return found


def write_capacity_blocks(writer: ArchiveWriter, day: int, moment: datetime) -> None:
    types = aws_capacity_block_types()
    calls = sorted(BLOCK_CALLS, key=lambda c: (cb.REGIONS.index(c[0]), types.index(c[1])))
    for region, instance_type, durations in calls:
        url = cb.EC2_URL.format(region=region)
        for hours in durations:
            request = {"region": region, **cb.offerings_request(instance_type, hours)}
            if instance_type not in BLOCK_RATE:
                error = {"Code": "Unsupported", "Message": NOT_SUPPORTED}
                writer.write(_json({"Error": error}), url, fetched_at=moment, request=request)
                continue
            body = {
                "CapacityBlockOfferings": block_offerings(region, instance_type, hours, day, moment)
            }
            request.update(MaxResults=cb.PAGE_SIZE, NextToken=None)
            writer.write(_json(labelled(body)), url, fetched_at=moment, request=request)


def _json(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode("utf-8")
