"""Every file a user takes away keeps what the screen marks: the sample's Trainium2 Capacity
Block fee (u-trn2x64, an estimate: sample/REFERENCES.md) carries its estimate and what it rests
on, and every price its sample flag, in `prices --format focus`, `export --out`, `history`'s
json, csv and table, the report's changes CSV and the explorer's offers.csv; a published price
beside it (trn2.48xlarge on demand in us-east-2) carries no estimate. On 697f5e5 each of them
dropped both marks."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import polars as pl
import pytest

from chipcost.reports.build import write_report
from chipcost.reports.site import write_site
from tests import warehouses
from tests.cli.test_read_commands import chipcost

ESTIMATED = "u-trn2x64"
# what the sample's Capacity Block fees rest on (tests/fixtures/aws-capacity-blocks/ORIGIN.md)
BASIS = "synthetic: the price of chipcost's test fixture tests/fixtures/aws-capacity-blocks/"
PUBLISHED = {"region": "us-east-2", "instance_type": "trn2.48xlarge", "pricing_model": "on_demand"}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("marks") / "w.duckdb", last=2))


def _read(db: str, *args: str) -> str:
    done = chipcost(*args, "--db", db, columns=200)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _focus_marks(rows: list[dict]) -> None:
    """The FOCUS rows of the estimated fee and of the published price, marked as they are."""
    details = [json.loads(r["SkuPriceDetails"]) for r in rows]
    fees = [r for r, d in zip(rows, details, strict=True) if d["InstanceType"] == ESTIMATED]
    published = [
        r
        for r, d in zip(rows, details, strict=True)
        if (r["RegionId"], d["InstanceType"], d["x_PricingModel"]) == tuple(PUBLISHED.values())
    ]
    assert fees and published
    assert all(str(r["x_Estimate"]).lower() == "true" for r in fees)
    assert all(str(r["x_EstimateBasis"]).startswith(BASIS) for r in fees)
    assert all(str(r["x_Estimate"]).lower() == "false" for r in published)
    assert all(not r["x_EstimateBasis"] for r in published)
    assert {str(r["x_Sample"]).lower() for r in rows} == {"true"}


def test_focus_from_prices_marks_the_estimate_and_the_sample(db):
    text = _read(db, "prices", "--chip", "Trainium2", "--format", "focus")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0])[-6:-2] == ["x_Estimate", "x_EstimateBasis", "x_Sample", "x_StatedCurrency"]
    _focus_marks(rows)


def test_the_focus_export_marks_them_in_csv_and_parquet(db, tmp_path):
    _read(db, "export", "--out", str(tmp_path), "--chip", "Trainium2")
    _focus_marks(list(csv.DictReader(io.StringIO((tmp_path / "sku_prices.csv").read_text()))))
    frame = pl.read_parquet(tmp_path / "sku_prices.parquet")
    assert frame.schema["x_Estimate"] == pl.Boolean and frame.schema["x_Sample"] == pl.Boolean
    _focus_marks(frame.to_dicts())


def test_history_json_and_csv_carry_estimate_and_sample(db):
    args = ("history", "--chip", "Trainium2", "--pricing-model", "capacity_block,on_demand")
    as_json = json.loads(_read(db, *args, "--format", "json"))
    as_csv = list(csv.DictReader(io.StringIO(_read(db, *args, "--format", "csv"))))
    for rows in (as_json, as_csv):
        blocks = [r for r in rows if r["pricing_model"] == "capacity_block"]
        demand = [r for r in rows if r["pricing_model"] == "on_demand"]
        assert blocks and demand
        assert all(r["estimate"].startswith(BASIS) for r in blocks)
        assert all(not r["estimate"] for r in demand)  # None in json, empty in csv
        assert {str(r["sample"]).lower() for r in rows} == {"true"}


@pytest.mark.parametrize("by", ["chip", "provider", "region"])
def test_prices_at_a_glance_json_and_csv_carry_the_sample_mark(db, by):
    """Each row of `prices --by` says whether its price is the bundled sample's, as every
    offer's row does (on 8f82443 neither json nor csv of --by had `sample`)."""
    args = ("prices", "--chip", "Trainium2", "--by", by)
    as_json = json.loads(_read(db, *args, "--format", "json"))
    as_csv = list(csv.DictReader(io.StringIO(_read(db, *args, "--format", "csv"))))
    for rows in (as_json, as_csv):
        assert rows and {str(r["sample"]).lower() for r in rows} == {"true"}
    marked = "estimate" if by == "chip" else "estimated"  # the kinds that are, by provider
    assert marked in as_csv[0] and list(as_json[0]) == list(as_csv[0])


def test_history_table_marks_each_estimated_day_as_compare_does(db):
    text = _read(
        db, "history", "--chip", "Trainium2", "--pricing-model", "capacity block,on demand",
        "--no-chart",
    )  # fmt: skip
    days = [line for line in text.splitlines() if re.match(r"\d{4}-\d\d-\d\d ", line)]
    assert days
    # capacity block, then on demand: the fee marked est., the list price not
    assert all(re.fullmatch(r"\S+\s+[\d.,]+ est\.\s+[\d.,]+", line) for line in days), days
    said = " ".join(text.split())
    assert re.search(r"capacity block: \$[\d.]+ est\. on ", said), said
    assert "note: est. = an estimate, no price the provider publishes" in said
    assert "tests/fixtures/aws-capacity-blocks/" in said


def test_the_reports_changes_csv_carries_both_flags(db, tmp_path):
    report = write_report(Path(db), tmp_path)
    rows = list(csv.DictReader(io.StringIO(report.csv_path.read_text())))
    fees = [r for r in rows if r["instance_type"] == ESTIMATED]
    published = [r for r in rows if PUBLISHED.items() <= r.items()]
    assert fees and published
    assert all(r["estimate"].startswith(BASIS) for r in fees)
    assert all(r["estimate"] == "" for r in published)
    assert {r["sample"] for r in rows} == {"true"}


def test_the_explorers_offers_csv_carries_both_flags(db, tmp_path):
    write_site(Path(db), tmp_path)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "offers.csv").read_text())))
    fees = [r for r in rows if r["instance_type"] == ESTIMATED]
    published = [r for r in rows if PUBLISHED.items() <= r.items() and r["chip"] == "Trainium2"]
    assert fees and published
    assert all(r["estimate"].startswith(BASIS) for r in fees)
    assert all(r["estimate"] == "" for r in published)
    assert {r["sample"] for r in rows} == {"true"}


def test_a_converted_price_says_the_currency_its_provider_states(db, tmp_path):
    """On e094c26e a euro price read in dollars said `currency` USD in every file, with nothing
    of the euros it was converted from (and `prices --format focus` said USD where `export`
    said EUR for the same price)."""
    rows = list(
        csv.DictReader(io.StringIO(_read(db, "prices", "--by", "offer", "--format", "csv")))
    )
    stated = {(r["provider"], r["currency"], r["stated_currency"]) for r in rows}
    assert ("scaleway", "USD", "EUR") in stated and ("aws", "USD", "USD") in stated
    assert {p for p, _, s in stated if s == "EUR"} == {"scaleway", "seeweb", "ovhcloud"}
    assert list(rows[0])[-2:] == ["currency", "stated_currency"]  # the columns before stay put
    focus = csv.DictReader(
        io.StringIO(_read(db, "prices", "--provider", "scaleway", "--format", "focus"))
    )
    assert {(r["PricingCurrency"], r["x_StatedCurrency"]) for r in focus} == {("USD", "EUR")}
    _read(db, "export", "--out", str(tmp_path))  # the stored prices, in their own currency
    exported = csv.DictReader(io.StringIO((tmp_path / "sku_prices.csv").read_text()))
    said = {
        r["ServiceProviderName"]: (r["PricingCurrency"], r["x_StatedCurrency"]) for r in exported
    }
    assert (said["scaleway"], said["aws"]) == (("EUR", "EUR"), ("USD", "USD"))


def test_cost_and_compare_say_a_sample_price_in_their_files_and_frames(db):
    """On 26931b16 cost's and compare's csv, json and frames carried no `sample`: a row of the
    sample archive read as a live price once off the terminal (its banner is on stderr)."""
    import chipcost

    rows = list(csv.DictReader(io.StringIO(
        _read(db, "cost", "--model", "llama-3-70b", "--workload", "inference", "--format", "csv")
    )))  # fmt: skip
    assert rows and {r["sample"] for r in rows} == {"true"}
    answer = json.loads(_read(db, "compare", "Trainium2", "H100-SXM", "--model", "llama-3-70b",
                              "--workload", "inference", "--format", "json"))  # fmt: skip
    assert answer and all(r["a_sample"] is True and r["b_sample"] is True for r in answer)
    frame = chipcost.cost("llama-3-70b", "inference", chip="H100-SXM", db=db)
    assert frame.schema["sample"] == pl.Boolean and frame["sample"].all()
    assert chipcost.compare("H200", "H100-SXM", "llama-3-70b", "inference", db=db)["a_sample"].all()
