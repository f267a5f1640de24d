"""A doubtful spot price (not below its offer's on-demand price) that is a chip's cheapest is
marked '(!)' in "Cheapest now", with a note saying which and why, as `chipcost prices` marks it:
the sample holds no doubtful cheapest price, so the mark had no test."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import pytest

from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract._doubts import mark_doubts
from chipcost.reports.build import write_report
from tests import warehouses
from tests.helpers import day, record, run_by_provider

H100 = {"instance_type": "p5.48xlarge", "chip": "H100-SXM", "chip_count": 8.0}
RTX = {"chip": "RTX-4090", "chip_count": 1.0, "region": "global"}


def _offers(n: int) -> dict[str, list[PriceRecord]]:
    """Day `n`'s offers, by provider. aws: H100 on demand in us-east-1 at 80.0 (10.00 a
    chip-hour) throughout; spot there at 88.0 (11.00, not below on demand: doubtful) listed on
    day 1; spot in us-west-2 at 100.0 against 96.0 on demand (12.50, doubtful) until day 1,
    withdrawn on day 2. daytona (its prices the GPU's alone): an RTX-4090 throughout, another
    listed on day 1, a third withdrawn on day 2."""
    aws = [
        record(price_per_hour=80.0, sku="A", **H100),
        record(price_per_hour=96.0, sku="B", region="us-west-2", **H100),
    ]
    daytona = [_daytona("gpu-4090", 0.60)]
    if n >= 1:
        aws.append(record(price_per_hour=88.0, sku="S", pricing_model="spot", **H100))
        daytona.append(_daytona("gpu-4090-2x", 0.70))
    if n < 2:
        spot = {**H100, "region": "us-west-2", "pricing_model": "spot"}
        aws.append(record(price_per_hour=100.0, sku="W", **spot))
        daytona.append(_daytona("gpu-4090-old", 0.50))
    stamp = day(n).strftime("%Y-%m-%dT%H%M%SZ")
    return {
        provider: [
            replace(r, payload_ref=f"{stamp}/{r.source}/0001.json.gz")
            # the parse's own mark of a spot price not below on demand (extract/_doubts.py)
            for r in mark_doubts(ParseResult(records=found)).records
        ]
        for provider, found in (("aws", aws), ("daytona", daytona))
    }


def _daytona(instance_type: str, price: float) -> PriceRecord:
    return record(
        provider="daytona", source="daytona", instance_type=instance_type, sku=instance_type,
        price_per_hour=price, **RTX,
    )  # fmt: skip


def _made(path):
    return warehouses.of_runs(path, [run_by_provider(_offers(n), day(n)) for n in range(4)])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("offer-marks")
    db = warehouses.made("test_report_offer_marks", _made, root / "w.duckdb")
    return write_report(db, root / "r")


def _section(page: str, key: str) -> str:
    """A section as a reader sees it: tags out, spaces (no-break ones too) as one."""
    part = page.split(f'<section id="{key}"')[1].split("</section>")[0]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", part)).replace("\u00a0", " ").split())


def test_cheapest_now_marks_a_doubtful_spot_price_that_is_the_cheapest(report):
    page = report.html_path.read_text(encoding="utf-8")
    cheapest = _section(page, "cheapest")
    assert "$11.0000 (!) aws · us-east-1 · p5.48xlarge" in cheapest
    assert "(!) = a spot price not below its offer's on-demand price" in cheapest
    assert "aws us-east-1 p5.48xlarge" in cheapest.split("(!) = ")[1]
