"""Every number beside an answer says what it rests on, on the sample's prices and the shipped
catalogue: cost's row change is its own cost over the baseline's, and its vs words, drawn where
both chips are measured at one point, give both costs there where those are not the offers'
own; compare's costs are cost's or say they are the point's; the report's answer gives
compare's numbers; an estimate not at the point says where it is; and who must reach a
break-even set on two lower bounds does not depend on which chip is named first. Real DuckDB.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.vocabulary import code_words
from chipcost.pipeline.seed import open_warehouse
from chipcost.reads.articles import article_answers
from chipcost.reads.compare import compare_in
from chipcost.reads.cost import rank_cost
from chipcost.reads.cost_asked import Ask, every_offer
from chipcost.transform.change_words import change_words, times_words
from chipcost.transform.cost import CostQuestion, cost_text
from chipcost.transform.verdict import costs_at_point, said_elsewhere
from tests import warehouses
from tests.cli.test_cost_cli import chipcost

# the costs a vs cell gives where the words rest on figures other than the offers' own
AT = re.compile(r" at \$([\d,.]+) vs \$([\d,.]+)/M$")
# how a leaning on an estimate not at the point says so
ELSEWHERE = "(est. elsewhere)"
OFFER = ("chip", "provider", "region", "instance_type", "pricing_model", "term", "payment", "plan")


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    connection = open_warehouse(warehouses.sample(tmp_path_factory.mktemp("rests-on") / "w.duckdb"))
    yield connection
    connection.close()


def _ask(model: str, workload: str, speed: str = "5", baseline: str = "H100-SXM") -> Ask:
    return Ask(
        model=model, workload=workload, chips=[], baseline=baseline, baseline_given=False,
        speed=speed, stale_days=10_000,
    )  # fmt: skip


def _costs(match: re.Match[str]) -> tuple[float, float]:
    return float(match[1].replace(",", "")), float(match[2].replace(",", ""))


@pytest.mark.parametrize(
    ("model", "workload", "speed"),
    [
        ("llama-3-70b", "inference", "5"),
        ("llama-3-70b", "inference", "25"),
        ("llama-3-70b", "inference", "max"),
        ("llama-3.1-405b", "inference", "5"),
        ("llama-3-70b", "training", "5"),
        ("llama-3-8b", "training", "5"),
    ],
)
def test_a_rows_change_is_its_own_and_its_words_say_what_they_rest_on(con, model, workload, speed):
    """QA found the vs words and change_vs_baseline_pct at compare's figures (MI300X's MLPerf
    v5.1 3,108 tok/s) beside a $/M at the row's own (its v6.0 3,183): '48% dearer' on a row
    44% dearer, GB200 '4% dearer' on a row ranked above H100-SXM."""
    ranking = rank_cost(con, _ask(model, workload, speed), CostQuestion())
    elsewhere = 0
    for row in ranking.rows:
        base, words = row["baseline_usd_per_million_tokens"], row["vs_baseline"]
        if not base or not words or row["chip"] == "H100-SXM":
            continue
        own = row["usd_per_million_tokens"] / base - 1
        if row["verdict"] == "cannot say":  # no percentage where the evidence draws none
            assert row["cost_change_vs_baseline"] is None
        else:  # the row's own cost over the baseline's, as docs/cost-per-token.md says
            assert row["cost_change_vs_baseline"] == pytest.approx(own)
            assert row["vs_baseline_at_point"] is not None
        found = AT.search(words)
        said = words[: found.start()] if found else words
        if found:  # the words rest on other figures: both costs there, and which figures
            elsewhere += 1
            mine, theirs = _costs(found)
            if row["usd_per_million_tokens_at_point"] is not None:  # the point's costs
                assert cost_text(row["usd_per_million_tokens_at_point"]) == f"${found[1]}"
                assert cost_text(row["baseline_usd_per_million_tokens_at_point"]) == f"${found[2]}"
            basis = row.get("vs_baseline_basis")
            assert basis and any(basis in note for note in ranking.notes)
        else:  # the words rest on the offers' own figures: the costs the row gives
            assert row.get("vs_baseline_basis") is None
            mine, theirs = row["usd_per_million_tokens"], base
        change = mine / theirs - 1
        if row["verdict"] in ("cheaper", "dearer"):
            # never a word the costs beside it contradict (within the 4 decimals shown)
            assert said.removeprefix("at least ").endswith(row["verdict"])
            assert (change < 0) == (row["verdict"] == "cheaper") or abs(change) < 0.01
            if not found:
                assert said.removeprefix("at least ") == change_words(change)
        elif said.startswith("cannot say, ~") and not set("≥≤") & set(said):
            lean = said.removeprefix("cannot say, ~").removesuffix(f" {ELSEWHERE}")
            close = {times_words(change * (1 + e)) for e in (-0.01, 0, 0.01)}
            assert lean in close or abs(change) < 0.02, (row["chip"], words)
    assert elsewhere  # the sample has such rows at every one of these questions


def test_the_rows_that_qa_found(con):
    """MI300X on demand, its own $0.1355 (MLPerf v6.0, 3,183 tok/s per chip) against H100's
    $0.0938: 44% dearer by its own figure, 48% dearer at MLPerf v5.1's, where both are
    measured (compare's $0.1387); the row says which."""
    rows = rank_cost(con, _ask("llama-3-70b", "inference"), CostQuestion()).rows
    row = next(
        r for r in rows if r["chip"] == "MI300X" and r["pricing_model"] == "on_demand"
    )  # fmt: skip
    assert row["verdict"] == "dearer"
    own = row["usd_per_million_tokens"] / row["baseline_usd_per_million_tokens"] - 1
    assert row["cost_change_vs_baseline"] == pytest.approx(own)
    assert row["vs_baseline_at_point"] != pytest.approx(own)
    at = cost_text(row["usd_per_million_tokens_at_point"])
    base = cost_text(row["baseline_usd_per_million_tokens_at_point"])
    assert row["vs_baseline"] == f"{change_words(row['vs_baseline_at_point'])} at {at} vs {base}/M"
    basis = row.get("vs_baseline_basis")
    assert f"not its own {row['tokens_per_second_per_chip']:,.0f}" in basis
    assert "mlperf-v5.1" in basis and "MLPerf Inference v6.0" in basis


def test_compare_costs_an_offer_as_cost_does_or_says_at_which_figure(con):
    ask = _ask("llama-3-70b", "inference", baseline="H100-SXM")
    every = rank_cost(con, every_offer(ask), CostQuestion())
    result = compare_in(every, ask, "MI300X", "H100-SXM")
    line = result.lines[0]
    # `cost --chip MI300X,H100-SXM` prices the same offer the same
    ranked = rank_cost(con, replace(ask, chips=["MI300X", "H100-SXM"]), CostQuestion()).rows
    own = next(r for r in ranked if all(r[k] == line.a[k] for k in OFFER))
    assert line.a["usd_per_million_tokens"] == pytest.approx(own["usd_per_million_tokens"])
    at_point = costs_at_point(line.verdict, line.a, line.b)
    assert at_point is not None and cost_text(at_point[0]) != cost_text(
        own["usd_per_million_tokens"]
    )
    # the table's $/M are the point's: its notes say so, with the offers' own costs
    said = next(n for n in result.notes if n.startswith("$/M: at the figures the verdict rests"))
    assert f"MI300X {cost_text(own['usd_per_million_tokens'])}" in said
    assert f"not its own {own['tokens_per_second_per_chip']:,.0f}" in said


def test_the_reports_answer_gives_compares_numbers(con):
    """The report said 'MI300X $0.1355/M' and A's figure 3,183 tok/s (its own, MLPerf v6.0)
    beside '48% dearer' and a must do of 148% of 3,108 (v5.1, where both are measured)."""
    answers = article_answers(con, stale_days=10_000)
    ask = _ask("llama-3-70b", "inference")
    every = rank_cost(con, every_offer(ask), CostQuestion())
    checked = 0
    for answer in answers:
        if answer["answer"] is None or answer["workload"] != "inference":
            continue
        line = compare_in(every, ask, str(answer["chip_a"]), str(answer["chip_b"])).lines[0]
        judged = line.verdict
        at_point = costs_at_point(judged, line.a, line.b)
        if at_point is None or judged.a_figure is None:
            continue
        checked += 1
        assert answer["a_usd_per_million_tokens"] == pytest.approx(at_point[0])
        assert answer["b_usd_per_million_tokens"] == pytest.approx(at_point[1])
        figure = judged.a_figure.tokens_per_second_per_chip
        assert str(answer["a_figure"]).startswith(f"{figure:,.0f} tok/s per chip")
        if answer["break_even_for"] == answer["chip_a"]:  # its share is of the figure shown
            share = 100 * answer["break_even_tokens_per_second_per_chip"] / figure
            assert answer["break_even_share_pct"] == pytest.approx(share)
        assert answer["a_cost_low"] == answer["a_cost_high"] == pytest.approx(at_point[0])
    assert checked  # MI300X against H100-SXM is measured at one point on the sample


def test_an_estimate_not_at_the_point_says_where_it_is(con, tmp_path):
    """Trainium2's estimate at B200's point (MLPerf's own requests, FP4) is its own FP8
    1,000/1,000 maximum-throughput figure, the same at every chip's point."""
    ask = _ask("llama-3-70b", "inference")
    every = rank_cost(con, every_offer(ask), CostQuestion())
    judged = compare_in(every, ask, "Trainium2", "B200").lines[0].verdict
    assert judged.anchor == "b" and judged.estimate is not None
    assert "FP8" in judged.estimate.unlike and "not this point" in judged.estimate.unlike
    assert judged.cell_words().endswith(ELSEWHERE)
    assert "at another point" in judged.sentence("Trainium2", "B200")
    shown = chipcost(
        "compare", "Trainium2", "B200", "--model", "llama-3-70b", "--workload", "inference",
        "--db", str(warehouses.sample(tmp_path / "w.duckdb")), env={"COLUMNS": "200"},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "1,000 in / 1,000 out tokens, FP8 (its derived maximum throughput), not this point" in (
        text
    )
    assert "to decide (the ~ leaning rests on that estimate, at another point):" in text


def test_who_must_reach_a_break_even_on_two_lower_bounds_is_order_free(con):
    """`compare H100-SXM B200` said H100-SXM must do 1,952, `compare B200 H100-SXM` B200
    2,223: both figures lower bounds (their curves' slowest points faster than asked)."""
    chips = ["H100-SXM", "H200", "B200", "MI300X", "MI355X", "B300"]
    found = 0
    for speed in ("5", "25"):
        ask = _ask("llama-3-70b", "inference", speed)
        every = rank_cost(con, every_offer(ask), CostQuestion())
        for a, b in itertools.combinations(chips, 2):
            try:
                ab, ba = compare_in(every, ask, a, b), compare_in(every, ask, b, a)
            except ChipcostError:
                continue
            for one, other in zip(ab.lines, ba.lines, strict=True):
                if one.verdict.matched or not one.verdict.bound or one.verdict.anchor:
                    continue
                found += one.verdict.bound in ("ab", "ba")
                assert one.verdict.needed_by(a, b) == other.verdict.needed_by(b, a)
                assert one.verdict.break_even == pytest.approx(other.verdict.break_even)
                assert one.verdict.break_even_least == other.verdict.break_even_least
    assert found


def test_compares_note_gives_each_offers_own_cost_on_every_line_at_other_figures(con):
    """GB200 against H100-SXM, Llama 3 70B training: the $/M columns are at the FP8 point
    both are measured at on every line, but the note gave each offer's own cost (cost's, at
    GB200's FP4 figure) for on demand only; cost's $0.5644 for the 7-day capacity block was
    nowhere in compare's output."""
    ask = _ask("llama-3-70b", "training")
    every = rank_cost(con, every_offer(ask), CostQuestion())
    result = compare_in(every, ask, "GB200", "H100-SXM")
    ranked = rank_cost(con, replace(ask, chips=["GB200", "H100-SXM"]), CostQuestion()).rows
    said = next(n for n in result.notes if n.startswith("$/M: at the figures the verdict rests"))
    elsewhere = [line for line in result.lines if said_elsewhere(line.verdict, line.a, line.b)]
    assert len(elsewhere) >= 3  # on demand and two capacity blocks on the sample
    for line in elsewhere:
        own = [
            next(r for r in ranked if all(r[k] == row[k] for k in OFFER))["usd_per_million_tokens"]
            for row in (line.a, line.b)
        ]
        pair = f"GB200 {cost_text(own[0])}, H100-SXM {cost_text(own[1])}"
        assert f"{code_words(line.pricing)}: {pair}" in said, (line.pricing, said)
    # the figures it rests on named once
    assert said.count("not its own") == 1
    assert said.count("GB200 against H100-SXM at") == 1


@pytest.mark.parametrize(
    ("model", "workload"), [("llama-3-70b", "training"), ("llama-3-70b", "inference")]
)
def test_a_rows_sentence_says_the_figures_its_verdict_rests_on(con, model, workload):
    """cost's JSON gave GB200's 7-day capacity block change_vs_baseline_pct -10.41 (its own)
    beside in_words 'GB200 is 4% dearer per token than H100-SXM' (at the FP8 point both are
    measured at), saying no figures: where the verdict rests on other figures than the row's
    own, its sentence says so with both costs there and at their own."""
    rows = rank_cost(con, _ask(model, workload), CostQuestion()).rows
    opposite = 0
    for row in rows:
        if row["verdict"] not in ("cheaper", "dearer", "as cheap"):
            continue
        own = (row["usd_per_million_tokens"], row["baseline_usd_per_million_tokens"])
        if row.get("vs_baseline_basis") is None:  # at the row's own figures
            assert "at their own" not in row["in_words"]
            continue
        at = [row[f"{side}usd_per_million_tokens_at_point"] for side in ("", "baseline_")]
        said = (
            f" at the figures both are measured at ({cost_text(at[0])} vs {cost_text(at[1])}/M; "
            f"at their own, {cost_text(own[0])} vs {cost_text(own[1])})"
        )
        assert said in row["in_words"], row["in_words"]
        if row["verdict"] != "as cheap":
            opposite += (row["cost_change_vs_baseline"] < 0) != (row["verdict"] == "cheaper")
    if workload == "training":  # GB200's capacity blocks: cheaper by their own, dearer there
        assert opposite
        row = next(
            r for r in rows
            if r["chip"] == "GB200" and r["pricing_model"] == "capacity_block" and r["term"] == "7d"
        )  # fmt: skip
        assert row["in_words"] == (
            "GB200 is 4% dearer per token than H100-SXM at the figures both are measured at "
            "($0.6545 vs $0.6300/M; at their own, $0.5644 vs $0.6300)"
        )


def test_costs_break_even_share_says_when_it_is_of_an_estimate_at_another_point(con, tmp_path):
    """Trainium2's break-even share is of its derived estimate at its own 1,000/1,000 point,
    not of a figure at H100-SXM's: its rows say so (break_even_share_of, and 'of est.
    elsewhere' in the table's cell), where the note said 'of that chip's own figure there'."""
    from chipcost.transform.verdict import SHARE_ESTIMATE_ELSEWHERE, SHARE_THERE

    ranking = rank_cost(
        con, replace(_ask("llama-3-70b", "inference"), chips=["Trainium2"]), CostQuestion()
    )
    rows = [r for r in ranking.rows if r["break_even_share"] is not None]
    assert rows and {r["break_even_share_of"] for r in rows} == {SHARE_ESTIMATE_ELSEWHERE}
    measured = rank_cost(
        con, replace(_ask("llama-3-70b", "inference"), chips=["H200"]), CostQuestion()
    )
    shares = {r["break_even_share_of"] for r in measured.rows if r["break_even_share"]}
    assert shares == {SHARE_THERE}
    shown = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--chip", "Trainium2",
        "--db", str(warehouses.sample(tmp_path / "w.duckdb")), env={"COLUMNS": "200"},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    cells = re.findall(r"[\d,]+ \(\d[\d,]*%[^)]*\)", shown.stdout)
    assert cells and all(cell.endswith("% of est. elsewhere)") for cell in cells), cells
