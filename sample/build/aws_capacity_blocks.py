"""Sample runs of aws-capacity-blocks: DescribeCapacityBlockOfferings answers, synthetic fees."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from chipcost.core.catalog import aws_capacity_block_types
from chipcost.extract.aws import capacity_blocks as cb
from chipcost.sample.build._aws_api import ZONES, labelled, response_bytes, unit
from chipcost.sample.build._common import fresh_writer

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


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-capacity-blocks/: one answer per call, in the order fetch makes the calls."""
    writer = fresh_writer(out, moment, cb.SOURCE_NAME)
    types = aws_capacity_block_types()
    calls = sorted(BLOCK_CALLS, key=lambda c: (cb.REGIONS.index(c[0]), types.index(c[1])))
    for region, instance_type, durations in calls:
        url = cb.EC2_URL.format(region=region)
        for hours in durations:
            request = {"region": region, **cb.offerings_request(instance_type, hours)}
            if instance_type not in BLOCK_RATE:
                error = {"Code": "Unsupported", "Message": NOT_SUPPORTED}
                writer.write(
                    response_bytes({"Error": error}), url, fetched_at=moment, request=request
                )
                continue
            offerings = block_offerings(region, instance_type, hours, day, moment)
            body = {"CapacityBlockOfferings": offerings}
            request.update(MaxResults=cb.PAGE_SIZE, NextToken=None)
            writer.write(response_bytes(labelled(body)), url, fetched_at=moment, request=request)
    return writer.directory


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
            }
        )
    return found
