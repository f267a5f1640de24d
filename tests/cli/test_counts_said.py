"""Counts in `prices`, `cost` and `export` are said as every other message says them: thousands
separated, one row said as one ('2,531 more rows', '1 more row'). On c96d2408 `prices --by
offer` said '2531 more rows: --by chip ...', the estimate note '(2534 rows)', `cost` '1 more
rows: narrow ...' and `export` 'FOCUS export: 3472 prices (2713 in force now)'."""

from __future__ import annotations

import csv
import json

import pytest

from tests import warehouses
from tests.cli.test_read_commands import chipcost

COST = ("cost", "--model", "llama-3-70b", "--workload", "inference")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    # every sample run: thousands of offers, most of them estimates
    return str(warehouses.sample(tmp_path_factory.mktemp("counts") / "w.duckdb"))


def _said(done) -> str:
    assert done.returncode == 0, done.stderr[-1000:]
    return " ".join(done.stdout.split())


def test_prices_counts_the_rows_left_out_and_the_estimates_shown(db):
    every = json.loads(chipcost("prices", "--by", "offer", "--format", "json", "--db", db).stdout)
    estimates = sum(1 for row in every if row.get("estimate"))
    assert len(every) - 200 >= 1000 and estimates >= 1000  # the sample's, else nothing is shown
    said = _said(chipcost("prices", "--by", "offer", "--db", db, columns=200))
    assert f"{len(every) - 200:,} more rows: --by chip gives" in said
    whole = _said(chipcost("prices", "--by", "offer", "--limit", str(len(every)), "--db", db,
                           columns=200))  # fmt: skip
    assert f"no price the provider publishes ({estimates:,} rows):" in whole


def test_cost_says_one_row_left_out_as_one(db):
    every = json.loads(chipcost(*COST, "--format", "json", "--db", db).stdout)
    said = _said(chipcost(*COST, "--limit", str(len(every) - 1), "--db", db, columns=200))
    assert "1 more row: narrow with --chip/--region or --limit" in said


def test_export_counts_its_prices_thousands_separated(db, tmp_path):
    said = _said(chipcost("export", "--out", str(tmp_path / "out"), "--db", db, columns=200))
    with (tmp_path / "out" / "sku_prices.csv").open(encoding="utf-8", newline="") as written:
        rows = list(csv.DictReader(written))
    now = sum(1 for row in rows if not row["SkuPriceEffectiveEnd"])
    assert len(rows) >= 1000
    assert f"FOCUS export: {len(rows):,} prices ({now:,} in force now) in" in said
