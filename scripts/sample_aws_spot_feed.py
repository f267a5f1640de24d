"""Sample payload of aws-spot-feed for one run day: spot.js as fetch() archives it.

Registered in EXTRA_WRITERS of scripts/make_sample_archive.py. The file has the real feed's
JSONP shape; prices are synthetic (a share of the sample's on-demand price that moves from
day to day), deterministic and labelled: the manifest says "sample": true and the feed
carries a "chipcostSample" key. It covers the aws-bulk sample's regions (eu-central-1,
ap-south-1), with one type that has no spot market ("N/A*").
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from aws_index_payloads import spot_feed  # noqa: E402
from aws_price_list_payloads import listed_price  # noqa: E402
from sample_aws_bulk import TYPES  # noqa: E402

from chipcost.archive import ArchiveWriter, run_stamp  # noqa: E402
from chipcost.extract.aws_spot_feed import SOURCE_NAME, SPOT_FEED_URL  # noqa: E402

# The feed groups sizes by family type; these are the groups the sample's types fall in.
GROUPS = {"p": "gpuCurrentGen", "g": "gpuCurrentGen", "t": "mlCurrentGen", "i": "mlCurrentGen"}
NO_SPOT_MARKET = ("eu-central-1", "trn2.48xlarge")


def spot_share(instance_type: str, region: str, day: int) -> float:
    """30-46% of on demand, moving a step a day in a pattern of its own per offer."""
    seed = hashlib.sha256(f"{instance_type}|{region}".encode()).digest()[0]
    return 0.30 + 0.04 * ((seed + day) % 5)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    stamp = run_stamp(moment)
    if (out / stamp / SOURCE_NAME).exists():
        shutil.rmtree(out / stamp / SOURCE_NAME)
    writer = ArchiveWriter(out, stamp, SOURCE_NAME, sample=True)
    regions: dict[str, list[tuple[str, str, str]]] = {}
    for region, kinds in TYPES.items():
        sizes = regions.setdefault(region, [("generalCurrentGen", "t4g.nano", "9.0E-4")])
        for kind in kinds:
            price = listed_price(kind, region) * spot_share(kind, region, day)
            sizes.append((GROUPS[kind[0]], kind, f"{price:.4f}"))
    regions[NO_SPOT_MARKET[0]].append(("mlCurrentGen", NO_SPOT_MARKET[1], "N/A*"))
    data = spot_feed(regions, sample=True)
    writer.write(data, SPOT_FEED_URL, fetched_at=moment, ext="js", request={"kind": "spot-feed"})
    return writer.directory
