"""`chipcost site DIR`: the files it writes, and scraped text kept as text."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from chipcost.reports.period import ReportError
from chipcost.reports.site import COLUMNS, write_site
from tests import report_warehouse
from tests.helpers import day, record, run_of
from tests.reports.test_report_output import chipcost, warehouse

NASTY = "</script><script>alert(1)</script>"


def test_cli_writes_page_json_and_csv(tmp_path):
    db = report_warehouse.build(tmp_path / "w.duckdb")
    result = chipcost("site", str(tmp_path / "out"), "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert "price explorer:" in result.stdout and "(6 offers of 2 chips)" in result.stdout
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    assert data["columns"] == list(COLUMNS) and len(data["offers"]) == 6
    assert data["as_of"] == "2026-11-07 06:00 UTC" and data["sample"] is False
    assert {(t["chip"], t["model"], t["workload"]) for t in data["throughput"]} >= {
        ("H100-SXM", "llama-3-70b", "inference")
    }
    rows = list(csv.DictReader((tmp_path / "out" / "offers.csv").open()))
    assert len(rows) == 6 and rows[0]["chip"] == "H100-SXM"
    page = (tmp_path / "out" / "index.html").read_text()
    assert '<figure data-chip="H100-SXM">' in page and "<svg" in page
    assert not re.search(r"(src|href)=[\"']?(https?:)?//", page)  # nothing fetched elsewhere


def test_scraped_text_cannot_end_the_data_script(tmp_path):
    db = warehouse(
        tmp_path / "w.duckdb", [run_of([record(instance_type=NASTY), record(sku="2")], day(0))]
    )
    made = write_site(db, tmp_path / "out")
    page = made.index.read_text()
    assert NASTY not in page and "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)" in page
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    assert NASTY in [row[COLUMNS.index("instance_type")] for row in data["offers"]]
    rows = list(csv.DictReader((tmp_path / "out" / "offers.csv").open()))
    assert {r["instance_type"] for r in rows} == {NASTY, "p5.48xlarge"}


def test_formula_like_text_is_defused_in_the_csv(tmp_path):
    db = warehouse(tmp_path / "w.duckdb", [run_of([record(instance_type="=HYPERLINK(1)")], day(0))])
    write_site(db, tmp_path / "out")
    (row,) = csv.DictReader((tmp_path / "out" / "offers.csv").open())
    assert row["instance_type"] == "'=HYPERLINK(1)"


def test_a_file_in_the_way_is_explained(tmp_path):
    db = report_warehouse.build(tmp_path / "w.duckdb")
    (tmp_path / "taken").write_text("x")
    result = chipcost("site", str(tmp_path / "taken"), "--db", str(db))
    assert result.returncode == 1 and "is a file: give a directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_without_a_warehouse_says_what_to_do(tmp_path):
    result = chipcost("site", str(tmp_path / "out"), "--db", str(tmp_path / "none.duckdb"))
    assert result.returncode == 1 and "run `chipcost collect` first" in result.stderr
    assert not Path(tmp_path / "out").exists()


def test_weeks_beyond_ten_years_are_refused_before_reading(tmp_path):
    db = report_warehouse.build(tmp_path / "w.duckdb")
    # 100 million weeks before the newest run is before year 1: it was a traceback.
    result = chipcost("site", str(tmp_path / "out"), "--weeks", "100000000", "--db", str(db))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "is not in the range 1<=x<=521" in result.stderr and not (tmp_path / "out").exists()
    with pytest.raises(ReportError, match="weeks 522: give 1 to 521 weeks of price history"):
        write_site(db, tmp_path / "out", weeks=522)
    assert write_site(db, tmp_path / "out", weeks=521).offers == 6
