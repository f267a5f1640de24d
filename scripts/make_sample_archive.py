"""Writes the bundled sample archive: 8 daily aws-pricing-api runs of synthetic GetProducts pages.

    python scripts/make_sample_archive.py [--out sample/archive]

Deterministic: the same code writes the same bytes. The pages have AWS's real GetProducts
shape but the prices are synthetic (see sample/README.md); every manifest says "sample": true
and every page carries a top-level "chipcostSample" label.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

# The payload builder sits next to this script (also when imported from the tests).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from aws_price_list_payloads import (  # noqa: E402
    SPECS,
    item_string,
    listed_price,
    offer_item,
    page_bytes,
    paginate,
)

from chipcost.archive import ArchiveWriter, run_stamp  # noqa: E402
from chipcost.extract.aws_pricing import (
    INSTANCE_FAMILIES,
    PRICING_URL,
    SOURCE_NAME,
    get_products_request,
)

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "sample" / "archive"
FIRST_RUN = datetime(2026, 11, 14, 6, 0, tzinfo=UTC)
DAYS = 8
# Pages are cut shorter than the API's 100 so that the GPU query spans two pages in the
# sample too (the real query returns many more products than the sample carries).
SAMPLE_PAGE_SIZE = 40
ALL_REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "eu-west-1",
    "eu-north-1",
    "ap-northeast-1",
    "ap-southeast-2",
)
US = ALL_REGIONS[:3]
# Where each instance type is offered in the sample (plausible, not AWS's exact footprint).
REGIONS_BY_TYPE = {
    "p4d.24xlarge": (*US, "eu-west-1", "ap-northeast-1"),
    "p4de.24xlarge": ("us-east-1", "us-west-2"),
    "p5.48xlarge": (*US, "eu-north-1", "ap-northeast-1", "ap-southeast-2"),
    "p5e.48xlarge": ("us-east-2", "us-west-2"),
    "p5en.48xlarge": (*US, "ap-northeast-1"),
    "p6-b200.48xlarge": ("us-east-1", "us-west-2"),
    "g5.xlarge": ALL_REGIONS,
    "g5.48xlarge": ALL_REGIONS,
    "g6.xlarge": (*US, "eu-west-1"),
    "g6.48xlarge": (*US, "eu-west-1"),
    "g6e.xlarge": (*US, "eu-north-1"),
    "g6e.48xlarge": (*US, "eu-north-1"),
    "trn1.2xlarge": US,
    "trn1.32xlarge": US,
    "trn1n.32xlarge": ("us-east-1", "us-east-2"),
    "trn2.48xlarge": ("us-east-2", "us-west-2"),
    "inf1.xlarge": (*US, "eu-west-1", "ap-northeast-1"),
    "inf1.24xlarge": (*US, "eu-west-1", "ap-northeast-1"),
    "inf2.xlarge": (*US, "eu-west-1", "ap-northeast-1"),
    "inf2.48xlarge": (*US, "eu-west-1", "ap-northeast-1"),
}


@dataclass
class Offer:
    """One product of one sample day, with the day's price changes applied."""

    instance_type: str
    region: str
    price: float
    market: str = "OnDemand"
    reserved_factor: dict[str, float] = field(default_factory=dict)
    effective: str = "2025-06-01T00:00:00Z"
    reserved_effective: str = "2025-06-01T00:00:00Z"


def run_time(day: int) -> datetime:
    return FIRST_RUN + timedelta(days=day - 1)


def changed_on(day: int) -> str:
    return f"{run_time(day):%Y-%m-%d}T00:00:00Z"


def day_offers(day: int) -> list[Offer]:
    """The sample's products on day 1..8, with its scripted changes."""
    offers = [
        Offer(name, region, listed_price(name, region))
        for name, regions in REGIONS_BY_TYPE.items()
        for region in regions
    ]
    if day >= 5:  # g6e launches in Tokyo
        offers += [
            Offer(n, "ap-northeast-1", listed_price(n, "ap-northeast-1"))
            for n in SPECS
            if n.startswith("g6e.")
        ]
    if day >= 7:  # the Ireland p4d offer is withdrawn
        offers = [o for o in offers if (o.instance_type, o.region) != ("p4d.24xlarge", "eu-west-1")]
    for offer in offers:
        if day >= 4 and (offer.instance_type, offer.region) == ("p5.48xlarge", "us-west-2"):
            offer.price = round(offer.price * 0.92, 4)  # on-demand cut, reserved unchanged
            offer.effective = changed_on(4)
        if day >= 6 and (offer.instance_type, offer.region) == ("trn2.48xlarge", "us-east-2"):
            offer.reserved_factor = {"1yr": 0.94}  # 1-year reserved terms 6% cheaper
            offer.reserved_effective = changed_on(6)
    if day == 2:  # a Capacity Block row listed at $0: the demo's reject
        offers.append(Offer("p5.48xlarge", "us-east-1", 0.0, market="CapacityBlock"))
    return sorted(offers, key=lambda o: (o.instance_type, o.region, o.market))


def offer_string(offer: Offer, day: int) -> str:
    published = run_time(day) - timedelta(hours=11)
    base = listed_price(offer.instance_type, offer.region)
    item = offer_item(
        offer.instance_type,
        offer.region,
        offer.price,
        market=offer.market,
        reserved=offer.market == "OnDemand",
        reserved_base=base,
        reserved_factor=offer.reserved_factor,
        effective=offer.effective,
        reserved_effective=offer.reserved_effective,
        version=f"{published:%Y%m%d%H%M%S}",
        publication_date=f"{published:%Y-%m-%dT%H:%M:%SZ}",
    )
    return item_string(item)


def write_run(out: Path, day: int) -> Path:
    """One run directory: both queries' pages, archived the way fetch archives them."""
    moment = run_time(day)
    stamp = run_stamp(moment)
    source_dir = out / stamp / SOURCE_NAME
    if source_dir.exists():
        shutil.rmtree(source_dir)
    writer = ArchiveWriter(out, stamp, SOURCE_NAME, sample=True)
    offers = day_offers(day)
    for family in INSTANCE_FAMILIES:
        items = [offer_string(o, day) for o in offers if SPECS[o.instance_type].family == family]
        token = None
        for page in paginate(items, SAMPLE_PAGE_SIZE, f"sample:{stamp}:{family}", sample=True):
            request = get_products_request(family, token)
            writer.write(
                page_bytes(page),
                PRICING_URL,
                fetched_at=moment,
                request={**request, "NextToken": token},
            )
            token = page.get("NextToken")
    return writer.directory


# Other sources' sample writers: modules beside this script, each with
# write_run(out: Path, day: int, moment: datetime) -> Path writing <stamp>/<its source>/.
EXTRA_WRITERS: tuple[str, ...] = (
    "sample_neoclouds_a",
    "sample_aws_more",
    "sample_neoclouds_b",
    "sample_aws_bulk",
    "sample_aws_spot_feed",
)


def main() -> None:
    from importlib import import_module

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="archive root to write")
    args = parser.parse_args()
    for day in range(1, DAYS + 1):
        print(write_run(args.out, day))
        for name in EXTRA_WRITERS:
            print(import_module(name).write_run(args.out, day, run_time(day)))


if __name__ == "__main__":
    main()
