"""The sample's estimates (sample/REFERENCES.md: no public price found) replayed into a warehouse
and read: `chipcost prices` marks them and says what they rest on, its JSON and CSV carry an
`estimate` column, the explorer's offers too; a quoted price carries none."""

from __future__ import annotations

import csv
import io
import json

import pytest

from chipcost.archive import run_directories
from chipcost.cli.price_cells import ESTIMATE_MARK
from chipcost.core.runs import OK, RunResult
from chipcost.core.settings import Settings
from chipcost.extract import registry
from chipcost.pipeline.collect import collect_source
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from chipcost.warehouse.offers import current_offers
from chipcost.warehouse.prices import per_chip_price_rows
from tests import warehouses
from tests.paths import ROOT

SAMPLE = ROOT / "sample" / "archive"
# The sources of the sample's estimates; oci's quoted parts (sample/REFERENCES.md [A]) carry none.
SOURCES = ("azure", "lambda", "aws-capacity-blocks", "oci")
# Azure: every sample offer but the traced H100 eastus on-demand and spot prices is an estimate
# (the fixture's price times the scrambler's factor, and says so).
AZURE_TRACED = {("eastus", "Standard_ND96isr_H100_v5")}
# Every Capacity Block fee of the sample is an estimate (none is traced).
BLOCKS = "aws-capacity-blocks"
# what the sample's u-trn2x64 fee rests on: its fixture's (tests/fixtures/aws-capacity-blocks/
# ORIGIN.md), moved (sample/README.md)
TRN2_FEE = "synthetic: the price of chipcost's test fixture tests/fixtures/aws-capacity-blocks/"
# OCI's traced shapes (sample/REFERENCES.md [A]): the rest of OCI's sample is an estimate.
OCI_TRACED = {"BM.GPU.H100.8", "BM.GPU.H200.8", "BM.GPU.B200.8", "BM.GPU.MI300X.8"}
# The recorded Lambda page's B200 and H100 SXM prices are kept as recorded (sample/REFERENCES.md).
LAMBDA_TRACED = {"B200", "H100-SXM"}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """The last two sample runs of those sources loaded (without Prefect) into a DuckDB file."""
    folder = tmp_path_factory.mktemp("estimates")
    settings = Settings(data_dir=folder, db_path=folder / "w.duckdb")
    con = open_warehouse(warehouses.new(settings.db_path))
    for run in run_directories(SAMPLE)[-2:]:
        results = [
            collect_source(registry()[name], settings=settings, stamp=run.name, replay_dir=run)
            for name in SOURCES
        ]
        assert {r.status for r in results} == {OK}, [r.message for r in results]
        observed = min(r.observed_at for r in results)
        load_run(con, RunResult(run.name, observed, observed, "replay", run.name, True, results))
    con.close()
    return settings.db_path


def marked(rows: list[dict]) -> set[tuple[str, str, str, str]]:
    return {
        (r["source"], r["region"], r["instance_type"], r["pricing_model"])
        for r in rows
        if r["estimate"] and r["pricing_model"] != "savings_plan"
    }


def test_the_read_query_and_the_explorer_carry_the_estimates(warehouse):
    con = open_warehouse(warehouse)
    try:
        rows = per_chip_price_rows(con)
        offers = current_offers(con).to_dicts()
    finally:
        con.close()
    azure = {
        (r["source"], r["region"], r["instance_type"], r["pricing_model"])
        for r in rows
        if r["source"] == "azure" and r["pricing_model"] != "savings_plan"
        and ((r["region"], r["instance_type"]) not in AZURE_TRACED
             or r["pricing_model"] == "reserved")  # the capture holds no reservation
    }  # fmt: skip
    lambda_oci = {
        (r["source"], r["region"], r["instance_type"], r["pricing_model"])
        for r in rows
        if (r["source"] == "lambda" and r["chip"] not in LAMBDA_TRACED)
        or (r["source"] == "oci" and r["instance_type"] not in OCI_TRACED)
    }
    assert ("oci", "global", "BM.GPU.A100-v2.8", "on_demand") in lambda_oci
    assert ("azure", "westus", "Standard_ND96isr_MI300X_v5", "on_demand") in azure
    assert not [r for r in rows if (r["region"], r["instance_type"]) == (
        "eastus", "Standard_ND96isr_MI300X_v5")]  # fmt: skip
    blocks = {
        (r["source"], r["region"], r["instance_type"], r["pricing_model"])
        for r in rows
        if r["source"] == BLOCKS
    }
    assert ("aws-capacity-blocks", "us-east-2", "u-trn2x64", "capacity_block") in blocks
    assert marked(rows) == blocks | azure | lambda_oci
    assert marked(offers) == blocks | azure | lambda_oci
    copy = next(r for r in rows if (r["region"], r["instance_type"]) == (
        "swedencentral", "Standard_ND96isr_H100_v5"))  # fmt: skip
    assert copy["estimate"].startswith("synthetic: the price of chipcost's test fixture")
    assert "tests/fixtures/azure/" in copy["estimate"]
    trn2 = next(r for r in rows if r["instance_type"] == "u-trn2x64")
    assert trn2["estimate"].startswith(TRN2_FEE)
    # OCI's traced prices are quoted (sample/REFERENCES.md [A]): none of them is marked.
    assert not [r for r in rows if r["instance_type"] in OCI_TRACED and r["estimate"]]


def test_prices_marks_an_estimate_and_says_what_it_rests_on(run, warehouse):
    shown = run("prices", "--provider", "lambda", "--db", str(warehouse), env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    # the recorded page's B200 price, traced (sample/REFERENCES.md): not marked
    b200 = next(line for line in lines if "8x B200 SXM" in line)
    assert ESTIMATE_MARK.strip() not in b200 and "53.5200" in b200
    gh200 = next(line for line in lines if "GH200" in line)
    assert ESTIMATE_MARK.strip() in gh200  # moved from the recorded page's price: synthetic
    # the note as read, whatever the terminal's width wraps it to
    note = " ".join(shown.stdout.split()).split("note: est.")[1].split("note:")[0]
    assert "14 rows" in note and "test fixture tests/fixtures/lambda/ times" in note
    assert "synthetic" in note


def test_prices_json_and_csv_carry_the_estimate_column(run, warehouse):
    args = ("prices", "--provider", "aws", "--db", str(warehouse))
    as_json = run(*args, "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    rows = json.loads(as_json.stdout)
    # the Capacity Block fees, every one an estimate in the sample
    blocks = {r["instance_type"] for r in rows if r["source"] == BLOCKS}
    assert "u-trn2x64" in blocks
    assert {r["instance_type"] for r in rows if r["estimate"]} == blocks
    as_csv = run(*args, "--format", "csv")
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert {r["instance_type"] for r in table if r["estimate"]} == blocks
    trn2 = next(r for r in table if r["instance_type"] == "u-trn2x64")
    assert trn2["estimate"].startswith(TRN2_FEE)
    # a traced price carries an empty estimate cell
    as_csv = run("prices", "--provider", "oci", "--db", str(warehouse), "--format", "csv")
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert {r["estimate"] for r in table if r["instance_type"] in OCI_TRACED} == {""}
