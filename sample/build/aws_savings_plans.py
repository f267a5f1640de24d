"""Sample runs of aws-savings-plans: DescribeSavingsPlansOfferingRates pages, synthetic rates."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.archive import ArchiveWriter
from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.aws import savings_plans as sp
from chipcost.sample.build._aws_api import TYPES_REGIONS, labelled, response_bytes, token
from chipcost.sample.build._aws_price_list import listed_price
from chipcost.sample.build._common import fresh_writer

USAGE_PREFIX = {
    "us-east-1": "",
    "us-east-2": "USE2-",
    "us-west-2": "USW2-",
    "ap-northeast-1": "APN1-",
}
# Savings-plan rate as a share of on-demand, per (plan type, years) and payment option.
SP_SHARE = {
    ("Compute", 1): (0.72, 0.69, 0.67),
    ("Compute", 3): (0.50, 0.47, 0.45),
    ("EC2Instance", 1): (0.65, 0.62, 0.61),
    ("EC2Instance", 3): (0.42, 0.40, 0.38),
}
# Results per sample page: small, so that the first batch spans two pages as a real one can.
SP_PAGE = 100


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/aws-savings-plans/: each type batch's pages, archived the way fetch does."""
    writer = fresh_writer(out, moment, sp.SOURCE_NAME)
    for number, batch in enumerate(sp.type_batches(), 1):
        write_batch(writer, number, batch, day, moment)
    return writer.directory


def write_batch(
    writer: ArchiveWriter, number: int, batch: list[str], day: int, moment: datetime
) -> None:
    results = [
        sp_rate(t, region, plan, years, option, day)
        for t in batch
        for region in TYPES_REGIONS.get(t, ())
        for plan, years in SP_SHARE
        for option in range(3)
    ]
    pages = [results[i : i + SP_PAGE] for i in range(0, len(results), SP_PAGE)] or [[]]
    asked_token = None
    for index, page in enumerate(pages):
        body: dict[str, Any] = {"searchResults": page}
        if index + 1 < len(pages):
            body["nextToken"] = token("savings-plans", day, number, index)
        request = sp.offering_rates_request(batch, asked_token)
        request["nextToken"] = asked_token
        writer.write(
            response_bytes(labelled(body)), sp.SAVINGS_PLANS_URL, fetched_at=moment, request=request
        )
        asked_token = body.get("nextToken")


# Every rate of the sample is synthetic (the listed on-demand price times a plan share), marked
# so in each rate (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: the on-demand price times a share per plan, term and payment, not AWS's"


def sp_rate(
    instance_type: str, region: str, plan: str, years: int, option: int, day: int
) -> dict[str, Any]:
    """One offering rate; from day 6 Compute plans of p5en are 5% cheaper."""
    share = SP_SHARE[(plan, years)][option]
    if day >= 6 and plan == "Compute" and instance_type.startswith("p5en."):
        share *= 0.95
    payment = list(sp.PAYMENT_OPTIONS)[option]
    family = instance_type.split(".")[0]
    return {
        "savingsPlanOffering": offering(plan, years, payment, family, region),
        "rate": f"{round(listed_price(instance_type, region) * share, 4):g}",
        "unit": "Hrs",
        "productType": "EC2",
        "serviceCode": "AmazonEC2",
        "usageType": f"{USAGE_PREFIX[region]}BoxUsage:{instance_type}",
        "operation": "RunInstances",
        "properties": [
            {"name": "region", "value": region},
            {"name": "instanceType", "value": instance_type},
            {"name": "instanceFamily", "value": family},
            {"name": "productDescription", "value": "Linux/UNIX"},
            {"name": "tenancy", "value": "shared"},
        ],
        ESTIMATE_KEY: ESTIMATE,
    }


def offering(plan: str, years: int, payment: str, family: str, region: str) -> dict[str, Any]:
    """The plan a rate belongs to; a Compute plan is one offering for every family and region."""
    scope = (plan, years, payment) if plan == "Compute" else (plan, years, payment, family, region)
    digest = hashlib.sha256("|".join(map(str, scope)).encode()).hexdigest()
    offering_id = f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
    described = "Compute" if plan == "Compute" else f"{family} EC2 Instance"
    where = "" if plan == "Compute" else f" in {region}"
    return {
        "offeringId": offering_id,
        "paymentOption": payment,
        "planType": plan,
        "durationSeconds": 31536000 * years,
        "currency": "USD",
        "planDescription": f"{years} year {payment} {described} Savings Plan{where}",
    }
