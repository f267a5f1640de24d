"""Every FOCUS file and every history read keeps the marks `prices` shows beside a price: the
sample's lium RTX-5090 spot price, not below its on-demand price, is doubtful ('spot (!)'),
and tensordock's RTX-3080 price is the GPU's alone (its host billed beside it). `prices
--format focus`, `history --format focus` and `export --out` carry them as x_SpotDoubt and
x_GpuAlone after the other columns; history's csv and json as spot_doubt and gpu_alone, its
table as '(!)' and the notes `prices` writes, chipcost.history() in its frame. On 010c5b84
each of them dropped both marks."""

from __future__ import annotations

import csv
import io
import json

import polars as pl
import pytest

import chipcost as api
from chipcost.transform.focus import FOCUS_COLUMNS
from tests import warehouses
from tests.cli.test_read_commands import chipcost

DOUBTED = ("--chip", "RTX-5090", "--provider", "lium")  # its spot price is doubtful
ALONE = ("--chip", "RTX-3080", "--provider", "tensordock")  # priced as the GPU alone
DOUBT = "is not below on demand"  # what the parse says of the doubtful spot price
ALONE_NOTE = "tensordock prices the GPU alone"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("doubt") / "w.duckdb", last=2))


def _read(db: str, *args: str) -> tuple[str, str]:
    done = chipcost(*args, "--db", db, columns=200)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def _marks(rows: list[dict]) -> dict[tuple[str, str], tuple[str, str]]:
    """Each FOCUS row's (provider, pricing model): its x_SpotDoubt and x_GpuAlone."""
    return {
        (r["ServiceProviderName"], json.loads(r["SkuPriceDetails"])["x_PricingModel"]): (
            r["x_SpotDoubt"],
            r["x_GpuAlone"],
        )
        for r in rows
    }


def _rows(*texts: str) -> list[dict]:
    return [row for text in texts for row in csv.DictReader(io.StringIO(text))]


def _focus_says_both(rows: list[dict], doubted: str, alone: str) -> None:
    """The FOCUS rows' columns end with the two marks, the doubtful spot row says why, the
    on-demand row beside it nothing, and the GPU-alone row true."""
    assert tuple(rows[0]) == FOCUS_COLUMNS
    assert FOCUS_COLUMNS[-3:] == ("x_StatedCurrency", "x_SpotDoubt", "x_GpuAlone")
    marks = _marks(rows)
    assert DOUBT in marks[(doubted, "spot")][0] and marks[(doubted, "spot")][1] == "false"
    assert marks[(doubted, "on_demand")] == ("", "false")
    assert marks[(alone, "on_demand")] == ("", "true")


def test_prices_and_history_as_focus_carry_the_spot_doubt_and_the_gpu_alone(db):
    lium, _ = _read(db, "prices", "--format", "focus", *DOUBTED)
    tensordock, _ = _read(db, "prices", "--format", "focus", *ALONE)
    _focus_says_both(_rows(lium, tensordock), "lium", "tensordock")
    lium, _ = _read(db, "history", "--format", "focus", *DOUBTED, "--since", "2026-11-21")
    tensordock, said = _read(db, "history", "--format", "focus", *ALONE, "--since", "2026-11-21")
    _focus_says_both(_rows(lium, tensordock), "lium", "tensordock")
    assert ALONE_NOTE in said  # as `prices --format focus` says it


def test_the_focus_export_carries_them_and_says_them(db, tmp_path):
    said, _ = _read(db, "export", "--out", str(tmp_path))
    rows = list(csv.DictReader((tmp_path / "sku_prices.csv").open(encoding="utf-8")))
    ours = [r for r in rows if r["x_Chip"] in ("RTX-5090", "RTX-3080")]
    _focus_says_both(ours, "lium", "tensordock")
    parquet = pl.read_parquet(tmp_path / "sku_prices.parquet")
    assert parquet.columns[-2:] == ["x_SpotDoubt", "x_GpuAlone"]
    assert parquet.filter(pl.col("x_SpotDoubt").is_not_null())["ServiceProviderName"].unique(
    ).to_list() == ["lium"]  # fmt: skip
    assert "x_SpotDoubt: a spot price not below" in said and "lium global 1x RTX 5090" in said
    assert "x_GpuAlone: " in said and "tensordock" in said.split("x_GpuAlone: ")[1]


def test_history_csv_json_and_frame_carry_both_marks_before_the_currency(db):
    text, _ = _read(db, "history", "--format", "csv", *DOUBTED)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0])[-5:] == ["estimate", "sample", "spot_doubt", "gpu_alone", "currency"]
    spot = [r for r in rows if r["pricing_model"] == "spot"]
    assert spot and all(DOUBT in r["spot_doubt"] for r in spot)
    assert all(r["spot_doubt"] == "" for r in rows if r["pricing_model"] == "on_demand")
    text, said = _read(db, "history", "--format", "json", *ALONE)
    assert {r["gpu_alone"] for r in json.loads(text)} == {True}
    assert ALONE_NOTE in said
    frame = api.history(chip="RTX-5090", provider="lium", db=db)
    assert frame.columns[-2:] == ["spot_doubt", "gpu_alone"]
    assert frame.filter(pl.col("pricing_model") == "spot")["spot_doubt"].null_count() == 0


def test_history_table_marks_the_doubtful_spot_and_notes_both(db):
    table, _ = _read(db, "history", "--no-chart", *DOUBTED)
    days = [line for line in table.splitlines() if line.startswith("2026-")]
    assert days and all(line.endswith("est. (!)") for line in days)
    assert "  spot: $0.5600 est. (!) on" in table
    assert "note: (!) = a spot price not below its offer's on-demand price" in table
    assert "1 offer): lium global 1x RTX 5090 32GB\n" in table  # the offer once, not each day
    table, _ = _read(db, "history", "--no-chart", "--chip", "RTX-3080")
    assert f"note: {ALONE_NOTE}" in table
