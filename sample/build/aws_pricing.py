"""Sample runs of aws-pricing-api: both instance-family queries' GetProducts pages, synthetic."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from chipcost.archive import run_stamp
from chipcost.extract.aws.pricing import (
    INSTANCE_FAMILIES,
    PRICING_URL,
    SOURCE_NAME,
    get_products_request,
)
from chipcost.sample.build._aws_price_list import (
    ON_DEMAND_ESTIMATE,
    RESERVED_ESTIMATE,
    SPECS,
    item_string,
    listed_price,
    offer_item,
    page_bytes,
    paginate,
)
from chipcost.sample.build._common import fresh_writer, run_time

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
# The on-demand prices sample/REFERENCES.md traces to a public page: every other price of the
# sample (and every reserved term) is marked an estimate in its term.
TRACED_ON_DEMAND = frozenset({
    ("p5.48xlarge", "us-east-1"), ("p5.48xlarge", "us-west-2"), ("p5en.48xlarge", "us-east-1"),
    ("p6-b200.48xlarge", "us-east-1"), ("trn1.32xlarge", "us-east-1"),
    ("trn2.48xlarge", "us-east-2"),
})  # fmt: skip


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
        if day >= 4 and (offer.instance_type, offer.region) == ("p4d.24xlarge", "us-west-2"):
            offer.price = round(offer.price * 0.92, 4)  # on-demand cut, reserved unchanged
            offer.effective = changed_on(4)
        if day >= 6 and (offer.instance_type, offer.region) == ("trn2.48xlarge", "us-east-2"):
            offer.reserved_factor = {"1yr": 0.94}  # 1-year reserved terms 6% cheaper
            offer.reserved_effective = changed_on(6)
    if day == 2:  # a Capacity Block row listed at $0: the demo's reject
        offers.append(Offer("p5.48xlarge", "us-east-1", 0.0, market="CapacityBlock"))
    return sorted(offers, key=lambda o: (o.instance_type, o.region, o.market))


def offer_string(offer: Offer, moment: datetime) -> str:
    published = moment - timedelta(hours=11)
    item = offer_item(
        offer.instance_type,
        offer.region,
        offer.price,
        market=offer.market,
        reserved=offer.market == "OnDemand",
        reserved_base=listed_price(offer.instance_type, offer.region),
        reserved_factor=offer.reserved_factor,
        effective=offer.effective,
        reserved_effective=offer.reserved_effective,
        version=f"{published:%Y%m%d%H%M%S}",
        publication_date=f"{published:%Y-%m-%dT%H:%M:%SZ}",
        estimate=None
        if (offer.instance_type, offer.region) in TRACED_ON_DEMAND
        else ON_DEMAND_ESTIMATE,
        reserved_estimate=RESERVED_ESTIMATE,
    )
    return item_string(item)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-pricing-api/: both queries' pages, archived the way fetch archives them."""
    stamp = run_stamp(moment)
    writer = fresh_writer(out, moment, SOURCE_NAME)
    offers = day_offers(day)
    for family in INSTANCE_FAMILIES:
        items = [offer_string(o, moment) for o in offers if SPECS[o.instance_type].family == family]
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
