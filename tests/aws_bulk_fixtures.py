"""The recorded fixtures of aws-bulk and aws-spot-feed, laid out as AWS's URL paths.

    python -m tests.aws_bulk_fixtures [--out DIR]   # default tests/fixtures

tests/fixtures/aws-bulk/ mirrors https://pricing.us-east-1.amazonaws.com (a test serves it
over HTTP as it is): the offer index, EC2's current region index and three versions (an
older header, a 2025 header, and the current one whose us-west-2 file has its columns in
another order plus two new ones), the savings-plan region index and files, and bad/ files.
Prices: us-east-1 list prices before (98.32 USD/h for p5.48xlarge) and after the June 2025
cuts, from the builders in tests/aws_bulk_csv.py and tests/aws_indexes.py.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

from tests.aws_bulk_csv import (
    EC2_PATH,
    HEADER_2025,
    HEADER_OLD,
    HEADER_REORDERED,
    SP_PATH,
    csv_line,
    ec2_csv,
    product_rows,
    sp_csv,
    sp_rows,
    variant,
)
from tests.aws_indexes import (
    ec2_region_index,
    offer_index,
    sp_region_index,
    spot_feed,
    version_index,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# (version, effective begin, effective end, publication date)
V1 = ("20230825183306", "2023-08-01T00:00:00Z", "2025-04-01T00:00:00Z", "2023-08-25T18:33:06Z")
V2 = ("20250415191720", "2025-04-01T00:00:00Z", "2025-06-01T00:00:00Z", "2025-04-15T19:17:20Z")
V3 = ("20251201190623", "2025-06-01T00:00:00Z", "", "2025-12-01T19:06:23Z")
SP_VERSION = ("20251127203214", "2025-11-27T20:32:14Z")
# p5.48xlarge on demand in us-east-1 before the June 2025 cut.
P5_BEFORE_CUT = 98.32


def _old_products(*, with_g6e: bool) -> list[dict]:
    effective = "2023-08-01T00:00:00Z"
    rows = product_rows(
        "p5.48xlarge", "us-east-1", P5_BEFORE_CUT, effective=effective,
        reserved_effective=effective,
    )  # fmt: skip
    rows += product_rows("g5.xlarge", "us-east-1", effective=effective)
    rows += product_rows("inf2.48xlarge", "us-east-1", effective=effective)
    if with_g6e:
        rows += product_rows("g6e.xlarge", "us-east-1", effective="2025-04-01T00:00:00Z")
    return rows


def _current_us_east_1() -> tuple[list[dict], list[dict]]:
    """Accelerator products, rows the filter must drop, and the savings-plan rates."""
    p5 = product_rows("p5.48xlarge", "us-east-1")
    priced = [p5, product_rows("g6e.xlarge", "us-east-1")]
    priced += [product_rows(t, "us-east-1") for t in ("trn1.32xlarge", "inf2.48xlarge")]
    priced.append(product_rows("g9x.48xlarge", "us-east-1"))  # a family the catalog lacks
    dropped = [
        variant(p5, 1.2, Operating_System="Windows", operation="RunInstances:0002"),
        variant(p5, 1.0, Tenancy="Dedicated", usageType="DedicatedUsage:p5.48xlarge"),
        variant(p5, 1.0, CapacityStatus="UnusedCapacityReservation"),
        variant(p5, 1.0, **{"Pre Installed S/W": "SQL Web"}),
        variant(
            p5[:1], 0.0, MarketOption="CapacityBlock", usageType="CapacityBlock:p5.48xlarge"
        ),
        variant(
            p5, 0.0018, **{"Instance Type": "m5.large", "Instance Family": "General purpose"},
            GPU="", **{"GPU Memory": ""}, vCPU="2", Memory="8 GiB", usageType="BoxUsage:m5.large",
        ),
    ]  # fmt: skip
    rows = [row for group in priced + dropped for row in group]
    rates = [rate for group in priced[:3] for rate in sp_rows(group, SP_VERSION[1])]
    windows = sp_rows(dropped[0], SP_VERSION[1])[:2]
    never_seen = sp_rows(product_rows("p5en.48xlarge", "us-east-1"), SP_VERSION[1])[:1]
    m5 = sp_rows(dropped[5], SP_VERSION[1])[:1]
    return rows, rates + windows + never_seen + m5


def files() -> dict[str, bytes]:
    """Every fixture file of aws-bulk by its path under tests/fixtures/aws-bulk/."""
    v3, published = V3[0], V3[3]
    east, rates = _current_us_east_1()
    west = product_rows("p5.48xlarge", "us-west-2") + product_rows("g6e.xlarge", "us-west-2")
    west_rates = sp_rows(west[: len(west) // 2], SP_VERSION[1])
    regions = ["us-east-1", "us-west-2", "us-west-2-lax-1"]
    out = {
        "offers/v1.0/aws/index.json": _json(offer_index(published)),
        f"{EC2_PATH}/current/region_index.json": _json(ec2_region_index(v3, regions, published)),
        f"{EC2_PATH}/index.json": _json(version_index([v[:3] for v in (V1, V2, V3)], published)),
        f"{EC2_PATH}/{v3}/us-east-1/index.csv": ec2_csv(east, HEADER_2025, v3, published),
        f"{EC2_PATH}/{v3}/us-west-2/index.csv": ec2_csv(west, HEADER_REORDERED, v3, published),
        f"{SP_PATH}/current/region_index.json": _json(
            sp_region_index(SP_VERSION[0], ["us-east-1", "us-west-2", "ap-south-1"], published)
        ),
        f"{SP_PATH}/{SP_VERSION[0]}/us-east-1/index.csv": sp_csv(rates, *SP_VERSION),
        f"{SP_PATH}/{SP_VERSION[0]}/us-west-2/index.csv": sp_csv(west_rates, *SP_VERSION),
    }
    for version, header, rows in (
        (V1, HEADER_OLD, _old_products(with_g6e=False)),
        (V2, HEADER_2025, _old_products(with_g6e=True)),
        (V3, HEADER_2025, east),
    ):
        out[f"{EC2_PATH}/{version[0]}/region_index.json"] = _json(
            ec2_region_index(version[0], ["us-east-1"], version[3])
        )
        out[f"{EC2_PATH}/{version[0]}/us-east-1/index.csv"] = ec2_csv(
            rows, header, version[0], version[3]
        )
    current = out[f"{EC2_PATH}/{v3}/us-west-2/index.csv"]
    out["bad/ec2-missing-column.csv"] = _drop_column(current, "PricePerUnit")
    out["bad/ec2-cut-off.csv"] = current[: len(current) * 2 // 3]
    # The contract's empty answer: a region's file with its header and no product row.
    out["empty/ec2-no-rows.csv"] = ec2_csv([], HEADER_2025, v3, published)
    return {path.lstrip("/"): data for path, data in out.items()}


def spot_files() -> dict[str, bytes]:
    gpu, general, ml = "gpuCurrentGen", "generalCurrentGen", "mlCurrentGen"
    feed = {
        "us-east": [
            (gpu, "p5.48xlarge", "23.8843"),
            (gpu, "g6e.xlarge", "0.6512"),
            (gpu, "p6-b200.48xlarge", "N/A*"),
            (general, "t4g.nano", "9.0E-4"),
            (general, "m5.large", "0.0389"),
            (ml, "trn1.32xlarge", "7.1220"),
        ],
        "us-west-2": [(gpu, "p5.48xlarge", "19.9021"), (ml, "inf2.48xlarge", "3.8931")],
        "eu-ireland": [(gpu, "g5.xlarge", "0.4829"), (gpu, "p4d.24xlarge", "N/A")],
    }
    good = spot_feed(feed)
    # The contract test's cases: the feed with config.regions renamed, and prices to refuse.
    renamed = good.replace(b'"regions":', b'"areas":', 1)
    bad = {"us-east": [(gpu, "p5.48xlarge", "N/A*"), (gpu, "g6e.xlarge", "-5")]}
    return {
        "spot.js": good,
        "bad-renamed-field.js": renamed,
        "bad-rows.js": spot_feed(bad),
        "empty.js": spot_feed({}),  # the contract's empty answer: a feed of no region
    }


def _json(body: dict) -> bytes:
    return (json.dumps(body, indent=2) + "\n").encode()


def _drop_column(data: bytes, column: str) -> bytes:
    lines = data.decode().splitlines(keepends=True)
    header = next(csv.reader([lines[5]]))
    drop = header.index(column)
    kept = []
    for row in csv.reader(io.StringIO("".join(lines[5:]), newline="")):
        kept.append(csv_line([v for i, v in enumerate(row) if i != drop]) + "\n")
    return ("".join(lines[:5]) + "".join(kept)).encode()


def write_fixtures(root: Path) -> list[Path]:
    written = []
    for folder, content in (("aws-bulk", files()), ("aws-spot-feed", spot_files())):
        for name, data in content.items():
            path = root / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=FIXTURES, help="fixtures root")
    args = parser.parse_args()
    for path in write_fixtures(args.out):
        print(path)


if __name__ == "__main__":
    main()
