"""The Python API: polars frames from the warehouse, read-only, light to import."""

from __future__ import annotations

import subprocess
import sys
from datetime import date

import polars as pl
import pytest

import chipcost
from chipcost.core.errors import ChipcostError
from tests.report_warehouse import build


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return build(tmp_path_factory.mktemp("api") / "w.duckdb")


def test_import_stays_light():
    code = (
        "import sys, chipcost\n"
        "heavy = [m for m in ('polars', 'duckdb', 'prefect') if m in sys.modules]\n"
        "print(heavy, chipcost.__version__)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.startswith("[] ")


def test_prices(db):
    frame = chipcost.prices(chip="H100", max_price=10.0, db=db)
    assert isinstance(frame, pl.DataFrame)
    assert set(frame["chip"]) == {"H100-SXM"}
    assert frame["price_per_chip_hour"].max() <= 10.0
    assert {"source_as_of", "sample", "upfront", "memory_gb"} <= set(frame.columns)
    spot = chipcost.prices("H100-SXM", spot=True, db=db)
    assert set(spot["pricing_model"]) == {"spot"}


def test_default_warehouse_from_the_environment(db, monkeypatch):
    monkeypatch.setenv("CHIPCOST_DB", str(db))
    assert chipcost.prices(chip="Trainium").height == 1


def test_history(db):
    frame = chipcost.history("H100-SXM", pricing_model="on-demand", since="2026-11-05", db=db)
    assert frame["day"].to_list() == [date(2026, 11, d) for d in (5, 6, 7)]
    assert frame["price_per_chip_hour"].to_list() == [9.0, 9.25, 9.25]


def test_cost_and_sources(db):
    ranking = chipcost.cost("llama-3-70b", "inference", chip="H100-SXM", tokens="1B", db=db)
    assert ranking["rank"].to_list() == list(range(1, ranking.height + 1))
    assert {"cost_per_million_tokens", "cost_for_tokens", "fits"} <= set(ranking.columns)
    sources = chipcost.sources(db=db)
    assert "aws-pricing-api" in sources["source"].to_list()


def test_errors_are_chipcost_errors(db):
    with pytest.raises(ChipcostError, match="unknown chip 'H10'"):
        chipcost.prices(chip="H10", db=db)
    with pytest.raises(ChipcostError, match="give a day as YYYY-MM-DD"):
        chipcost.history(since="last week", db=db)
    with pytest.raises(ChipcostError, match=r"since=2026-11-06 is after until=2026-11-04"):
        chipcost.history("H100-SXM", since="2026-11-06", until=date(2026, 11, 4), db=db)
    with pytest.raises(ChipcostError, match=r"unknown region 'us-west-9' \(did you mean us-west-2"):
        chipcost.history("H100-SXM", region="us-west-9", db=db)
    with pytest.raises(ChipcostError, match="unknown pricing model 'ondemand'"):
        chipcost.history("H100-SXM", pricing_model="ondemand", db=db)
    with pytest.raises(ChipcostError, match=r"--max-price 'abc': give a number"):
        chipcost.prices(max_price="abc", db=db)
    with pytest.raises(ChipcostError, match=r"--min-memory '80': give a number"):
        chipcost.prices(min_memory="80", db=db)
    with pytest.raises(AttributeError):
        chipcost.nothing  # noqa: B018
