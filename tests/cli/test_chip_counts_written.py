"""A whole chip count is written as an integer in every CSV, as `prices --format csv` writes
it (docs/cli.md: a whole count as an integer, a slice its fraction): the report's changes and
the explorer's offers.csv. On a real warehouse, the command line through the in-process
runner."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.helpers import loaded_warehouse, record


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return loaded_warehouse(tmp_path_factory.mktemp("counts") / "w.duckdb", [record()])


def test_the_reports_changes_and_the_explorers_offers_write_counts_as_prices_does(
    warehouse, tmp_path, run
):
    done = run("report", "--dry-run", "--out", str(tmp_path / "r"), "--db", str(warehouse))
    assert done.returncode == 0, done.stderr
    site = run("site", "--out", str(tmp_path / "s"), "--db", str(warehouse))
    assert site.returncode == 0, site.stderr
    for path in [*(tmp_path / "r").glob("*.csv"), tmp_path / "s" / "offers.csv"]:
        with path.open(encoding="utf-8") as handle:
            counts = {row["chip_count"] for row in csv.DictReader(handle)}
        assert counts and not any(c.endswith(".0") for c in counts), (path.name, counts)
