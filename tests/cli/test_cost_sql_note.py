"""cost's note giving each chip's cheapest by SQL holds every filter the ranking applied: its
query, run with `chipcost sql`, answers the table's numbers. The sample's newest run."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from tests import warehouses


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("sql_note") / "w.duckdb", last=1))


def _cheapest(rows) -> dict[tuple[str, str, str], float]:
    found: dict[tuple[str, str, str], float] = {}
    for row in rows:
        key = (row["chip"], row["pricing_model"], row["term"])
        cost = round(float(row["usd_per_million_tokens"]), 9)
        found[key] = min(cost, found.get(key, cost))
    return found


@pytest.mark.parametrize(
    "filters",
    [
        # AWS spot offers whose interruption bucket tops out at 10% or less: the sample's
        # cheapest H100-SXM spot price (another region's) is in a bucket above it
        ("--pricing-model", "spot", "--max-interruption", "10%"),
        ("--instance", "ECS1GPU9", "--pricing-model", "on_demand"),
    ],
    ids=["max-interruption", "instance"],
)
def test_the_sql_note_keeps_every_filter_of_the_ranking(run, db, filters):
    asked = ("cost", "--model", "llama-3-70b", "--workload", "inference", *filters, "--db", db)
    shown = run(*asked, env={"COLUMNS": "200"})
    ranked = run(*asked, "--format", "json")
    assert shown.returncode == 0 and ranked.returncode == 0, shown.stderr + ranked.stderr
    notes = shown.stdout.replace("\n  ", " ")  # a note's further lines, indented, joined
    (query,) = re.findall(r'cheapest by SQL [^:]*: chipcost sql "(.+?)"', notes)
    result = run("sql", query, "--db", db, "--format", "csv")
    assert result.returncode == 0, result.stderr
    by_sql = _cheapest(csv.DictReader(io.StringIO(result.stdout)))
    assert by_sql and by_sql == _cheapest(json.loads(ranked.stdout))


def test_the_sql_note_says_it_leaves_out_max_instances(run, db):
    """How many instances hold the model is the ranking's, not the view's: said, not given as
    the ranking's numbers."""
    shown = run("cost", "--model", "llama-3-70b", "--workload", "training", "--max-instances",
                "1", "--db", db, env={"COLUMNS": "200"})  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    said = " ".join(shown.stdout.split())
    assert "(without --max-instances 1: the view does not say how many instances hold" in said
