"""One function words a change (transform.change_words): cost's vs column, compare's
verdict, the report's answers and ranges, and the e-mail say the same words for the same change.
Real DuckDB, the shipped throughput catalogue."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

from chipcost.reads.articles import article_answers
from chipcost.reports.answers import answer_lines
from chipcost.reports.tables import head_to_head_table
from chipcost.transform.change_words import AS_CHEAP, change_words
from chipcost.transform.evidence import Verdict
from chipcost.warehouse.db import connect
from tests.cli.test_cost_cli import _warehouse
from tests.cli.test_cost_cli import chipcost as run


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (-0.32, "32% cheaper"),
        (0.4, "40% dearer"),
        (0.004, "as cheap"),
        (-0.004, "as cheap"),
        # just outside the half-percent band: never '0% cheaper'
        (math.exp(-AS_CHEAP * 1.01) - 1, "1% cheaper"),
        (9.0, "900% dearer"),
        (9.5, "10 times as dear"),
        (-1.0, "100% cheaper"),
    ],
)
def test_a_change_in_words(change, words):
    assert change_words(change) == words


def test_a_verdict_words_its_change_with_the_same_function():
    for change in (-0.32, 0.004, 12.0):
        word = "cheaper" if change < 0 else "dearer"
        assert Verdict(word, 1.0, 1.0, change=change).change_words() == change_words(change)
    bound = Verdict("cheaper", 1.0, 1.0, change=-0.28, bound="a")
    assert bound.change_words() == change_words(-0.28, least=True) == "at least 28% cheaper"
    assert Verdict("cannot say", 1.0, 1.0).change_words() == "cannot say"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return _warehouse(tmp_path_factory.mktemp("words") / "w.duckdb")


def test_cost_compare_and_the_report_say_one_change_in_the_same_words(db, monkeypatch):
    # Both measured in one MLPerf round: a verdict with a percentage (tests/cli/test_one_answer)
    a, b, model = "H200", "H100-SXM", "llama-3.1-405b"
    asked = ("--model", model, "--workload", "inference", "--db", str(db))
    compared = run("compare", a, b, *asked, "--format", "json")
    assert compared.returncode == 0, compared.stderr
    row = next(r for r in json.loads(compared.stdout) if r["pricing_model"] == "on_demand")
    words = change_words(row["change_pct"] / 100)
    assert row["verdict"] != "cannot say" and "%" in words
    table = run("compare", a, b, *asked, env={"COLUMNS": "200"})
    assert table.returncode == 0, table.stderr
    line = next(x for x in table.stdout.splitlines() if x.startswith("on demand"))
    assert line.rstrip().endswith(words)
    ranked = run("cost", *asked, "--chip", a, "--baseline", b, env={"COLUMNS": "200"})
    assert ranked.returncode == 0, ranked.stderr
    assert any(x.split()[1:3] == [a, "on"] and words in x for x in ranked.stdout.splitlines())
    # The report answers the articles' pairs; asked this pair (the warehouse prices no firm
    # article pair), its own code answers and words it.
    from chipcost.reads import articles

    monkeypatch.setattr(articles, "ARTICLE_QUESTIONS", [(model, "inference")])
    monkeypatch.setattr(articles, "ARTICLE_PAIRS", [(a, b)])
    con = connect(db, read_only=True)
    try:
        mine = pl.DataFrame(article_answers(con, stale_days=10_000))
    finally:
        con.close()
    assert mine.height == 1 and mine["change_pct"][0] == pytest.approx(row["change_pct"])
    # the answer the report and the e-mail print (answer_lines), and the range the report's
    # table gives beside it, in the same words as the one change
    said = next(x.said for x in answer_lines(mine) if x.pair == f"{a} against {b}")
    assert f"{a} is {words} per token than {b}" in said
    answer = mine.row(0, named=True)
    html = head_to_head_table(mine).as_raw_html()
    best, worst = answer["best_case_change_pct"], answer["worst_case_change_pct"]
    if best is not None and worst is not None:
        assert f"{change_words(best / 100)} to {change_words(worst / 100)}" in html
