"""A measurement a file gives twice is recorded once: `throughput import` refuses a file's
repeated rows as it refuses an earlier import's, in one line naming them (real DuckDB files;
on 697f5e5 both copies were recorded, and importing the file again refused both as "the same
field for field")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import warehouses
from tests.cli_runner import chipcost

HEADER = "chip,model,workload,tokens_per_second,per,chips,precision,source_date,notes\n"
ROW = "H100-SXM,llama-3-70b,inference,1500,chip,,fp8,2026-11-01,our run\n"
OTHER = "H200,llama-3-70b,inference,1700,chip,,fp8,2026-11-01,our run\n"


def _listed(db: Path) -> list[dict]:
    done = chipcost("throughput", "list", "--origin", "user", "--format", "json", "--db", str(db))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("rows", "recorded", "said"),
    [
        ([ROW, ROW], 1, "line 3 (as line 2)"),  # the probe's file
        ([ROW, OTHER, ROW, ROW], 2, "line 4 (as line 2), line 5 (as line 2)"),
        # the same measurement written otherwise: a number's form, spaces, the chip's name
        ([ROW, ROW.replace(",1500,", ", 1500.0 ,")], 1, "line 3 (as line 2)"),
        ([ROW, ROW.replace("H100-SXM,", "H100 SXM5,")], 1, "line 3 (as line 2)"),
        ([OTHER, ROW, OTHER], 2, "line 4 (as line 2)"),
    ],
)
def test_a_row_given_twice_is_recorded_once_and_named(tmp_path, rows, recorded, said):
    db = warehouses.new(tmp_path / "w.duckdb")
    given = tmp_path / "m.csv"
    given.write_text(HEADER + "".join(rows), encoding="utf-8")
    done = chipcost("throughput", "import", str(given), "--db", str(db))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert f"recorded {recorded} measurement(s)" in done.stdout
    again = len(rows) - recorded
    line = f"given twice in {given}, not recorded again: {again} row(s) the same field for field"
    [named] = [x for x in done.stdout.splitlines() if x.startswith("given twice")]
    assert named.startswith(line) and named.endswith(said), named
    assert len(_listed(db)) == recorded
    # The file again: every row refused, the repeats as before, nothing recorded.
    second = chipcost("throughput", "import", str(given), "--db", str(db))
    assert "recorded 0 measurement(s)" in second.stdout
    assert f"already recorded, not recorded again: {recorded} row(s)" in second.stdout
    assert said in second.stdout
    assert len(_listed(db)) == recorded


def test_rows_that_differ_in_one_field_are_both_recorded(tmp_path):
    db = warehouses.new(tmp_path / "w.duckdb")
    given = tmp_path / "m.csv"
    given.write_text(HEADER + ROW + ROW.replace("our run", "our second run"), encoding="utf-8")
    done = chipcost("throughput", "import", str(given), "--db", str(db))
    assert "recorded 2 measurement(s)" in done.stdout and "given twice" not in done.stdout
    assert len(_listed(db)) == 2


def test_a_listing_holding_one_measurement_twice_is_taken_back_once(tmp_path):
    """What `throughput list --format json` printed of a warehouse holding two copies (as
    697f5e5 recorded them), imported elsewhere: one."""
    db = warehouses.new(tmp_path / "w.duckdb")
    given = tmp_path / "m.csv"
    given.write_text(HEADER + ROW, encoding="utf-8")
    assert chipcost("throughput", "import", str(given), "--db", str(db)).returncode == 0
    [one] = _listed(db)
    listing = tmp_path / "listed.json"
    listing.write_text(json.dumps([one, {**one, "throughput_id": "user-2"}]), encoding="utf-8")
    other = warehouses.new(tmp_path / "other.duckdb")
    done = chipcost("throughput", "import", str(listing), "--db", str(other))
    assert done.returncode == 0, done.stderr
    assert "recorded 1 measurement(s)" in done.stdout
    assert (
        "not recorded again: 1 row(s) the same field for field as an earlier row: row 2 (as row 1)"
        in done.stdout
    )
    assert len(_listed(other)) == 1


def test_a_header_in_capitals_reads_as_its_columns_and_a_column_twice_is_refused(tmp_path):
    """`Chip,Model,Workload` is the header chipcost names chip, model, workload (on 57591a84:
    "unknown column(s) one that is no column name; missing column(s) chip, model, workload");
    the same column in two spellings is named twice, in CSV and in JSON alike."""
    from tests import warehouses

    db = warehouses.new(tmp_path / "w.duckdb")
    header = "Chip, Model ,WORKLOAD,Tokens_Per_Second,per,chips,precision,source_date,notes"
    given = tmp_path / "caps.csv"
    given.write_text(f"{header}\nH100-SXM,llama-3-70b,inference,1500,chip,1,fp8,2026-11-01,x\n")
    done = chipcost("throughput", "import", str(given), "--db", str(db))
    assert done.returncode == 0 and "recorded 1 measurement(s)" in done.stdout, done.stderr
    twice = tmp_path / "twice.csv"
    twice.write_text("chip,Chip,model,workload,tokens_per_second\nH100-SXM,H100-SXM,m,training,1\n")
    refused = chipcost("throughput", "import", str(twice), "--db", str(db))
    assert refused.returncode == 1 and "column(s) named twice: chip" in refused.stderr
    doubled = tmp_path / "twice.json"
    doubled.write_text(
        '[{"chip": "H100-SXM", "Chip": "H200", "model": "m", "workload": "training",'
        ' "tokens_per_second": 1}]'
    )
    refused = chipcost("throughput", "import", str(doubled), "--db", str(db))
    assert refused.returncode == 1 and "'chip' given twice in one object" in refused.stderr
