"""Every CSV chipcost writes defuses text a spreadsheet would run as a formula, also behind
leading spaces: `prices`, `history` and `sql --format csv`, the report's and the site's CSV.

On main at 368c4bd the commands wrote `=HYPERLINK(...)`, `@SUM(...)` and `+cmd|` as they came,
and the site and report CSVs missed a formula behind a leading space.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.core.clean import spreadsheet_text
from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.site import write_site
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
HOSTILE = ['=HYPERLINK("http://x","y")', " =1+2", "@SUM(A1)", "+cmd|' /C calc'!A0", "\t=1"]


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_text_gets_a_leading_quote(text):
    assert spreadsheet_text(text) == "'" + text


@pytest.mark.parametrize("text", ["p5.48xlarge", "us-east-1", "a=b", "1x H100 SXM", ""])
def test_other_text_is_left_alone(text):
    assert spreadsheet_text(text) == text


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("formulas") / "w.duckdb"
    con = open_warehouse(path)
    try:
        for n in range(2):
            offers = [
                record(instance_type=text, sku=str(i), price_per_hour=10.0 + i + n)
                for i, text in enumerate(HOSTILE)
            ]
            load_run(con, run_of(offers, day(n)))
    finally:
        con.close()
    return path


def rows(*args: str) -> list[dict[str, str]]:
    done = subprocess.run([CHIPCOST, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return list(csv.DictReader(io.StringIO(done.stdout)))


def test_prices_csv_defuses_every_formula(warehouse):
    found = rows("prices", "--format", "csv", "--db", str(warehouse))
    assert sorted(r["instance_type"] for r in found) == sorted("'" + t for t in HOSTILE)
    assert all(float(r["price_per_hour"]) > 0 for r in found)  # numbers stay numbers


def test_sql_csv_defuses_text_but_not_negative_numbers(warehouse):
    query = "SELECT ' =1+2' AS text, -3.5 AS number, '-' AS dash"
    [row] = rows("sql", "--format", "csv", "--db", str(warehouse), query)
    assert row == {"text": "' =1+2", "number": "-3.5", "dash": "'-"}


def test_history_csv_defuses_every_formula(warehouse):
    found = rows("history", "--chip", "H100-SXM", "--format", "csv", "--db", str(warehouse))
    assert found and not [r for r in found for v in r.values() if v.lstrip().startswith("=")]


def test_the_site_csv_defuses_a_formula_behind_spaces(warehouse, tmp_path):
    write_site(warehouse, tmp_path / "site")
    found = list(csv.DictReader((tmp_path / "site" / "offers.csv").open()))
    assert sorted(r["instance_type"] for r in found) == sorted("'" + t for t in HOSTILE)
