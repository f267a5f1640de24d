"""`chipcost export --out`: a place no folder can be made is refused saying what to do; the
export converts nothing, so it does not read $CHIPCOST_CURRENCY. On a real warehouse, the
command line through the in-process runner and as its own process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import chipcost
from tests.helpers import loaded_warehouse, record


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("export") / "w.duckdb"
    return loaded_warehouse(path, [record(), record(region="eu-west-1", sku="SKU2")])


def test_the_export_does_not_read_the_currency_variable(warehouse, tmp_path, run):
    done = run(
        "export", "--out", str(tmp_path / "out"), "--db", str(warehouse),
        env={"CHIPCOST_CURRENCY": "XYZ"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-1000:]
    assert (tmp_path / "out" / "sku_prices.csv").exists()


def test_export_to_a_file_or_a_place_no_file_can_be_made_says_what_to_do(warehouse, tmp_path):
    """On 2487f4c: "cannot create FILE: File exists", and /proc got "free some space"."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    done = chipcost("export", "--out", str(afile), "--db", str(warehouse))
    said = " ".join(done.stderr.split())
    assert f"cannot create the folder {afile}: a file is there, not a folder" in said
    assert "give --out a folder" in said
    proc = chipcost("export", "--out", "/proc", "--db", str(warehouse))
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 1 and said.endswith("write elsewhere") and "free some" not in said
