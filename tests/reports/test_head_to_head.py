"""The articles' questions (is Trainium2 cheaper per token than H100?) in the weekly report and
the price explorer, answered as `chipcost compare` answers them: real DuckDB, the shipped
throughput catalogue."""

from __future__ import annotations

import json

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.reads.articles import (
    ARTICLE_PAIRS,
    ARTICLE_QUESTIONS,
    _caveats,
    article_answers,
)
from chipcost.reads.compare import compare
from chipcost.reads.cost_asked import Ask
from chipcost.reports.site import write_site
from chipcost.transform.verdict import costs_at_point
from chipcost.warehouse.db import connect
from tests.cli.test_cost_cli import _warehouse, chipcost


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    # aws: H100-SXM (on demand and reserved), H200 and Trainium2
    return _warehouse(tmp_path_factory.mktemp("versus") / "w.duckdb")


@pytest.fixture(scope="module")
def answers(db):
    con = connect(db, read_only=True)
    try:
        yield article_answers(con, stale_days=10_000)
    finally:
        con.close()


def _answer(answers, chip_a, chip_b, workload):
    return next(
        a
        for a in answers
        if (a["chip_a"], a["chip_b"], a["workload"]) == (chip_a, chip_b, workload)
    )


def test_every_pair_is_answered_or_says_why_not(answers):
    assert len(answers) == len(ARTICLE_PAIRS) * len(ARTICLE_QUESTIONS)
    for answer in answers:
        assert (answer["answer"] is None) != (answer["why_not"] is None), answer
    not_priced = _answer(answers, "Trainium3", "H100-SXM", "training")
    assert not_priced["why_not"].startswith("Trainium3 against H100-SXM: no current price")
    assert "Chips with prices" not in not_priced["why_not"]  # the reason, not the chip list


def test_an_answer_is_compares_on_demand_line_with_one_sign(db, answers):
    answer = _answer(answers, "Trainium2", "H100-SXM", "training")
    con = connect(db, read_only=True)
    try:
        ask = Ask(model="llama-3-70b", workload="training", chips=[], baseline="H100-SXM",
                  baseline_given=True, stale_days=10_000)  # fmt: skip
        line = compare(con, ask, "Trainium2", "H100-SXM").lines[0]
    finally:
        con.close()
    assert (answer["pricing_model"], answer["term"]) == ("on_demand", "none")
    assert line.pricing == "on_demand"
    # Trainium2's training figure is derived (calibrated, no error band): no verdict,
    # no percentage, the break-even against H100's figure and how to settle it
    assert answer["change_pct"] is None and line.change is None
    assert answer["verdict"] == "cannot say"
    needed = line.a["price_per_chip_hour"] / (answer["b_usd_per_million_tokens"] * 3600 / 1e6)
    assert answer["break_even_tokens_per_second_per_chip"] == pytest.approx(needed)
    assert answer["answer"].startswith(f"cannot say: Trainium2 must do {needed:,.0f} tok/s")
    assert answer["same_provider"] is True and answer["a_where"].startswith("aws ")
    assert "tok/s per chip (derived, BF16" in answer["a_figure"]


def test_the_weekly_report_and_the_explorer_show_them(db, tmp_path):
    result = chipcost("report", "--out", str(tmp_path / "report"), "--db", str(db))
    assert result.returncode == 0, result.stderr
    (page,) = (tmp_path / "report").glob("*.html")
    html = page.read_text(encoding="utf-8")
    assert "Is chip A cheaper than chip B?" in html
    assert "Trainium2 must do" in html and "match H100-SXM&#x27;s measured cost" in html
    assert "not answered: Trainium3 against H100-SXM" in html
    # the report opens with the answer, then the price index (docs/price-index.md)
    assert html.index('id="versus"') < html.index('id="index"') < html.index('id="changes"')
    assert "Price index" in html and "Move in the period" in html
    write_site(db, tmp_path / "site")
    site = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert '<section id="versus">' in site and "Trainium2 must do" in site
    data = json.loads((tmp_path / "site" / "offers.json").read_text(encoding="utf-8"))
    assert len(data["head_to_head"]) == len(ARTICLE_PAIRS) * len(ARTICLE_QUESTIONS)


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory):
    from tests import warehouses

    return warehouses.sample(tmp_path_factory.mktemp("sample") / "w.duckdb")


def test_each_answer_from_the_one_ranking_is_what_compare_says_of_its_pair(sample_db):
    """On the sample warehouse: each pair taken from the one ranking of its model and workload
    gets `chipcost compare A B`'s answer (compare ranks the two chips alone), or its refusal."""
    con = connect(sample_db, read_only=True)
    try:
        answers = article_answers(con, stale_days=10_000)
        told = []
        for answer in answers:
            model, workload = answer["model"], answer["workload"]
            a, b = answer["chip_a"], answer["chip_b"]
            ask = Ask(model=model, workload=workload, chips=[], baseline=b,
                      baseline_given=True, stale_days=10_000)  # fmt: skip
            try:
                result = compare(con, ask, a, b)
            except ChipcostError as exc:
                assert answer["answer"] is None, answer
                assert answer["why_not"] == f"{a} against {b}: " + str(exc).split(". ", 1)[0]
                told.append("refused")
                continue
            line = result.lines[0]
            pct = [None if c is None else 100 * c for c in (line.change, line.best, line.worst)]
            share = None if line.verdict.share is None else 100 * line.verdict.share
            # compare's table's costs: at the point both chips are measured at, where they are
            costs = costs_at_point(line.verdict, line.a, line.b) or (
                line.a["usd_per_million_tokens"],
                line.b["usd_per_million_tokens"],
            )
            said = (line.a["pricing_model"], line.a["term"], line.sentence(a, b),
                    line.verdict.word, *pct, line.verdict.break_even, share, *costs,
                    f"{line.a['provider']} {line.a['region']}",
                    f"{line.b['provider']} {line.b['region']}", line.same_provider)  # fmt: skip
            keys = ("pricing_model", "term", "answer", "verdict", "change_pct",
                    "best_case_change_pct", "worst_case_change_pct",
                    "break_even_tokens_per_second_per_chip", "break_even_share_pct",
                    "a_usd_per_million_tokens", "b_usd_per_million_tokens",
                    "a_where", "b_where", "same_provider")  # fmt: skip
            assert tuple(answer[k] for k in keys) == said, (a, b, workload)
            assert answer["caveats"] == _caveats(result.notes), (a, b, workload)
            told.append(line.verdict.word)
    finally:
        con.close()
    # the sample answers most pairs, some with a verdict, and refuses some (what is compared)
    assert told.count("refused") < len(told) / 2
    assert {"cheaper", "dearer"} & set(told) and "cannot say" in told


def test_the_report_and_the_explorer_answer_on_your_discounts_as_compare(db, tmp_path):
    """With CHIPCOST_DISCOUNTS set, compare answers on the discounted Trainium2 price: the
    report (page, e-mail) and the explorer give that answer, the discount named beside it."""
    import os
    import re

    rules = tmp_path / "d.toml"
    rules.write_text('[[discount]]\nprovider = "aws"\nchip = "Trainium"\npercent = 60\n')
    env = {**os.environ, "CHIPCOST_DISCOUNTS": str(rules)}
    asked = ("Trainium2", "H100-SXM", "--model", "llama-3-70b", "--workload", "inference")
    said = chipcost("compare", *asked, "--format", "json", "--db", str(db), env=env)
    assert said.returncode == 0, said.stderr
    line = json.loads(said.stdout)[0]
    assert line["a_discount"] == "60% d.toml"
    needed = f"must do {line['break_even_tokens_per_second_per_chip']:,.0f} tok/s"
    cost = f"${line['a_usd_per_million_tokens']:,.4f}"
    made = chipcost("report", "--dry-run", "--out", str(tmp_path / "r"), "--db", str(db), env=env)
    assert made.returncode == 0, made.stderr
    site = chipcost("site", str(tmp_path / "s"), "--db", str(db), env=env)
    assert site.returncode == 0, site.stderr
    (page,) = (tmp_path / "r").glob("*.html")
    (mail,) = (tmp_path / "r").glob("*.eml")
    explorer = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    for html in (page.read_text(encoding="utf-8"), mail.read_text(encoding="utf-8"), explorer):
        text = " ".join(re.sub(r"<[^>]+>|=\n", " ", html).replace("&#x27;", "'").split())
        assert f"Trainium2 {needed}" in text
        assert cost in text and "your discount 60% d.toml" in text
        assert "after your discounts" in text
    data = json.loads((tmp_path / "s" / "offers.json").read_text())
    answer = _answer(data["head_to_head"], "Trainium2", "H100-SXM", "inference")
    assert answer["a_discount"] == "60% d.toml" and answer["b_discount"] is None


def test_the_pages_say_compares_pairing_each_chips_cheapest_offer(db, tmp_path):
    """compare sets each chip's cheapest offer against the other's, wherever each is sold
    (transform.comparison.paired): the report and the explorer say that, not 'A's cheapest
    against B's on the same provider'."""
    from chipcost.reports.build import write_report

    made = write_report(db, tmp_path / "r")
    write_site(db, tmp_path / "s")
    page = made.html_path.read_text(encoding="utf-8")
    site = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    for html in (page, site):
        said = " ".join(html.replace("&#x27;", "'").split())
        assert "each chip's cheapest offer that holds the model, wherever it is sold" in said
        assert "on the same provider" not in said


def test_the_break_even_names_the_chip_that_must_do_it(sample_db):
    """Where only A is measured (TPU-v6e against H100-SXM on the sample), B must do the
    break-even at A's point: the answer says whose it is, as compare's frame does, and the
    report's column and the explorer's cell name that chip and the other's figure."""
    import polars as pl

    from chipcost.reports.site import _versus
    from chipcost.reports.tables import head_to_head_table, table_html

    con = connect(sample_db, read_only=True)
    try:
        answers = article_answers(con, stale_days=10_000)
        answer = _answer(answers, "TPU-v6e", "H100-SXM", "inference")
        ask = Ask(model="llama-3-70b", workload="inference", chips=[], baseline="H100-SXM",
                  baseline_given=True, stale_days=10_000)  # fmt: skip
        frame = compare(con, ask, "TPU-v6e", "H100-SXM").frame()
    finally:
        con.close()
    assert answer["break_even_for"] == frame["break_even_for"][0] == "H100-SXM"
    needed = answer["break_even_tokens_per_second_per_chip"]
    assert "H100-SXM must do" in answer["answer"] and f"{needed:,.0f} tok/s" in answer["answer"]
    # At least: TPU-v6e's 443 tok/s per chip is at 28.2 tok/s per user, a lower bound at the
    # default speed; the share of H100-SXM's own estimate there, as compare's.
    assert answer["break_even_at_least"] is True == frame["break_even_at_least"][0]
    assert answer["break_even_share_pct"] == frame["break_even_share_pct"][0]
    cell = (
        f"H100-SXM must do at least {needed:,.0f} tok/s per chip "
        f"({answer['break_even_share_pct']:.0f}% of its own figure there)"
    )
    page = table_html(head_to_head_table(pl.DataFrame(answers, infer_schema_length=None)))
    site = _versus(answers, [])
    for html in (page, site):
        said = " ".join(html.replace("&#x27;", "'").split())
        assert cell in said and "A must do" not in said
    assert "Break-even: who must do what (share of the figure each names)" in " ".join(
        page.replace("&#x27;", "'").split()
    )


def test_a_share_of_an_estimate_at_another_point_says_so(sample_db, tmp_path):
    """The report and the explorer said 'Trainium2 must do 15,914 tok/s per chip (1899% of its
    own figure there)' beside Trainium2's derived estimate 'at 1,000 in / 1,000 out tokens ...
    not this point': the share is of that estimate, at another point, and says so, as
    compare's frame and its --wide note do."""
    import polars as pl

    from chipcost.reports.site import _versus
    from chipcost.reports.tables import head_to_head_table, table_html

    con = connect(sample_db, read_only=True)
    try:
        answers = article_answers(con, stale_days=10_000)
        ask = Ask(model="llama-3-70b", workload="inference", chips=[], baseline="H100-SXM",
                  baseline_given=True, stale_days=10_000)  # fmt: skip
        frame = compare(con, ask, "Trainium2", "H100-SXM").frame()
    finally:
        con.close()
    answer = _answer(answers, "Trainium2", "H100-SXM", "inference")
    assert "not this point" in answer["answer"]  # its estimate is at another point
    elsewhere = "its derived estimate, at another point"
    assert answer["break_even_share_of"] == frame["break_even_share_of"][0] == elsewhere
    needed, share = answer["break_even_tokens_per_second_per_chip"], answer["break_even_share_pct"]
    cell = f"Trainium2 must do {needed:,.0f} tok/s per chip ({share:.0f}% of {elsewhere})"
    page = table_html(head_to_head_table(pl.DataFrame(answers, infer_schema_length=None)))
    site = _versus(answers, [])
    for html in (page, site):
        said = " ".join(html.replace("&#x27;", "'").split())
        assert cell in said
        assert f"({share:.0f}% of its own figure there)" not in said
    # measured at the point both are (MI300X against H100-SXM): its own figure there
    measured = _answer(answers, "MI300X", "H100-SXM", "inference")
    assert measured["break_even_share_of"] == "its own figure there"
    shown = chipcost(
        "compare", "Trainium2", "H100-SXM", "--model", "llama-3-70b", "--workload",
        "inference", "--wide", "--db", str(sample_db), env={"COLUMNS": "240"},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "share: the must do in percent of that chip's derived estimate, at another point" in text
    assert "share: the must do in percent of that chip's own figure there" not in text
