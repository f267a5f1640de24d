"""Sample runs of aws-spot-advisor: spot-advisor-data.json in its real shape, synthetic buckets."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

from chipcost.core.catalog import aws_accelerator_types
from chipcost.extract.aws.spot_advisor import ADVISOR_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

REGIONS = (
    "us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "eu-north-1",
    "ap-northeast-1", "ap-south-1", "ap-southeast-2",
)  # fmt: skip
# The buckets as the advisor's page labels them; "max" is the file's own field.
RANGES = (
    {"index": 0, "label": "<5%", "dots": 0, "max": 5},
    {"index": 1, "label": "5-10%", "dots": 1, "max": 11},
    {"index": 2, "label": "10-15%", "dots": 2, "max": 16},
    {"index": 3, "label": "15-20%", "dots": 3, "max": 22},
    {"index": 4, "label": ">20%", "dots": 4, "max": 100},
)
NOT_ACCELERATORS = ("m5.large", "c5.xlarge")  # in the file, not loaded: counted in a note


def _seed(*parts: str) -> int:
    return hashlib.sha256("|".join(parts).encode()).digest()[0]


def stats(instance_type: str, region: str, day: int) -> dict[str, int]:
    """A bucket and a saving of their own per type and region; p5 in us-east-1 gets riskier
    from day 5, so that a bucket moves in the sample week."""
    seed = _seed(instance_type, region)
    bucket = seed % 5
    if (instance_type, region) == ("p5.48xlarge", "us-east-1"):
        bucket = 1 if day < 5 else 3
    return {"s": 50 + seed % 40, "r": bucket}


def advisor_file(day: int) -> dict:
    types = (*aws_accelerator_types(), *NOT_ACCELERATORS)
    return {
        SAMPLE_KEY: "synthetic buckets in the advisor file's real shape, not fetched from AWS",
        "global_rate": "<10%",
        "ranges": list(RANGES),
        "instance_types": {t: {"emr": False, "cores": 8, "ram_gb": 64.0} for t in types},
        "spot_advisor": {
            region: {
                "Linux": {t: stats(t, region, day) for t in types},
                "Windows": {t: stats(t, region + "-windows", day) for t in types[:3]},
            }
            for region in REGIONS
        },
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-spot-advisor/: the advisor's data file, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(
        indented_json(advisor_file(day)),
        ADVISOR_URL,
        fetched_at=moment,
        ext="json",
        request={"kind": "spot-advisor"},
    )
    return writer.directory
