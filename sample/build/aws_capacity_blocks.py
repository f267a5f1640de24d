"""Sample runs of aws-capacity-blocks: DescribeCapacityBlockOfferings answers, synthetic fees."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from chipcost.core.catalog import aws_ultraserver_types
from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.aws import capacity_blocks as cb
from chipcost.sample.build._aws_api import ZONES, labelled, response_bytes, unit
from chipcost.sample.build._aws_price_list import SAMPLE_LABEL
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer

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
PRICING_PAGE = "https://aws.amazon.com/ec2/capacityblocks/pricing/"
# UltraServer Capacity Blocks: the fee per UltraServer-hour and what it rests on, said in each
# answer's sample label. AWS lists P6e-GB200 UltraServers on its pricing page (effective hourly
# rate per UltraServer, as listed 2026-10); it lists no rate for Trn2 UltraServers (in preview).
ULTRASERVER_RATE = {
    "u-p6e-gb200x36": (380.952, f"AWS's published rate, {PRICING_PAGE} (2026-10)"),
    "u-p6e-gb200x72": (761.904, f"AWS's published rate, {PRICING_PAGE} (2026-10)"),
    "u-trn2x64": (
        4 * 35.7608,
        "an ESTIMATE, not an AWS price: AWS publishes no Trn2 UltraServer rate; 4 x the "
        f"trn2.48xlarge Capacity Block rate published at {PRICING_PAGE} ($35.7608, 2026-10)",
    ),
}
# Every fee of the sample is marked an estimate in the offering itself (sample/REFERENCES.md
# traces none of them): the instance blocks move a few percent by zone and start around
# BLOCK_RATE; the P6e-GB200 rates were read off AWS's page without a quotable copy kept.
BLOCK_ESTIMATE = (
    "synthetic: near AWS's published Capacity Block rate for this type "
    f"({PRICING_PAGE}), moved a few percent by zone and start date; not an AWS fee"
)
GB200_ESTIMATE = (
    f"the UltraServer rate AWS listed at {PRICING_PAGE} (2026-10), as the sample set it; "
    "no quotable copy of the page was kept"
)
# (region, UltraServer type, durations, zone): P6e-GB200 in the Dallas Local Zone.
ULTRASERVER_CALLS = (
    ("us-east-1", "u-p6e-gb200x36", (24,), "us-east-1-dfw-2a"),
    ("us-east-1", "u-p6e-gb200x72", (24, 168), "us-east-1-dfw-2a"),
    ("us-east-2", "u-trn2x64", (24, 168), "us-east-2b"),
)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-capacity-blocks/: one answer per call, in the order fetch makes the calls."""
    writer = fresh_writer(out, moment, cb.SOURCE_NAME)
    planned = {(r, t, h) for r, t, durations in BLOCK_CALLS for h in durations}
    servers = {(r, u, h): zone for r, u, durations, zone in ULTRASERVER_CALLS for h in durations}
    for region in cb.REGIONS:
        url = cb.EC2_URL.format(region=region)
        for asked in cb.requests():  # in the order fetch asks
            hours, name = asked["CapacityDurationHours"], cb.asked_for(asked)
            request = {"region": region, **asked}
            if (region, name, hours) in servers:
                body = ultraserver_answer(name, servers[(region, name, hours)], hours, moment)
            elif (region, name, hours) not in planned:
                continue
            elif name not in BLOCK_RATE:
                error = {"Code": "Unsupported", "Message": NOT_SUPPORTED}
                writer.write(
                    response_bytes({"Error": error}), url, fetched_at=moment, request=request
                )
                continue
            else:
                offerings = block_offerings(region, name, hours, day, moment)
                body = labelled({"CapacityBlockOfferings": offerings})
            request.update(MaxResults=cb.PAGE_SIZE, NextToken=None)
            writer.write(response_bytes(body), url, fetched_at=moment, request=request)
    return writer.directory


def ultraserver_answer(name: str, zone: str, hours: int, moment: datetime) -> dict[str, Any]:
    """One UltraServer offering a day ahead at the rate of ULTRASERVER_RATE, which its label
    names: AWS prices UltraServer blocks at a listed rate, the same for every start date."""
    rate, basis = ULTRASERVER_RATE[name]
    server = aws_ultraserver_types()[name]
    start = moment.replace(hour=11, minute=30) + timedelta(days=1)
    digest = hashlib.sha256(f"{zone}{name}{hours}{start}".encode()).hexdigest()
    offering = {
        "CapacityBlockOfferingId": f"cb-0{digest[:16]}",
        "InstanceType": server.instance_type,
        "AvailabilityZone": zone,
        "InstanceCount": server.instances * cb.ULTRASERVER_COUNT,
        "StartDate": start.isoformat(),
        "EndDate": (start + timedelta(hours=hours)).isoformat(),
        "CapacityBlockDurationHours": hours,
        "UpfrontFee": f"{rate * hours * cb.ULTRASERVER_COUNT:.2f}",
        "CurrencyCode": "USD",
        "Tenancy": "default",
        "UltraserverType": name,
        "UltraserverCount": cb.ULTRASERVER_COUNT,
        "CapacityBlockDurationMinutes": 0,
        "ZoneType": "local-zone" if zone.count("-") > 2 else "availability-zone",
    }
    offering[ESTIMATE_KEY] = basis if name == "u-trn2x64" else GB200_ESTIMATE
    label = f"{SAMPLE_LABEL}; the UltraServer fee is {basis}"
    return {"CapacityBlockOfferings": [offering], SAMPLE_KEY: label}


def block_offerings(
    region: str, instance_type: str, hours: int, day: int, moment: datetime
) -> list[dict[str, Any]]:
    """Offerings in two zones; us-east-1's first zone also offers a later, dearer start."""
    zones = sorted(ZONES[region], key=lambda z: unit("block", instance_type, z))[:2]
    starts = [(zones[0], 1), (zones[1], 2)] + ([(zones[0], 4)] if region == "us-east-1" else [])
    found = []
    for zone, days_ahead in starts:
        start = moment.replace(hour=11, minute=30) + timedelta(days=days_ahead)
        drift = unit(instance_type, zone, hours, day, days_ahead) - 0.5
        level = 1 + 0.06 * drift + 0.01 * days_ahead
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
                ESTIMATE_KEY: BLOCK_ESTIMATE,
            }
        )
    return found
