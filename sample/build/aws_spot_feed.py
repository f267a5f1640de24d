"""Sample runs of aws-spot-feed: spot.js for the aws-bulk sample's regions, synthetic prices."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

from chipcost.extract.aws.spot_feed import SOURCE_NAME, SPOT_FEED_URL
from chipcost.sample.build._aws_indexes import spot_feed
from chipcost.sample.build._aws_price_list import listed_price
from chipcost.sample.build._common import fresh_writer
from chipcost.sample.build.aws_bulk import TYPES

# The feed groups sizes by family type; these are the groups the sample's types fall in.
GROUPS = {"p": "gpuCurrentGen", "g": "gpuCurrentGen", "t": "mlCurrentGen", "i": "mlCurrentGen"}
NO_SPOT_MARKET = ("eu-central-1", "trn2.48xlarge")
# What every spot price of the sample rests on, marked beside the feed's own fields.
ESTIMATE = (
    "synthetic: 30-46% of the sample's on-demand price, moving a step a day; not AWS's spot price"
)


def spot_share(instance_type: str, region: str, day: int) -> float:
    """30-46% of on demand, moving a step a day in a pattern of its own per offer."""
    seed = hashlib.sha256(f"{instance_type}|{region}".encode()).digest()[0]
    return 0.30 + 0.04 * ((seed + day) % 5)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-spot-feed/: one spot.js with a non-accelerator type and a no-market reject."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    regions: dict[str, list[tuple[str, str, str]]] = {}
    for region, kinds in TYPES.items():
        sizes = regions.setdefault(region, [("generalCurrentGen", "t4g.nano", "9.0E-4")])
        for kind in kinds:
            price = listed_price(kind, region) * spot_share(kind, region, day)
            sizes.append((GROUPS[kind[0]], kind, f"{price:.4f}"))
    regions[NO_SPOT_MARKET[0]].append(("mlCurrentGen", NO_SPOT_MARKET[1], "N/A*"))
    data = spot_feed(regions, sample=True, estimate=ESTIMATE)
    writer.write(data, SPOT_FEED_URL, fetched_at=moment, ext="js", request={"kind": "spot-feed"})
    return writer.directory
