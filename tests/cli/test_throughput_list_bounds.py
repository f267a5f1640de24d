"""`throughput list` says which figures are lower bounds, as its csv and json do: a curve's
point measured faster than the speed the choice rule asks is marked ≥ in the table, with a
note under it saying what the mark means, as `cost` marks one. On a real warehouse (reference
figures alone), the command line through the in-process runner."""

from __future__ import annotations

import json

import pytest

from tests import warehouses

ASKED = ("throughput", "list", "--model", "llama-3-70b", "--workload", "inference")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.new(tmp_path_factory.mktemp("bounds") / "w.duckdb"))


def test_a_lower_bound_is_marked_in_the_table_as_its_json_says(run, db):
    listed = run(*ASKED, "--chip", "B200", "--format", "json", "--db", db)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    bound = {r["throughput_id"]: r["lower_bound"] for r in rows}
    # InferenceX's B200 point at 45 tok/s per user, faster than the default 5: at least that
    assert bound["inferencex-70b-b200-trt-fp4-1k1k-tp1-2510-c128"] is True
    assert not all(bound.values())
    table = run(*ASKED, "--chip", "B200", "--limit", str(len(rows)), "--db", db,
                env={"COLUMNS": "250"})  # fmt: skip
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    cells = {line.split()[0]: line.split() for line in lines if line.split()[0:1] and
             line.split()[0] in bound}  # fmt: skip
    assert cells.keys() == bound.keys()
    for ident, lower in bound.items():
        tps = next(r for r in rows if r["throughput_id"] == ident)["tokens_per_second_per_chip"]
        said = f"{tps:,.0f}"
        assert (f"≥{said}" if lower else said) in cells[ident], cells[ident]
    assert cells["inferencex-70b-b200-trt-fp4-1k1k-tp1-2510-c128"][4] == "≥5,479"
    note = [line for line in lines if line.startswith("≥: ")]
    assert note == [
        "≥: at least, a lower bound at 5 or more tokens/s per user, the speed the choice rule "
        "asks (a curve's point measured faster than that: the chip does at least that much "
        "there, as `chipcost cost` says; lower_bound true in --format csv and json)"
    ]


def test_no_note_where_no_figure_shown_is_a_lower_bound(run, db):
    listed = run(*ASKED, "--chip", "B200", "--limit", "1", "--format", "json", "--db", db)
    assert json.loads(listed.stdout)[0]["lower_bound"] is False
    table = run(*ASKED, "--chip", "B200", "--limit", "1", "--db", db, env={"COLUMNS": "250"})
    assert table.returncode == 0, table.stderr
    assert "≥" not in table.stdout


def test_the_csv_says_it_as_before(run, db):
    done = run(*ASKED, "--chip", "B200", "--format", "csv", "--db", db)
    assert done.returncode == 0, done.stderr
    assert "≥" not in done.stdout and "lower_bound" in done.stdout.splitlines()[0]
