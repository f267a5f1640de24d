"""The ≥ of a lower bound is said one way: `throughput list`'s note of a figure measured faster
than asked and `cost`'s note of a break-even resting on one (and its csv and json's
break_even_at_least) take their words from transform/change_words.py at_least_note, where on
710db2b4 `throughput list` wrote its own beside LEANING_MARKS["≥"]. On the bundled sample:
InferenceX's B200 point at 45 tok/s per user, a lower bound at the default 5."""

from __future__ import annotations

import json

import pytest

from chipcost.transform.change_words import AT_LEAST, LEANING_MARKS, at_least_note
from tests import warehouses
from tests.cli_runner import chipcost

LLAMA = ("--model", "llama-3-70b", "--workload", "inference")
WIDE = {"COLUMNS": "250"}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("at_least") / "s.duckdb"))


def _said(text: str) -> str:
    return " ".join(text.split())


def test_throughput_list_and_cost_say_the_mark_in_the_same_words(db):
    listed = chipcost("throughput", "list", *LLAMA, "--chip", "B200", "--db", db, env=WIDE)
    assert listed.returncode == 0, listed.stderr
    (bound,) = [line for line in listed.stdout.splitlines() if line.startswith(f"{AT_LEAST}:")]
    costed = chipcost("cost", *LLAMA, "--chip", "B200", "--db", db, env=WIDE)
    assert costed.returncode == 0, costed.stderr
    # cost's note is the home's own words, LEANING_MARKS' entry for the mark its cells show
    assert LEANING_MARKS[AT_LEAST] == at_least_note()
    assert at_least_note() in _said(costed.stdout)
    # throughput list's is the home's of the bound it says, at the speed asked
    assert bound.startswith(at_least_note("a lower bound at 5 or more tokens/s per user"))
    assert f" {AT_LEAST}5,479 " in listed.stdout


def test_csv_and_json_say_the_mark_by_its_field_in_the_same_words(db):
    data = chipcost("cost", *LLAMA, "--chip", "B200", "--format", "json", "--db", db, env=WIDE)
    assert data.returncode == 0, data.stderr
    assert any(row["break_even_at_least"] for row in json.loads(data.stdout))
    assert f"note {at_least_note(mark='break_even_at_least true')}" in _said(data.stderr)
