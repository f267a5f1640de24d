"""New and withdrawn offers are marked as the report's other tables mark a price: '(!)' after a
doubtful spot price (not below its offer's on-demand price) with a note saying which and why,
and a note naming the sources whose prices are the GPU's alone; the changes CSV says both of
their rows. A doubtful spot price that is a chip's cheapest is marked '(!)' in "Cheapest now".

On 74037a3d New offers listed aws's doubtful H100 spot offer at '$11.0000' with no mark, and
neither New nor Withdrawn offers said daytona's prices were the GPU's alone; the sample holds no
doubtful cheapest price, so Cheapest now's mark had no test before that commit."""

from __future__ import annotations

import csv
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


DAYTONA = "daytona prices the GPU alone: the host's vCPUs, memory and disk are billed beside it"


def test_new_and_withdrawn_offers_mark_a_doubtful_spot_price_and_say_the_gpu_alone(report):
    page = report.html_path.read_text(encoding="utf-8")
    new, gone = _section(page, "new"), _section(page, "withdrawn")
    assert "aws · us-east-1 p5.48xlarge spot $11.0000 (!)" in new
    assert "(!) = a spot price not below its offer's on-demand price" in new
    assert "aws us-east-1 p5.48xlarge" in new.split("(!) = ")[1]
    assert "aws · us-west-2 p5.48xlarge spot $12.5000 (!)" in gone
    assert "aws us-west-2 p5.48xlarge" in gone.split("(!) = ")[1]
    assert DAYTONA in new and "gpu-4090-2x" in new
    assert DAYTONA in gone and "gpu-4090-old" in gone
    assert new.count("(!)") == 2 and gone.count("(!)") == 2  # the price's and the note's


def test_the_changes_csv_says_them_of_new_and_withdrawn_rows(report):
    with report.csv_path.open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["change"] in ("new", "withdrawn")]
    marks = {
        (r["change"], r["provider"], r["region"], r["pricing_model"]): (
            bool(r["spot_doubt"]),
            r["gpu_alone"],
        )
        for r in rows
    }
    assert marks[("new", "aws", "us-east-1", "spot")] == (True, "false")
    assert marks[("withdrawn", "aws", "us-west-2", "spot")] == (True, "false")
    assert marks[("new", "daytona", "global", "on_demand")] == (False, "true")
    assert marks[("withdrawn", "daytona", "global", "on_demand")] == (False, "true")


def test_cheapest_now_marks_a_doubtful_spot_price_that_is_the_cheapest(report):
    page = report.html_path.read_text(encoding="utf-8")
    cheapest = _section(page, "cheapest")
    assert "$11.0000 (!) aws · us-east-1 · p5.48xlarge" in cheapest
    assert "(!) = a spot price not below its offer's on-demand price" in cheapest
    assert "aws us-east-1 p5.48xlarge" in cheapest.split("(!) = ")[1]
