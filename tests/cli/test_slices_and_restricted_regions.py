"""Slices of a GPU and regions most buyers cannot rent in, as the reads answer them: a real
DuckDB warehouse of one run. An L4 on demand at AWS (us-east-1, $0.80 a chip), Azure's whole A10
size and its third of an A10 (the slice rule: chip_count 1/3, its price per chip a whole-chip
equivalent), and H100s in us-east-1 and in Azure's usgovvirginia (a US government region)."""

from __future__ import annotations

import json

import pytest

from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from chipcost.warehouse.price_index import price_index
from tests import warehouses
from tests.cli.test_cost_cli import chipcost as run_cli
from tests.helpers import day, record, run_by_provider


def _azure(**changes):
    return record(provider="azure", source="azure", pricing_model="on_demand", **changes)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = warehouses.new(tmp_path_factory.mktemp("slices") / "w.duckdb")
    offers = {
        "aws": [
            record(price_per_hour=80.0),  # H100-SXM, 8 chips: $10 a chip
            record(instance_type="g6.xlarge", chip="L4", chip_count=1.0, price_per_hour=0.8,
                   sku="L"),
        ],
        "azure": [
            _azure(region="eastus", instance_type="Standard_NC32ads_A10_v4", chip="A10",
                   chip_count=1.0, price_per_hour=3.0, sku="A1"),
            # a third of an A10 at $0.36/h: $1.08 per whole A10, cheaper than the whole size
            _azure(region="eastus", instance_type="Standard_NC8ads_A10_v4", chip="A10",
                   chip_count=1 / 3, price_per_hour=0.36, sku="A2",
                   extra={"share": "1/3 of one A10"}),
            # H100 in a US government region at $6 a chip: cheaper than us-east-1's $10
            _azure(region="usgovvirginia", instance_type="Standard_ND96isr_H100_v5",
                   price_per_hour=48.0, sku="G1",
                   extra={"restricted_region": "a US government region"}),
        ],
    }  # fmt: skip
    con = open_warehouse(path)
    try:
        load_run(con, run_by_provider(offers, day(0)))
    finally:
        con.close()
    return str(path)


def _json(*args: str) -> list[dict]:
    done = run_cli(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_price_is_listed_with_its_share(db):
    rows = _json("prices", "--db", db)
    assert {(r["chip"], r["region"], round(r["chip_count"], 4)) for r in rows} == {
        ("H100-SXM", "us-east-1", 8), ("L4", "us-east-1", 1), ("A10", "eastus", 1),
        ("A10", "eastus", 0.3333), ("H100-SXM", "usgovvirginia", 8),
    }  # fmt: skip
    [third] = [r for r in rows if r["chip_count"] < 1]
    assert third["price_per_chip_hour"] == pytest.approx(1.08)  # a whole A10's equivalent


def test_the_cheapest_answer_leaves_out_slices_and_government_regions(db):
    cheapest = {r["chip"]: r for r in _json("prices", "--by", "chip", "--db", db)}
    assert cheapest["A10"]["instance_type"] == "Standard_NC32ads_A10_v4"  # not the 1/3 slice
    assert cheapest["A10"]["offers"] == 1
    assert cheapest["H100-SXM"]["region"] == "us-east-1"  # not usgovvirginia
    by_region = _json("prices", "--by", "region", "--db", db)
    assert "usgovvirginia" not in {r["region"] for r in by_region}


def test_region_naming_a_government_region_brings_it_in(db):
    [row] = _json("prices", "--by", "chip", "--region", "usgovvirginia", "--db", db)
    assert (row["chip"], row["region"], row["price_per_chip_hour"]) == (
        "H100-SXM", "usgovvirginia", pytest.approx(6.0),
    )  # fmt: skip
    both = _json("prices", "--by", "chip", "--region", "us-east-1,usgovvirginia", "--db", db)
    assert {r["chip"]: r["region"] for r in both}["H100-SXM"] == "usgovvirginia"


def test_the_index_is_of_whole_chips_anyone_can_rent(db):
    from chipcost.warehouse.db import connect

    con = connect(db, read_only=True)
    try:
        frame = price_index(con, ["A10", "H100-SXM"], ["on_demand"])
    finally:
        con.close()
    levels = {row["chip"]: row for row in frame.iter_rows(named=True)}
    assert levels["A10"]["level"] == pytest.approx(3.0)  # the whole size alone
    assert levels["H100-SXM"]["level"] == pytest.approx(10.0)  # us-east-1 alone
    assert levels["H100-SXM"]["constituents"] == 1 and "azure" not in levels["H100-SXM"]["prices"]


def test_the_tables_say_what_the_cheapest_sets_apart(db):
    listing = run_cli("prices", "--by", "offer", "--db", db, env={"COLUMNS": "200"})
    assert listing.returncode == 0, listing.stderr
    said = " ".join(listing.stdout.split())
    assert "1 offer(s) renting a share of one GPU" in said
    assert "1 in a government, China or sovereign region (usgovvirginia;" in said
    assert "listed here, left out of --by and the index" in said
    glance = run_cli("prices", "--by", "chip", "--db", db, env={"COLUMNS": "200"})
    assert "note: left out of the cheapest: 1 offer(s) renting a share" in glance.stdout
    asked = run_cli("prices", "--by", "chip", "--region", "usgovvirginia", "--db", db)
    assert "left out" not in asked.stdout


def test_the_cheapest_cost_per_token_is_a_whole_chip_anyone_can_rent(db):
    from chipcost.warehouse.cost_per_token import cost_rows
    from chipcost.warehouse.db import connect

    con = connect(db, read_only=True)
    try:
        every = cost_rows(
            con, "bert-large", "inference", chips=["A10", "H100-SXM"], all_offers=True
        )
        cheapest = cost_rows(con, "bert-large", "inference", chips=["A10", "H100-SXM"])
        asked = cost_rows(con, "bert-large", "inference", chips=["H100-SXM"],
                          regions=["usgovvirginia"])  # fmt: skip
    finally:
        con.close()
    # The catalogue's derived figures price every offer; the slice and the government region
    # are the cheapest per million tokens of all, and answer no chip's cheapest.
    first = {}
    for row in sorted(every, key=lambda r: r["usd_per_million_tokens"]):
        first.setdefault(row["chip"], row["instance_type"])
    assert first == {"A10": "Standard_NC8ads_A10_v4", "H100-SXM": "Standard_ND96isr_H100_v5"}
    assert {(r["chip"], r["instance_type"]) for r in cheapest} == {
        ("A10", "Standard_NC32ads_A10_v4"), ("H100-SXM", "p5.48xlarge"),
    }  # fmt: skip
    assert [r["region"] for r in asked] == ["usgovvirginia"]
