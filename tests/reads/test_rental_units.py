"""Fits counts what one offer rents: a TPU slice or an UltraServer holds all its chips' memory.

The offers are parsed from the gcp and aws-capacity-blocks fixtures (Cloud Billing SKU pages
with TpuV6e at $2.70 per chip-hour; a u-trn2x64 block) and loaded into a real DuckDB file;
`chipcost cost` runs as a user runs it. Llama-3-70B needs 141 GB of weights at BF16 (inference)
and 1,130 GB of training state: one v6e chip (32 GB) holds neither, a v6e-8 (256 GB) the
weights, a v6e-64 (2,048 GB) the training state, a Trn2 UltraServer (64 x 96 GB) both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chipcost.extract import gcp
from chipcost.extract.aws import capacity_blocks as cb
from chipcost.reads.rental_units import unit_of
from chipcost.transform.cost_fit import smallest_that_holds
from chipcost.warehouse.db import connect
from chipcost.warehouse.snapshot import cheapest_cost_per_token
from tests import warehouses
from tests.cli.test_cost_cli import chipcost
from tests.extract.test_aws_ultraserver_blocks import ultraserver
from tests.extract.test_gcp import good
from tests.helpers import day, record, run_by_provider


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("slices") / "w.duckdb"
    tpus = [r for r in gcp.parse(good()).records if r.chip.startswith("TPU")]
    trn2 = cb.parse(
        [ultraserver("offerings-u-trn2x64-us-east-2-24h.json", "us-east-2", "u-trn2x64", 24)]
    ).records
    return warehouses.of_runs(
        path, [run_by_provider({"gcp": tpus, "aws": [record(), *trn2]}, day(0))]
    )


def ranked(db: Path, workload: str, *chips: str, every: bool = False) -> list[dict]:
    asked = [a for chip in chips for a in ("--chip", chip)] + (["--all-offers"] if every else [])
    result = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", workload, *asked,
        "--format", "json", "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_70b_model_is_held_by_a_v6e_8_the_smallest_slice_that_holds_it(db):
    rows = ranked(db, "inference", "TPU-v6e")
    assert rows and {r["instance_type"] for r in rows} == {"ct6e-standard-8t"}
    on_demand = next(r for r in rows if r["pricing_model"] == "on_demand")
    assert (on_demand["fits"], on_demand["instance_memory_gb"]) == (True, 256.0)
    assert on_demand["price_per_chip_hour"] == pytest.approx(2.7)  # Google's per chip-hour
    every = [r for r in ranked(db, "inference", "TPU-v6e", every=True) if r["pricing_model"]
             == "on_demand" and r["region"] == "us-east5"]  # fmt: skip
    # Every size at the same price per chip; those that hold it first, smallest first.
    assert [r["instance_type"] for r in every][:2] == ["ct6e-standard-8t", "v6e-16"]
    assert [r["fits"] for r in every] == [True] * 6 + [False] * 2
    assert every[-2:][0]["instance_memory_gb"] > every[-1]["instance_memory_gb"]


def test_training_counts_slices_and_ultraservers(db):
    rows = ranked(db, "training", "TPU-v6e", "Trainium2")
    chosen = {(r["chip"], r["pricing_model"]): r for r in rows}
    v6e = chosen[("TPU-v6e", "on_demand")]
    assert (v6e["instance_type"], v6e["fits"], v6e["instances_needed"]) == ("v6e-64", True, 1)
    block = chosen[("Trainium2", "capacity_block")]
    # 64 Trainium2 of AWS's 96 GiB, 103.08 GB each
    assert block["instance_type"] == "u-trn2x64"
    assert block["instance_memory_gb"] == pytest.approx(64 * 103.08)
    assert block["fits"] is True


def test_the_table_names_the_slice_and_counts_slices(db):
    shown = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--chip", "TPU-v6e",
        "--db", str(db),
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "yes 141/256 GB ct6e-standard-8t" in shown.stdout
    big = chipcost(
        "cost", "--model", "llama-3.1-405b", "--workload", "training", "--chip", "TPU-v5e",
        "--pricing-model", "on_demand", "--db", str(db),
    )  # fmt: skip
    assert big.returncode == 0, big.stderr
    # 405B's training state (6,480 GB) is more than the largest v5e slice holds (256 x 16 GB):
    # two such slices, counted as slices.
    assert "NO 6,480/4,096 GB v5litepod-256 (2 slices)" in big.stdout


def test_the_report_names_the_same_slices_as_cost(db):
    con = connect(db, read_only=True)
    try:
        chosen = cheapest_cost_per_token(con)
    finally:
        con.close()
    assert chosen is not None
    v6e = chosen.filter(chosen["chip"] == "TPU-v6e", chosen["model"] == "llama-3-70b")
    named = dict(zip(v6e["workload"], v6e["instance_type"], strict=True))
    assert named == {"inference": "ct6e-standard-8t", "training": "v6e-64"}
    v5e = chosen.filter(chosen["chip"] == "TPU-v5e", chosen["model"] == "llama-3.1-405b")
    training = v5e.filter(v5e["workload"] == "training").row(0, named=True)
    assert (training["instance_type"], training["instances_needed"]) == ("v5litepod-256", 2)


def test_the_report_counts_slices(db, tmp_path):
    from chipcost.reports.build import write_report

    report = write_report(db, tmp_path / "report")
    rows = report.data.cost_per_token
    v5e = rows.filter(rows["chip"] == "TPU-v5e", rows["model"] == "llama-3.1-405b")
    assert "no, needs 2 slices" in set(v5e["holds"])
    h100 = rows.filter(rows["chip"] == "H100-SXM", rows["model"] == "llama-3.1-405b")
    h100 = h100.filter(h100["workload"] == "training")
    assert list(h100["holds"]) == ["no, needs 11 instances"]  # 6,480 GB over p5's 640 GB


def test_smallest_that_holds_reorders_only_one_offer_in_several_sizes():
    same = {"usd_per_million_tokens": 1.0, "chip": "TPU-v6e", "provider": "gcp"}
    rows = [
        {**same, "instance_type": "a", "fits": False, "instance_memory_gb": 32.0},
        {**same, "instance_type": "b", "fits": True, "instance_memory_gb": 512.0},
        {**same, "instance_type": "c", "fits": True, "instance_memory_gb": 256.0},
        {**same, "instance_type": "d", "fits": False, "instance_memory_gb": 128.0},
        {**same, "usd_per_million_tokens": 2.0, "instance_type": "e", "fits": True,
         "instance_memory_gb": 1.0},
        {**same, "usd_per_million_tokens": 0.5, "instance_type": "f", "fits": None,
         "instance_memory_gb": None},
    ]  # fmt: skip
    assert [r["instance_type"] for r in smallest_that_holds(rows)] == list("cbdaef")


def test_units_are_named_for_slices_and_ultraservers_only():
    assert unit_of({"provider": "gcp", "instance_type": "v6e-16"}).plural == "slices"
    assert unit_of({"provider": "aws", "instance_type": "u-trn2x64"}).kind == "UltraServer"
    assert unit_of({"provider": "gcp", "instance_type": "tpu-v4"}) is None
    assert unit_of({"provider": "aws", "instance_type": "p5.48xlarge"}) is None
