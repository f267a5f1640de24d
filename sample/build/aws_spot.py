"""Sample runs of aws-spot: DescribeRegions, then each region's DescribeSpotPriceHistory pages."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from chipcost.archive import ArchiveWriter
from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.aws import spot as spot
from chipcost.sample.build._aws_api import (
    TYPES_REGIONS,
    ZONES,
    labelled,
    response_bytes,
    token,
    unit,
)
from chipcost.sample.build._aws_price_list import listed_price
from chipcost.sample.build._common import fresh_writer

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


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-spot/: the region listing, then every region's history pages."""
    writer = fresh_writer(out, moment, spot.SOURCE_NAME)
    regions = sorted(ZONES)
    listing = {"Regions": [_region(r) for r in regions]}
    writer.write(
        response_bytes(labelled(listing)),
        spot.EC2_URL.format(region=spot.HOME_REGION, operation=spot.REGIONS_OPERATION),
        fetched_at=moment,
        request={"operation": spot.REGIONS_OPERATION, "region": spot.HOME_REGION},
    )
    for region in regions:
        write_history(writer, region, day, moment)
    return writer.directory


def write_history(writer: ArchiveWriter, region: str, day: int, moment: datetime) -> None:
    entries = spot_entries(region, day, moment)
    # us-east-1 comes in two pages, so that replays go through the NextToken too.
    cut = len(entries) // 2 if region == "us-east-1" else len(entries)
    pages = [entries[:cut], entries[cut:]] if cut < len(entries) else [entries]
    request = spot.spot_request(spot.spot_types(), moment)
    asked_token = None
    for index, page in enumerate(pages):
        body: dict[str, Any] = {"SpotPriceHistory": page}
        last = index + 1 == len(pages)
        body["NextToken"] = "" if last else token("spot", region, day, index)
        asked = {"operation": spot.HISTORY, "region": region, **request}
        asked.update(StartTime=moment.isoformat())
        asked.update(MaxResults=spot.PAGE_SIZE, NextToken=asked_token)
        url = spot.EC2_URL.format(region=region, operation=spot.HISTORY)
        writer.write(response_bytes(labelled(body)), url, fetched_at=moment, request=asked)
        asked_token = body["NextToken"] or None


# Every spot price of the sample is synthetic (a share of the listed on-demand price), marked
# so in each entry (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: a share of the on-demand price moving a few percent a day, not AWS's"


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
                    ESTIMATE_KEY: ESTIMATE,
                }
            )
    return entries


def _region(name: str) -> dict[str, str]:
    return {
        "OptInStatus": "opt-in-not-required",
        "RegionName": name,
        "Endpoint": f"ec2.{name}.amazonaws.com",
    }
