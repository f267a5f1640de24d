"""Cost per token in the report and the e-mail: an offer whose instance cannot hold the model
does not stand for its chip when another offer of the chip can; a chip none of whose offers
can comes after those that can, saying how many instances it would take.

GPT-3 175B inference needs 175 GB at FP8 or 350 GB at BF16 (chipcost.transform.cost): one
H100 (80 GB) cannot hold it, eight (640 GB) can; one L4 (24 GB) cannot, and no L4 offer here
has more than one.
"""

from __future__ import annotations

import email
import email.policy
import math

import polars as pl
import pytest

from chipcost.reports.build import deliver, write_report
from chipcost.warehouse.db import connect
from tests.helpers import day, record, run_of
from tests.reports.test_report_output import warehouse

MODEL = "gpt-3-175b"
ONE_H100 = record(instance_type="p5.4xlarge", chip_count=1.0, price_per_hour=2.0, sku="one")
EIGHT_H100 = record(instance_type="p5.48xlarge", chip_count=8.0, price_per_hour=40.0, sku="8")
ONE_L4 = record(instance_type="g6.xlarge", chip="L4", chip_count=1.0, price_per_hour=0.1, sku="l4")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("fit")
    db = warehouse(out / "w.duckdb", [run_of([ONE_H100, EIGHT_H100, ONE_L4], day(0))])
    return db, write_report(db, out / "report")


def _costs(db, chip: str) -> dict[str, float]:
    """The view's cost per million tokens of each of the chip's instances, for the model."""
    con = connect(db, read_only=True)
    try:
        rows = con.execute(
            "SELECT instance_type, usd_per_million_tokens FROM cost_per_token "
            "WHERE chip = ? AND model = ? AND workload = 'inference'",
            [chip, MODEL],
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def test_the_chip_is_priced_by_an_offer_that_holds_the_model(made):
    db, report = made
    costs = _costs(db, "H100-SXM")
    assert costs["p5.4xlarge"] < costs["p5.48xlarge"]  # the one-chip offer is cheaper per token
    rows = report.data.cost_per_token.filter(
        pl.col("model") == MODEL, pl.col("workload") == "inference"
    )
    h100 = rows.row(by_predicate=pl.col("chip") == "H100-SXM", named=True)
    assert h100["instance_type"] == "p5.48xlarge" and h100["holds"] == "yes"
    assert h100["usd_per_million_tokens"] == pytest.approx(costs["p5.48xlarge"])
    assert h100["instance_memory_gb"] == 640 and h100["memory_needed_gb"] >= 175


def test_a_chip_that_cannot_hold_it_comes_last_saying_how_many_it_would_take(made):
    db, report = made
    assert _costs(db, "L4")["g6.xlarge"] < min(_costs(db, "H100-SXM").values())
    rows = report.data.cost_per_token.filter(
        pl.col("model") == MODEL, pl.col("workload") == "inference"
    )
    l4 = rows.row(by_predicate=pl.col("chip") == "L4", named=True)
    instances = math.ceil(l4["memory_needed_gb"] / 24)
    assert l4["fits"] is False and l4["instances_needed"] == instances
    assert l4["holds"] == f"no, needs {instances} instances"
    page = report.html_path.read_text()
    table = page[page.index(f"{MODEL}, inference") :]
    assert table.index(">H100-SXM<") < table.index(">L4<")  # ranked after, though cheaper
    # Said in words: "no, needs 8 instances" read as a riddle in the e-mail.
    assert f"too big for one instance: the model needs the memory of {instances} instances" in table


def test_the_email_names_the_cheapest_chip_that_holds_the_model(made):
    _, report = made
    mail = deliver(report, [], dry_run=True).eml_path.read_bytes().decode()
    message = email.message_from_string(mail, policy=email.policy.default)
    html = message.get_body(("html",)).get_content()
    line = html[html.index(f"{MODEL}, inference") :]
    line = line[: line.index("</tr>")]
    assert "H100-SXM" in line and "L4" not in line


def test_the_cheapest_read_from_each_chips_cheapest_offers_is_the_ranking_of_every_offer(
    tmp_path,
):
    """The report's cost section cuts the offers to each chip's cheapest per chip-hour (per
    chip count) before they meet every model's figure (warehouse/snapshot.py), so its memory
    does not grow with the offers; what it chooses is what ranking every offer chooses. Many
    offers of each chip and count, several at the cheapest price (ties kept)."""
    from chipcost.warehouse.snapshot import cheapest_cost_per_token, cheapest_costs, cost_offers

    offers = [
        record(instance_type=f"p5.{n}x", chip=chip, chip_count=float(count), sku=f"{chip}{n}",
               region=region, price_per_hour=round(count * (1.5 + (n * 7 % 11) / 10), 2))
        for chip in ("H100-SXM", "L4", "A100-80GB")
        for count in (1, 8)
        for n in range(12)
        for region in ("us-east-1", "eu-west-1")
    ]  # fmt: skip
    db = warehouse(tmp_path / "w.duckdb", [run_of(offers, day(0))])
    con = connect(db, read_only=True)
    try:
        cut = cheapest_cost_per_token(con)
        every = cost_offers(con)
        assert cut is not None and every is not None and len(every) > 10 * len(cut)
        assert cut.equals(cheapest_costs(every))
    finally:
        con.close()
