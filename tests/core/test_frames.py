"""DuckDB and polars exchange frames without pyarrow (the Arrow C stream interface)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import duckdb
import polars as pl

from chipcost.core.frames import ArrowStream, frame_of, spreadsheet_safe
from tests.paths import ROOT


def test_a_registered_frame_is_scanned_as_often_as_a_query_reads_it():
    con = duckdb.connect()
    con.register("v", ArrowStream(pl.DataFrame({"a": [1, 2, 3]})))
    assert con.execute("SELECT (SELECT sum(a) FROM v), count(*) FROM v x, v y").fetchall() == [
        (6, 9)
    ]


def test_a_relation_keeps_its_types():
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    frame = frame_of(
        con.sql(
            "SELECT 1.5::DOUBLE AS price, 'p5' AS instance, TIMESTAMPTZ '2026-11-21 06:00:00+00' "
            "AS at, [1, 2] AS l FROM range(2)"
        )
    )
    assert frame.schema == {
        "price": pl.Float64,
        "instance": pl.String,
        "at": pl.Datetime("us", "UTC"),
        "l": pl.List(pl.Int32),
    }
    assert frame["at"][0] == datetime(2026, 11, 21, 6, tzinfo=UTC)


def test_a_load_and_its_reads_need_no_pyarrow(tmp_path):
    """With pyarrow made unimportable, a run is loaded and read back (a developer's
    environment may have pyarrow installed; chipcost must not need it)."""
    code = f"""
import sys
sys.modules["pyarrow"] = None  # any import of it fails
from tests.helpers import day, record, run_of
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from chipcost.warehouse.prices import per_chip_prices
con = open_warehouse({str(tmp_path / "w.duckdb")!r})
load_run(con, run_of([record()], day(0)))
print(per_chip_prices(con).height)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "1"


def test_every_csv_writes_a_whole_chip_count_as_an_integer():
    """The report's changes and the explorer's offers.csv wrote 8.0 on a81b4ee, where `prices
    --format csv` writes 8 (docs/cli.md: a whole count as an integer, a slice its fraction)."""
    frame = pl.DataFrame({"chip_count": [8.0, 0.125, None], "price": [1.0, 2.0, 3.0]})
    written = spreadsheet_safe(frame).write_csv().splitlines()
    assert written == ["chip_count,price", "8,1.0", "0.125,2.0", ",3.0"]
