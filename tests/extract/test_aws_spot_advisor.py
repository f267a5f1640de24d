"""aws-spot-advisor beyond the contract: buckets and their bounds, what is not loaded, and the
bucket beside an AWS spot price in `prices` and `cost --max-interruption` (the command line,
the golden warehouse with the advisor's rows loaded through the real loader)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.extract.aws.spot_advisor import ADVISOR_URL, SOURCE, bucket_max
from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.explorer_data import offer_rows
from chipcost.warehouse.load import load_run
from tests import report_warehouse
from tests.cli_runner import chipcost
from tests.sources import payload

LOADED = datetime(2026, 11, 7, 7, 0, tzinfo=UTC)
FIXTURE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "aws-spot-advisor"


def parsed(name: str = "spot-advisor-data.json", data: bytes | None = None):
    return SOURCE.parse([payload("aws-spot-advisor", name, ADVISOR_URL, data=data)])


@pytest.mark.parametrize(
    ("label", "top"), [("<5%", 5), ("5-10%", 10), ("10-15%", 15), ("15-20%", 20), (">20%", 100)]
)
def test_a_bucket_tops_out_at_its_label(label, top):
    assert bucket_max(label) == top
    assert bucket_max("often") is None


def test_accelerator_types_load_others_are_counted():
    result = parsed()
    rows = {
        (r["region"], r["instance_type"], r["os"]): r for r in result.facts["spot_interruptions"]
    }
    assert set(rows) == {
        ("us-east-1", "p5.48xlarge", "Linux"), ("us-east-1", "g6.xlarge", "Linux"),
        ("us-east-1", "trn1.32xlarge", "Linux"), ("us-east-1", "g6.xlarge", "Windows"),
        ("us-west-2", "p5.48xlarge", "Linux"),
    }  # fmt: skip
    p5 = rows[("us-east-1", "p5.48xlarge", "Linux")]
    assert (p5["interruption"], p5["interruption_max"], p5["savings_percent"]) == ("5-10%", 10, 70)
    assert rows[("us-east-1", "trn1.32xlarge", "Linux")]["interruption_max"] == 100
    assert "1 row(s) not loaded: not an accelerator instance type" in result.notes
    assert not result.records


def test_the_recorded_file_gives_each_accelerator_type_its_bucket_and_saving():
    """AWS's own advisor file (2025-06-28, kept by alexei-led/spotinfo): its real buckets."""
    result = parsed("recorded-spotinfo-2025-06-28.json")
    rows = {
        (r["region"], r["instance_type"], r["os"]): r for r in result.facts["spot_interruptions"]
    }
    assert len(rows) == 1428 and not result.rejects and not result.records
    fields = ("interruption", "interruption_max", "savings_percent")
    seen = {
        key: tuple(rows[key][field] for field in fields)
        for key in [
            ("us-east-1", "p5.48xlarge", "Linux"), ("us-east-1", "p4d.24xlarge", "Linux"),
            ("us-east-1", "trn1.32xlarge", "Linux"), ("us-east-1", "g6e.xlarge", "Windows"),
        ]
    }  # fmt: skip
    assert seen == {
        ("us-east-1", "p5.48xlarge", "Linux"): (">20%", 100, 52),
        ("us-east-1", "p4d.24xlarge", "Linux"): ("10-15%", 15, 67),
        ("us-east-1", "trn1.32xlarge", "Linux"): ("<5%", 5, 79),
        ("us-east-1", "g6e.xlarge", "Windows"): ("15-20%", 20, 80),
    }
    # The file prices this one above its on-demand basis: kept as stated, and said.
    assert rows[("ca-central-1", "p5.48xlarge", "Linux")]["savings_percent"] == -62
    assert "p5.48xlarge in ca-central-1 (Linux): savings -62" in " ".join(result.notes)
    assert "23895 row(s) not loaded: not an accelerator instance type" in result.notes


def test_bad_rows_are_refused_with_their_reason():
    result = parsed("bad-rows.json")
    reasons = " | ".join(r.reason for r in result.rejects)
    for said in ("bucket 7 is not in ranges", "a range that is not a bucket", "savings 'lots'",
                 "not a region code"):  # fmt: skip
        assert said in reasons, reasons
    assert [r["instance_type"] for r in result.facts["spot_interruptions"]] == ["p4d.24xlarge"]


@pytest.mark.parametrize("label", ["<\u0665%", "\u0665-10%", "5-10%\x00"])
def test_a_bucket_label_in_other_digits_has_no_bound(label):
    assert bucket_max(label) is None  # float() reads "\u0665" as 5


NUL_TYPE = ('"p5.48xlarge": {"s": 68', '"p5.48xlarge\\u0000": {"s": 68')
NEWLINE_REGION = ('"us-west-2": {', '"us-west-2\\n": {')


@pytest.mark.parametrize(("recorded", "sent"), [NUL_TYPE, NEWLINE_REGION])
def test_a_type_or_region_that_is_no_aws_name_is_refused(recorded, sent):
    """'p5.48xlarge\\x00' was loaded as a type of its own, beside p5.48xlarge."""
    text = (FIXTURE_DIR / "spot-advisor-data.json").read_text()
    assert text.count(recorded) == 1
    result = parsed(data=text.replace(recorded, sent).encode())
    rows = result.facts["spot_interruptions"]
    assert ("us-west-2", "p5.48xlarge") not in {(r["region"], r["instance_type"]) for r in rows}
    assert all(r["region"].isprintable() and r["instance_type"].isprintable() for r in rows)
    assert len(rows) == 4  # the recorded file's other rows
    (refused,) = result.rejects
    assert refused.reason.endswith(("not an instance type name", "not a region code"))


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    path = report_warehouse.build(tmp_path_factory.mktemp("advisor") / "w.duckdb")
    body = {
        "ranges": [
            {"index": 0, "label": "<5%", "dots": 0, "max": 5},
            {"index": 3, "label": "15-20%", "dots": 3, "max": 22},
        ],
        "spot_advisor": {"us-east-2": {"Linux": {"p5.48xlarge": {"s": 62, "r": 3}}}},
    }
    found = parsed(data=json.dumps(body).encode())
    source = SourceResult(
        source=SOURCE.name, provider="aws", status=OK, observed_at=LOADED, payloads=1,
        facts=found.facts, payload_digest="x",
    )  # fmt: skip
    con = open_warehouse(path)
    try:
        load_run(con, RunResult("advisor", LOADED, LOADED, "live", "advisor", False, [source]))
    finally:
        con.close()
    return path


def cli(*args: str):
    return chipcost(*args, env={**os.environ, "CHIPCOST_DISCOUNTS": "", "CHIPCOST_CURRENCY": ""})


def test_prices_show_the_bucket_beside_an_aws_spot_price(golden):
    result = cli("prices", "--chip", "H100-SXM", "--db", str(golden), "--format", "json")
    rows = json.loads(result.stdout)
    spot = [r for r in rows if r["pricing_model"] == "spot"]
    assert spot and all(r["interruption"] == "15-20%" for r in spot)
    assert all(r["interruption"] is None for r in rows if r["pricing_model"] != "spot")
    table = cli("prices", "--chip", "H100-SXM", "--spot", "--db", str(golden))
    assert "interruption" in table.stdout and "15-20%" in table.stdout


def test_cost_leaves_out_spot_above_the_asked_interruption(golden):
    args = ("cost", "--model", "llama-3-70b", "--workload", "inference", "--db", str(golden))
    every = json.loads(cli(*args, "--format", "json").stdout)
    assert any(r["pricing_model"] == "spot" for r in every)
    capped = cli(*args, "--format", "json", "--max-interruption", "10%")
    assert capped.returncode == 0, capped.stderr
    assert not [r for r in json.loads(capped.stdout) if r["pricing_model"] == "spot"]
    table = cli(*args, "--max-interruption", "10")
    said = " ".join(table.stdout.split())  # the note wraps at the terminal's width
    assert "max interruption 10%: 2 AWS spot offer(s) left out" in said, said
    # the bucket as the table prints it is its top (on 0cae6cf: refused, "give a percent")
    wide = json.loads(cli(*args, "--format", "json", "--max-interruption", "15-20%").stdout)
    assert [r["interruption"] for r in wide if r["pricing_model"] == "spot"] == ["15-20%"]
    bad = cli(*args, "--max-interruption", "often")
    assert bad.returncode != 0 and "--max-interruption 'often': give a percent" in bad.stderr


def test_the_explorer_shows_the_bucket_beside_an_aws_spot_price(golden, tmp_path):
    result = cli("site", str(tmp_path / "site"), "--db", str(golden))
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "site" / "offers.json").read_text())
    buckets = {(row["pricing_model"], row["interruption"]) for row in offer_rows(data)}
    assert ("spot", "15-20%") in buckets
    assert all(b is None for model, b in buckets if model != "spot")
    page = (tmp_path / "site" / "index.html").read_text()
    assert "Spot Instance Advisor" in page  # the legend says what the bucket is
