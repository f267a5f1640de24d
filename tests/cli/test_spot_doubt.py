"""A spot price not below its offer's on-demand price is loaded and marked on its row
(issue 75, doubtful rows): Azure's real Retail Prices recording (tests/fixtures/azure/
ORIGIN.md), whose uksouth `ND96isr H200 v5 Spot` is 106.0, the on-demand rate, parsed by the
source as a run does, loaded into a real DuckDB warehouse and read back by `prices`."""

from __future__ import annotations

import json

import pytest

from chipcost.extract.azure import PRICES_URL, SOURCE
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.cli.test_cost_cli import chipcost
from tests.helpers import day, run_by_provider
from tests.sources import payloads_of

RECORDED = "recorded-items-gpu-price-index.json"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    result = SOURCE.parse([payloads_of("azure", PRICES_URL)(RECORDED)])
    assert any("spot price(s) not below on demand" in note for note in result.notes)
    path = warehouses.new(tmp_path_factory.mktemp("doubt") / "w.duckdb")
    con = open_warehouse(path)
    try:
        load_run(con, run_by_provider({"azure": result.records}, day(0)))
    finally:
        con.close()
    return str(path)


def test_a_spot_price_at_the_on_demand_rate_is_marked_on_its_row(db):
    asked = ("prices", "--provider", "azure", "--chip", "H200", "--db", db)
    done = chipcost(*asked, "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    doubtful = [r for r in rows if r["spot_doubt"]]
    assert {(r["region"], r["pricing_model"]) for r in doubtful} == {("uksouth", "spot")}
    [row] = doubtful
    assert row["price_per_chip_hour"] * 8 == pytest.approx(106.0)
    # the recording lists no on-demand H200 in uksouth: the lowest elsewhere is 106.0 too
    assert "not below on demand elsewhere, its region listing none (106)" in row["spot_doubt"]
    # every other spot price of the recording is below its on-demand price, and unmarked
    assert all(r["spot_doubt"] is None for r in rows if r is not row)
    table = chipcost(*asked, env={"COLUMNS": "120"})
    assert table.returncode == 0, table.stderr
    said = " ".join(table.stdout.split())
    assert "spot (!)" in said
    assert "(!) = a spot price not below its offer's on-demand price" in said
    assert "azure uksouth Standard_ND96isr_H200_v5" in said
