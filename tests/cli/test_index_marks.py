"""`index` says when a level stands on a doubtful spot price or on a price of the GPU alone, as
`prices` marks each: the `doubtful` and `gpu_alone` columns of csv and json (after every column
before them, currency kept last) and the table's mark beside the level with its note. The
bundled sample replayed: lium's RTX-5090 spot offer is doubtful, daytona's and modal's prices
are the GPU's alone."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests import warehouses
from tests.cli_runner import chipcost

RTX = ("--chip", "RTX-5090", "--pricing-model", "spot", "--since", "2026-11-21")
B200 = ("--chip", "B200", "--since", "2026-11-21")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("index_marks") / "s.duckdb"))


def _rows(db: str, format: str, *asked: str) -> list[dict]:
    done = chipcost("index", *asked, "--format", format, "--db", db)
    assert done.returncode == 0, done.stderr[-2000:]
    if format == "json":
        return json.loads(done.stdout)
    return list(csv.DictReader(io.StringIO(done.stdout)))


@pytest.mark.parametrize("format", ["csv", "json"])
def test_the_rows_name_their_doubtful_and_gpu_alone_constituents(db, format):
    (rtx,) = _rows(db, format, *RTX)
    assert rtx["prices"] == "vastai 0.3084; lium 0.5600; daytona 0.7800"
    assert rtx["doubtful"] == "lium 0.5600"  # the median itself, and its whole 7-day move
    assert rtx["gpu_alone"] == "daytona 0.7800"
    (b200,) = _rows(db, format, *B200)
    assert float(b200["level"]) == 6.62
    assert b200["gpu_alone"] == "modal 6.4548; daytona 6.6200"
    assert b200["doubtful"] in ("", None)
    # new columns after the ones there were, the currency still last
    assert list(b200)[-4:] == ["sample", "doubtful", "gpu_alone", "currency"]


def test_the_table_marks_the_level_and_names_the_constituents(db):
    done = chipcost("index", *RTX, "--db", db)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "$0.5600 (!) (GPU alone)" in done.stdout
    said = " ".join(done.stdout.split())
    assert (
        "(!) = the level includes a spot price not below its offer's on-demand price (no "
        "discount: stale or mislabelled at the source; --format csv/json: `doubtful`): lium "
        "(RTX-5090 spot)" in said
    ), said
    assert (
        "(GPU alone) = the level includes a price of the GPU alone (--format csv/json: "
        "`gpu_alone`): daytona (RTX-5090 spot); daytona prices the GPU alone: the host's "
        "vCPUs, memory and disk are billed beside it" in said
    ), said


def test_a_level_without_such_a_price_has_no_mark_nor_note(db):
    done = chipcost("index", "--chip", "H100-SXM", "--since", "2026-11-21", "--pricing-model",
                    "commitment", "--db", db)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(!)" not in done.stdout and "GPU alone" not in done.stdout, done.stdout
