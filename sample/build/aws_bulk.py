"""Sample runs of aws-bulk: AWS's price list indexes and region CSVs, accelerator rows only.

The sample covers eu-central-1 and ap-south-1, regions the aws-pricing-api sample does not,
so that the two sources' rows do not repeat each other in `chipcost prices`.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.archive import ArchiveWriter
from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.aws._public import PRICE_LIST_URL
from chipcost.extract.aws.bulk import SOURCE_NAME
from chipcost.sample.build._aws_bulk_csv import (
    EC2_PATH,
    HEADER_2025,
    SP_HEADER,
    SP_PATH,
    ec2_csv,
    product_rows,
    sp_csv,
    sp_rows,
)
from chipcost.sample.build._aws_indexes import ec2_region_index, offer_index, sp_region_index
from chipcost.sample.build._aws_price_list import (
    ON_DEMAND_ESTIMATE,
    RESERVED_ESTIMATE,
    SAVINGS_PLAN_ESTIMATE,
    listed_price,
)
from chipcost.sample.build._common import fresh_writer

TYPES = {
    "eu-central-1": ("p5.48xlarge", "p4d.24xlarge", "g6e.xlarge", "g6e.48xlarge", "inf2.48xlarge"),
    "ap-south-1": (
        "p5.48xlarge",
        "g5.xlarge",
        "g6e.xlarge",
        "trn1.32xlarge",
        "inf2.xlarge",
        "g4dn.xlarge",
        "g6f.large",
    ),
}
# (version, publication) of the EC2 files: a new version from day 5, with one price cut.
EC2_VERSIONS = (
    ("20261110190623", "2026-11-10T19:06:23Z"),
    ("20261117183045", "2026-11-17T18:30:45Z"),
)
SP_VERSION = ("20261105203214", "2026-11-05T20:32:14Z")
CUT = ("g6e.xlarge", "ap-south-1", 0.9)  # on demand 10% cheaper from the second version
# No price of this sample is traced (sample/REFERENCES.md): each row says what it rests on in
# a column of the sample's own after AWS's.
EC2_HEADER = [*HEADER_2025, ESTIMATE_KEY]
PLAN_HEADER = [*SP_HEADER, ESTIMATE_KEY]


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-bulk/: indexes, then each region's EC2 and savings-plan file."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    write_indexes(writer, day, moment)
    for region in TYPES:
        write_region(writer, region, day, moment)
    return writer.directory


def write_indexes(writer: ArchiveWriter, day: int, moment: datetime) -> None:
    version, published = _version(day)
    regions = list(TYPES)
    indexes = (
        ("/offers/v1.0/aws/index.json", "offer-index", offer_index(published, sample=True)),
        (
            f"{EC2_PATH}/current/region_index.json",
            "region-index",
            ec2_region_index(version, regions, published, sample=True),
        ),
        (
            f"{SP_PATH}/current/region_index.json",
            "savings-plan-region-index",
            sp_region_index(SP_VERSION[0], regions, SP_VERSION[1], sample=True),
        ),
    )
    for path, kind, body in indexes:
        data = json.dumps(body, indent=2).encode()
        request = {"kind": kind} | ({"regions": regions} if "region" in kind else {})
        writer.write(data, PRICE_LIST_URL + path, fetched_at=moment, request=request)


def write_region(writer: ArchiveWriter, region: str, day: int, moment: datetime) -> None:
    version, published = _version(day)
    groups = _products(region, day)
    ec2 = ec2_csv([r for g in groups for r in g], EC2_HEADER, version, published, sample=True)
    # The savings-plan file keeps its one version: its rates follow the first day's prices.
    rates = [
        rate
        for g in _products(region, 1)
        for rate in sp_rows(g, SP_VERSION[1], SAVINGS_PLAN_ESTIMATE)
    ]
    plans = sp_csv(rates, *SP_VERSION, sample=True, header=PLAN_HEADER)
    for kind, path, data, name in (
        ("ec2", f"{EC2_PATH}/{version}/{region}/index.csv", ec2, "aws-bulk ec2"),
        (
            "savings-plan",
            f"{SP_PATH}/{SP_VERSION[0]}/{region}/index.csv",
            plans,
            "aws-bulk savings plans",
        ),
    ):
        url = PRICE_LIST_URL + path
        request = {"kind": kind, "region": region, "original": _original(url, data, moment)}
        writer.write(data, url, fetched_at=moment, ext="csv", request={**request, "filter": name})


def _version(day: int) -> tuple[str, str]:
    return EC2_VERSIONS[0] if day < 5 else EC2_VERSIONS[1]


def _products(region: str, day: int) -> list[list[dict[str, str]]]:
    version, published = _version(day)
    groups = []
    for kind in TYPES[region]:
        price = listed_price(kind, region)
        effective = "2026-06-01T00:00:00Z"
        if day >= 5 and (kind, region) == CUT[:2]:
            price, effective = round(price * CUT[2], 4), f"{published[:10]}T00:00:00Z"
        groups.append(
            product_rows(
                kind,
                region,
                price,
                reserved_base=listed_price(kind, region),
                effective=effective,
                version=version,
                publication_date=published,
                estimate=ON_DEMAND_ESTIMATE,
                reserved_estimate=RESERVED_ESTIMATE,
            )
        )
    return groups


def _original(url: str, data: bytes, moment: datetime) -> dict[str, Any]:
    """What fetch records of the file it downloaded (here: the file as it is)."""
    return {
        "url": url,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "downloaded_at": moment.isoformat(),
        "verified": "sample: a synthetic file holding only accelerator rows, kept whole",
    }
