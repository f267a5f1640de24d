"""One answer however it is read: a pair of chips rendered as compare's table, its JSON and CSV,
the Python API, cost's ranking against the same baseline and the weekly report's answer gives
one verdict, one percentage and one cost per million tokens per offer. Real DuckDB, the shipped
throughput catalogue."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

import chipcost
from chipcost.reads.articles import article_answers
from chipcost.transform.change_words import change_words
from chipcost.warehouse.db import connect
from tests.cli.test_cost_cli import _warehouse
from tests.cli.test_cost_cli import chipcost as run

# (A, B, model): one pair answered firmly (both measured in one MLPerf round), one that cannot
# be (Trainium2 has no figure at H100's point).
PAIRS = [("H200", "H100-SXM", "llama-3.1-405b"), ("Trainium2", "H100-SXM", "llama-3-70b")]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    # aws: H100-SXM (on demand and reserved), H200 and Trainium2
    return _warehouse(tmp_path_factory.mktemp("one-answer") / "w.duckdb")


def _compare(db, a, b, model, *more):
    result = run(
        "compare", a, b, "--model", model, "--workload", "inference", "--db", str(db), *more,
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def _percent(words: str) -> int | None:
    found = re.search(r"(\d+)% (cheaper|dearer)", words)
    return None if found is None else int(found[1]) * (-1 if found[2] == "cheaper" else 1)


@pytest.mark.parametrize(("a", "b", "model"), PAIRS)
def test_every_rendering_gives_one_verdict_one_percentage_one_cost(db, a, b, model):
    on_demand = [r for r in json.loads(_compare(db, a, b, model, "--format", "json"))
                 if r["pricing_model"] == "on_demand"][0]  # fmt: skip
    verdict = on_demand["verdict"]
    firm = verdict != "cannot say"
    pct = round(on_demand["change_pct"]) if firm else None
    words = change_words(pct / 100) if firm else "cannot say"
    a_cost, b_cost = on_demand["a_usd_per_million_tokens"], on_demand["b_usd_per_million_tokens"]
    assert _percent(on_demand["in_words"]) == pct
    # CSV: the same row
    rows = list(csv.DictReader(io.StringIO(_compare(db, a, b, model, "--format", "csv"))))
    row = next(r for r in rows if r["pricing_model"] == "on_demand")
    assert row["verdict"] == verdict and _percent(row["in_words"]) == pct
    assert (round(float(row["change_pct"])) if firm else row["change_pct"]) == (pct if firm else "")
    assert float(row["b_usd_per_million_tokens"]) == pytest.approx(b_cost)
    # the table: the on-demand row ends with the verdict, B's $/M shown where B is measured
    table = next(
        line for line in _compare(db, a, b, model).splitlines() if line.startswith("on demand")
    )
    cell = table.rstrip().rsplit("   ", 1)[-1].strip()
    assert cell.startswith(words)
    # the table's $/M: at the figures a verdict rests on, else the offer's own
    shown = on_demand["b_usd_per_million_tokens_at_point"] if firm else b_cost
    assert f"${shown:,.4f}" in table
    # the Python API
    frame = chipcost.compare(a, b, model=model, workload="inference", db=str(db))
    api = frame.filter(frame["pricing_model"] == "on_demand").row(0, named=True)
    assert api["verdict"] == verdict and api["change_pct"] == on_demand["change_pct"]
    assert api["a_usd_per_million_tokens"] == pytest.approx(a_cost)
    # cost against the same baseline: the same offer costs the same, with the same answer
    ranked = run(
        "cost", "--model", model, "--workload", "inference", "--chip", a, "--baseline", b,
        "--format", "json", "--db", str(db),
    )  # fmt: skip
    assert ranked.returncode == 0, ranked.stderr
    mine = next(r for r in json.loads(ranked.stdout) if r["pricing_model"] == "on_demand")
    # ... worded as compare's table words it, with which way a "cannot say" leans, and, where
    # the answer rests on other figures than the row's own, both costs there: compare's $/M
    assert mine["verdict"] == verdict and mine["vs_baseline"].startswith(cell)
    if mine["vs_baseline"] != cell:
        a_at, b_at = on_demand["a_usd_per_million_tokens_at_point"], shown
        assert mine["vs_baseline"] == f"{cell} at ${a_at:,.4f} vs ${b_at:,.4f}/M"
        assert f"${a_at:,.4f}" in table
    assert firm or cell.startswith("cannot say, ~")  # Trainium2's derived estimate leans
    shown = run(
        "cost", "--model", model, "--workload", "inference", "--chip", a, "--baseline", b,
        "--db", str(db), env={"COLUMNS": "250"},
    ).stdout  # fmt: skip
    assert cell in shown
    assert firm or "~: which way the derived estimate (est.) leans, no verdict" in shown
    if firm:  # the row's own change: its cost over the baseline's
        change = 100 * (
            mine["usd_per_million_tokens"] / mine["baseline_usd_per_million_tokens"] - 1
        )
        assert mine["change_vs_baseline_pct"] == pytest.approx(change)
        assert round(mine["change_vs_baseline_at_point_pct"]) == pct
        assert mine["usd_per_million_tokens"] == pytest.approx(a_cost)
        assert mine["baseline_usd_per_million_tokens"] == pytest.approx(b_cost)
    else:
        assert mine["change_vs_baseline_pct"] is None


def test_the_reports_answer_is_compares(db):
    a, b, model = PAIRS[1]
    on_demand = [r for r in json.loads(_compare(db, a, b, model, "--format", "json"))
                 if r["pricing_model"] == "on_demand"][0]  # fmt: skip
    con = connect(db, read_only=True)
    try:
        answers = article_answers(con, stale_days=10_000)
    finally:
        con.close()
    answer = next(
        x for x in answers
        if (x["chip_a"], x["chip_b"], x["model"], x["workload"]) == (a, b, model, "inference")
    )  # fmt: skip
    assert answer["verdict"] == on_demand["verdict"]
    assert answer["change_pct"] == on_demand["change_pct"]
    assert answer["b_usd_per_million_tokens"] == pytest.approx(
        on_demand["b_usd_per_million_tokens"]
    )
    assert answer["break_even_tokens_per_second_per_chip"] == pytest.approx(
        on_demand["break_even_tokens_per_second_per_chip"]
    )
