"""The recorded fixtures of aws-pricing-api: GetProducts pages, good ones and the failure cases.

    python -m tests.aws_pricing_fixtures [--out DIR]   # default tests/fixtures/aws-pricing-api

The pages come from the item builder in tests/aws_price_list.py.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tests.aws_price_list import (
    RESERVED,
    get_products_page,
    item_string,
    offer_item,
    paginate,
)

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures" / "aws-pricing-api"


def _strings(*items: dict[str, Any]) -> list[str]:
    return [item_string(item) for item in items]


def fixture_pages() -> dict[str, bytes]:
    """Every recorded fixture file of the aws-pricing-api source, by file name."""
    gpu = paginate(
        _strings(
            offer_item("p5.48xlarge", "us-east-1"),
            offer_item("p5.48xlarge", "us-west-2"),
            offer_item("g6e.xlarge", "us-east-1"),
        ),
        2,
        "fixture:gpu",
    )
    asic = _strings(
        offer_item("trn1.32xlarge", "us-east-1"), offer_item("inf2.48xlarge", "us-east-1")
    )
    future = _strings(
        offer_item("g9x.48xlarge", "us-east-1"), offer_item("trn2.24xlarge", "us-east-2")
    )
    # No regionCode, and a location no table maps to a region (a Local Zone's).
    no_region = offer_item("p5.48xlarge", "us-east-1")
    del no_region["product"]["attributes"]["regionCode"]
    no_region["product"]["attributes"]["location"] = "US West (Los Angeles)"
    no_region["product"]["attributes"]["locationType"] = "AWS Local Zone"
    no_gpu = offer_item("g9x.48xlarge", "us-west-2")
    del no_gpu["product"]["attributes"]["gpu"]
    capacity_block = offer_item(
        "p5.48xlarge", "us-east-1", 0.0, market="CapacityBlock", reserved=False
    )
    cny = offer_item("g5.xlarge", "cn-north-1", 8.6916, currency="CNY")
    odd_unit = offer_item("p5.48xlarge", "us-east-2")
    for term in odd_unit["terms"]["Reserved"].values():
        if term["offerTermCode"] == RESERVED[("3yr", "standard", "Partial Upfront")][0]:
            for dimension in term["priceDimensions"].values():
                if dimension["unit"] == "Quantity":
                    dimension["unit"] = "Fee"
    truncated = item_string(offer_item("inf2.xlarge", "us-west-2"))[:300]
    pages = {
        "gpu-instance-page-1.json": gpu[0],
        "gpu-instance-page-2.json": gpu[1],
        "ml-asic-page-1.json": get_products_page(asic),
        "future-types.json": get_products_page(future),
        "empty-page.json": get_products_page([]),
        "bad-page-no-price-list.json": {
            "__type": "com.amazon.awspricing#ThrottlingException",
            "message": "Rate exceeded",
        },
        "bad-item-not-json.json": get_products_page(
            [item_string(offer_item("inf2.xlarge", "us-east-1")), truncated]
        ),
        "bad-item-missing-attribute.json": get_products_page(_strings(no_region, no_gpu)),
        "bad-capacity-block-zero.json": get_products_page(_strings(capacity_block)),
        "bad-cny-only.json": get_products_page(_strings(cny)),
        "bad-upfront-unknown-unit.json": get_products_page(_strings(odd_unit)),
    }
    files = {name: (json.dumps(page, indent=1) + "\n").encode() for name, page in pages.items()}
    files["bad-page-truncated.json"] = files["ml-asic-page-1.json"][:500]
    return dict(sorted(files.items()))


def write_fixtures(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in fixture_pages().items():
        (directory / name).write_bytes(data)
        written.append(directory / name)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=FIXTURES_DIR, help="fixture directory")
    args = parser.parse_args()
    for path in write_fixtures(args.out):
        print(path)


if __name__ == "__main__":
    main()
