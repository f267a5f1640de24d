"""`chipcost prices --format focus`: FOCUS's column names and allowed values, checked against
the column list read from the specification (core/data/focus_columns.csv)."""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import UTC

import pytest

from chipcost.transform.focus import FOCUS_COLUMNS, PRICING_CATEGORY
from tests.cli_runner import chipcost
from tests.paths import ROOT

SPEC = {
    row["column_id"]: row
    for row in csv.DictReader((ROOT / "core/data/focus_columns.csv").open(encoding="utf-8"))
}


def test_every_column_is_the_specifications_or_a_custom_x_column():
    for column in FOCUS_COLUMNS:
        assert column in SPEC or column.startswith("x_"), column
    allowed = set(SPEC["PricingCategory"]["allowed_values"].split("|"))
    assert set(PRICING_CATEGORY.values()) <= allowed


def test_prices_as_focus(golden, tmp_path):
    env = {**os.environ, "CHIPCOST_DISCOUNTS": ""}
    result = chipcost("prices", "--db", str(golden), "--format", "focus", env=env)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert tuple(rows[0]) == FOCUS_COLUMNS
    by_model = {}
    for row in rows:
        details = json.loads(row["SkuPriceDetails"])
        by_model[details["x_PricingModel"]] = row
        assert row["PricingUnit"] == "Hours" and row["PricingCurrency"] == "USD"
        assert float(row["x_ListUnitPricePerChipHour"]) * float(details["GpuCount"]) == (
            pytest.approx(float(row["ListUnitPrice"]))
        )
        assert row["SkuPriceEffectiveStart"] and row["x_PayloadRef"]
    assert by_model["on_demand"]["PricingCategory"] == "Standard"
    assert by_model["spot"]["PricingCategory"] == "Dynamic"
    reserved = by_model["reserved"]
    assert reserved["PricingCategory"] == "Committed"
    assert reserved["CommitmentDiscountCategory"] == "Usage"
    assert json.loads(reserved["SkuPriceDetails"])["x_Term"] == "1yr"
    # your discount is the contracted price; the list price stays
    path = tmp_path / "d.toml"
    path.write_text('[[discount]]\nprovider = "aws"\npercent = 20\n')
    env["CHIPCOST_DISCOUNTS"] = str(path)
    discounted = chipcost("prices", "--db", str(golden), "--format", "focus", env=env)
    for row in csv.DictReader(io.StringIO(discounted.stdout)):
        assert float(row["ContractedUnitPrice"]) == pytest.approx(0.8 * float(row["ListUnitPrice"]))


def test_export_writes_the_whole_history_as_csv_and_parquet(golden, tmp_path):
    import duckdb
    import polars as pl

    env = {**os.environ, "CHIPCOST_DISCOUNTS": ""}
    target = tmp_path / "focus"
    result = chipcost("export", "--out", str(target), "--db", str(golden), env=env)
    assert result.returncode == 0, result.stderr
    con = duckdb.connect(str(golden), read_only=True)
    try:
        held = con.execute("SELECT count(*), count(valid_to) FROM price_history").fetchone()
    finally:
        con.close()
    rows = list(csv.DictReader((target / "sku_prices.csv").open(encoding="utf-8")))
    assert tuple(rows[0]) == FOCUS_COLUMNS and len(rows) == held[0]
    assert f"FOCUS export: {held[0]} prices ({held[0] - held[1]} in force now)" in result.stdout
    ended = [r for r in rows if r["SkuPriceEffectiveEnd"]]
    assert len(ended) == held[1]
    # L4 g6.xlarge was withdrawn on day 6: its span ends then, in FOCUS's UTC format
    l4 = next(r for r in rows if r["x_Chip"] == "L4")
    con = duckdb.connect(str(golden), read_only=True)
    try:
        start, end = con.execute(
            "SELECT valid_from, valid_to FROM price_history WHERE chip = 'L4'"
        ).fetchone()
    finally:
        con.close()
    assert l4["SkuPriceEffectiveStart"] == f"{start.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"
    assert l4["SkuPriceEffectiveEnd"] == f"{end.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"
    parquet = pl.read_parquet(target / "sku_prices.parquet")
    assert parquet.columns == list(FOCUS_COLUMNS) and parquet.height == held[0]
    # a chip and a day narrow it; an empty answer says why
    h100 = chipcost("export", "--out", str(tmp_path / "h"), "--chip", "H100-SXM",
                    "--db", str(golden), env=env)  # fmt: skip
    assert h100.returncode == 0
    chips = {r["x_Chip"] for r in csv.DictReader((tmp_path / "h/sku_prices.csv").open())}
    assert chips == {"H100-SXM"}
    none = chipcost("export", "--out", str(tmp_path / "n"), "--chip", "B200", "--db",
                    str(golden), env=env)  # fmt: skip
    assert none.returncode == 1 and "no price in the history to export" in none.stderr


def test_history_as_focus_is_each_days_cheapest_in_force_that_day(golden):
    env = {**os.environ, "CHIPCOST_DISCOUNTS": "", "CHIPCOST_CURRENCY": ""}
    args = ("history", "--chip", "H100-SXM", "--pricing-model", "on_demand", "--db", str(golden))
    plain = {r["day"]: r for r in json.loads(chipcost(*args, "--format", "json", env=env).stdout)}
    result = chipcost(*args, "--format", "focus", env=env)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert tuple(rows[0]) == FOCUS_COLUMNS and len(rows) == len(plain)
    for row in rows:
        day = row["SkuPriceEffectiveStart"][:10]
        assert row["SkuPriceEffectiveStart"] == f"{day}T00:00:00Z"
        assert row["SkuPriceEffectiveEnd"].endswith("T00:00:00Z")
        assert float(row["x_ListUnitPricePerChipHour"]) == plain[day]["price_per_chip_hour"]
        assert row["PricingCategory"] == "Standard"


def test_a_price_the_provider_moves_with_demand_is_dynamic():
    """Verda's dynamic plan: on demand at a price that moves daily with demand. On 2487f4c
    it was exported as Standard, beside the fixed price of the same instance."""
    from chipcost.transform.focus import focus_rows

    base = {
        "provider": "verda", "region": "global", "zone": "", "instance_type": "1H100.80S.30V",
        "pricing_model": "on_demand", "term": "none", "payment": "none", "chip_count": 1,
        "price_per_hour": 1.62, "price_per_chip_hour": 1.62, "valid_from": None,
    }  # fmt: skip
    dynamic, fixed = focus_rows([{**base, "plan": "dynamic"}, {**base, "plan": "default"}])
    assert (dynamic["PricingCategory"], fixed["PricingCategory"]) == ("Dynamic", "Standard")
