"""`chipcost history` as a user runs it: real console script, the golden warehouse."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.warehouse.history import HISTORY_COLUMNS
from tests import report_warehouse
from tests.cli.test_cli import chipcost

BRAILLE = range(0x2800, 0x2900)  # plotext draws its lines with braille dots


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    return report_warehouse.build(tmp_path_factory.mktemp("history") / "w.duckdb")


def test_history_draws_a_table_and_a_chart(golden):
    result = chipcost("history", "--chip", "H100-SXM", "--db", str(golden))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "H100-SXM: cheapest USD per chip-hour by day" in text
    # The table: A's cut to 9.00 on the 4th, its rise to 9.25 on the 6th; spot from the 3rd.
    assert "│ 2026-11-04 │    9.0000 │ 5.0000 │" in text
    assert "│ 2026-11-06 │    9.2500 │ 5.0000 │" in text
    assert "on_demand: $9.2500 on 2026-11-07 at aws · us-east-1 · p5.48xlarge (4 offers)" in text
    assert text.count("H100-SXM: cheapest USD per chip-hour") == 2  # the table's, the chart's
    chart = text.rsplit("H100-SXM: cheapest USD per chip-hour", 1)[1]
    assert sum(ord(c) in BRAILLE for c in chart) > 50, chart
    assert "on_demand" in chart and "spot" in chart and "2026-11-07" in chart
    assert "\x1b[" not in text  # no colour codes in piped output


def test_history_as_csv_and_json(golden):
    args = ("history", "--chip", "H100-SXM", "--db", str(golden))
    rows = list(csv.DictReader(io.StringIO(chipcost(*args, "--format", "csv").stdout)))
    assert tuple(rows[0]) == HISTORY_COLUMNS
    assert len(rows) == 7 + 5  # on-demand every day, spot from the third
    assert {r["pricing_model"] for r in rows} == {"on_demand", "spot"}
    spot = json.loads(chipcost(*args, "--format", "json", "--model", "spot").stdout)
    assert [r["day"] for r in spot][:2] == ["2026-11-03", "2026-11-04"]
    assert {r["price_per_chip_hour"] for r in spot} == {5.0}


def test_history_filters_and_since(golden):
    result = chipcost(
        "history", "--chip", "H100-SXM", "--region", "us-west-2", "--since", "2026-11-05",
        "--format", "csv", "--db", str(golden),
    )  # fmt: skip
    prices = [float(r["price_per_chip_hour"]) for r in csv.DictReader(io.StringIO(result.stdout))]
    assert prices == [12.6, 12.6, 12.6]


def test_history_with_nothing_to_show_says_what_to_check(golden):
    result = chipcost("history", "--chip", "B200", "--db", str(golden))
    assert result.returncode == 1
    assert "no prices of B200 match these filters" in result.stderr
    assert "Traceback" not in result.stderr
    result = chipcost("history", "--chip", "H1OO-SXM", "--db", str(golden))
    assert result.returncode == 1 and "unknown chip 'H1OO-SXM'" in result.stderr


def test_history_does_not_start_prefect(golden):
    code = (
        "import sys\n"
        f"sys.argv = ['chipcost', 'history', '--chip', 'L4', '--db', {str(golden)!r}]\n"
        "import chipcost.cli.entry\n"
        "try:\n    chipcost.cli.entry.main()\nexcept SystemExit:\n    pass\n"
        "print('PREFECT LOADED' if 'prefect' in sys.modules else 'PREFECT NOT LOADED')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert "PREFECT NOT LOADED" in result.stdout, result.stdout + result.stderr
