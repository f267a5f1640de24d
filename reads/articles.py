"""The articles' questions (is Trainium2 cheaper per token than H100?) answered as `chipcost
compare` answers them, for the weekly report (its page and e-mail) and the price explorer,
with what their charts draw: each answer's costs and ranges, and throughput against per-user
speed. One ranking per model and workload answers all its pairs."""

from __future__ import annotations

from dataclasses import replace

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.reads.compare import LEANING_AT, compare, compare_in
from chipcost.reads.cost import CostRanking, rank_cost
from chipcost.reads.cost_asked import Ask, every_offer
from chipcost.reads.your_prices import YourPrices
from chipcost.transform.comparison import cost_ranges
from chipcost.transform.cost import CostQuestion
from chipcost.transform.evidence import Reading
from chipcost.transform.rows import CostRow, FigureRow, figure_rows
from chipcost.transform.verdict import costs_at_point, figure_kind, share_of
from chipcost.warehouse.cost_per_token import Figures, figures

# The pairs the articles chipcost grew from ask about (docs/cost-per-token.md, "Where the
# articles' figures do not follow"): Trainium against NVIDIA's H100, H200 and B200, Google's
# TPU v6e and AMD's MI300X against the H100. The weekly report and the explorer answer them.
ARTICLE_PAIRS = (
    ("Trainium2", "H100-SXM"),
    ("Trainium2", "H200"),
    ("Trainium2", "B200"),
    ("Trainium3", "H100-SXM"),
    ("Trainium3", "H200"),
    ("Trainium3", "B200"),
    ("TPU-v6e", "H100-SXM"),
    ("MI300X", "H100-SXM"),
)
ARTICLE_QUESTIONS = (("llama-3-70b", "inference"), ("llama-3-70b", "training"))
# Every answer carries every field (None where a pair is not answered).
ANSWER_FIELDS = (
    "pricing_model", "term", "answer", "change_pct", "best_case_change_pct",
    "worst_case_change_pct", "a_usd_per_million_tokens", "b_usd_per_million_tokens",
    "a_where", "b_where", "a_discount", "b_discount", "same_provider",
    "a_figure", "b_figure", "a_figure_at_speed", "b_figure_at_speed", "caveats", "why_not",
    "verdict", "break_even_for", "break_even_tokens_per_second_per_chip",
    "break_even_at_least", "break_even_share_pct", "break_even_share_of",
    "a_kind", "b_kind", "a_cost_low", "a_cost_high", "b_cost_low", "b_cost_high",
    # what each side's price rests on where it is an estimate (no price the provider
    # publishes: `prices` and `cost` mark it 'est.'), else None
    "a_estimate", "b_estimate",
)  # fmt: skip


def _figure_text(row: CostRow) -> str:
    """'3,819 tok/s per chip (benchmark, FP8, 5.2 tok/s per user)'; a derived one with its
    range."""
    said = [figure_kind(row), str(row.get("precision") or "precision not stated").upper()]
    low, high = row.get("throughput_range_low"), row.get("throughput_range_high")
    if low is not None and high is not None:
        said.append(f"range {low:,.0f}-{high:,.0f}")
    per_user = row.get("throughput_tokens_per_second_per_user")
    if per_user:
        said.append(f"{per_user:,.1f} tok/s per user")
    elif row.get("throughput_operating_point"):
        said.append(str(row["throughput_operating_point"]))
    tps = row["tokens_per_second_per_chip"]
    return f"{tps:,.0f} tok/s per chip ({', '.join(said)})"


def _reading_text(figure: Reading) -> str:
    """A published figure a verdict rests on, as _figure_text says an offer's."""
    return _figure_text(
        {
            "throughput_kind": figure.kind,
            "throughput_scenario": figure.scenario,
            "precision": figure.precision,
            "throughput_tokens_per_second_per_user": figure.tokens_per_second_per_user,
            "throughput_operating_point": figure.operating_point,
            "tokens_per_second_per_chip": figure.tokens_per_second_per_chip,
        }  # type: ignore[typeddict-item]  # the fields _figure_text reads
    )


# The chips whose throughput against per-user speed the report and the explorer draw (Llama 3
# 70B inference): those the articles ask about.
CURVE_CHIPS = ("H100-SXM", "H200", "B200", "MI300X", "Trainium2", "TPU-v6e")


def speed_curve(con: duckdb.DuckDBPyConnection, model: str = "llama-3-70b") -> list[FigureRow]:
    """Every usable inference figure of CURVE_CHIPS for `model`: chip, tokens/s per chip and
    per user (None at maximum throughput), whether derived (calibrated or not) or published."""
    from chipcost.warehouse.cost_per_token import DEFAULT_POINT, ranked_at
    from chipcost.warehouse.db import dict_rows

    found = dict_rows(
        con,
        "SELECT chip, tokens_per_second_per_chip, tokens_per_second_per_user, operating_point, "
        f"kind, scenario FROM {ranked_at(con, DEFAULT_POINT, [model])} "
        "WHERE workload = 'inference' AND usable AND model = $model "
        "AND list_contains($chips, chip) "
        "AND (operating_point = 'max-throughput' OR tokens_per_second_per_user IS NOT NULL) "
        "ORDER BY chip, kind = 'derived', tokens_per_second_per_user NULLS FIRST, "
        "tokens_per_second_per_chip, operating_point, kind, scenario",
        {"model": model, "chips": list(CURVE_CHIPS)},
    )
    return figure_rows(found)


def _caveats(notes: list[str]) -> str:
    """The comparison's notes that qualify the answer (not the speed asked, the fit rule or
    your discounts, which each offer's `discount` names, nor what the table's verdict cell
    says its costs are: the answer is its sentence)."""
    said = ("throughput at", "fits:", "after your discounts", LEANING_AT)
    return "; ".join(n for n in notes if not n.startswith(said))


def article_answers(
    con: duckdb.DuckDBPyConnection, stale_days: int, mine: YourPrices | None = None
) -> list[dict[str, object]]:
    """For each article pair, model and workload: A against B on demand (else the first
    pricing model both have), at the default speed, as `chipcost compare` answers it, on
    `mine` (your discounts, as compare reads CHIPCOST_DISCOUNTS; list prices without); a pair
    chipcost cannot answer says why instead. Every pair of a model and workload is taken from
    one ranking of every chip's every offer (the ranking `chipcost cost --all-offers` makes),
    of which only the cheapest of the offers alike are read (`Ask.cheapest_alike`): an answer
    pairs each chip's cheapest per pricing model and term, so the ranking holds rows in the
    number of chips, providers and terms, not of offers."""
    answers = []
    for model, workload in ARTICLE_QUESTIONS:
        ask = Ask(
            model=model, workload=workload, chips=[], baseline=ARTICLE_PAIRS[0][1],
            baseline_given=False, stale_days=stale_days, mine=mine or YourPrices(),
        )  # fmt: skip
        # the figures every ranking of this model and workload reads, read once
        known = figures(con, model, workload, ask.point)
        every: CostRanking | None = None
        try:
            every = rank_cost(
                con, replace(every_offer(ask), cheapest_alike=True), CostQuestion(), known
            )
        except ChipcostError:  # nothing to rank at all: each pair says why, as compare does
            pass
        for chip_a, chip_b in ARTICLE_PAIRS:
            answers.append(_answer(con, ask, every, known, chip_a, chip_b))
    return answers


def _answer(
    con: duckdb.DuckDBPyConnection,
    ask: Ask,
    every: CostRanking | None,
    known: Figures,
    chip_a: str,
    chip_b: str,
) -> dict[str, object]:
    row: dict[str, object] = {
        **dict.fromkeys(ANSWER_FIELDS),
        "model": ask.model, "workload": ask.workload, "chip_a": chip_a, "chip_b": chip_b,
    }  # fmt: skip
    try:
        if every is None:
            result = compare(con, ask, chip_a, chip_b, known)
        else:
            result = compare_in(every, ask, chip_a, chip_b)
    except ChipcostError as exc:
        why = str(exc).split(". ", 1)[0].rstrip(".")  # the reason, not the chip list
        return {**row, "why_not": f"{chip_a} against {chip_b}: {why}"}
    line = result.lines[0]  # on demand first (pricing_order)
    a, b = line.a, line.b
    # compare's numbers: where both chips are measured at one point, both costs and figures
    # are the verdict's there (its table's $/M), else each offer's own
    judged = line.verdict
    costs = costs_at_point(judged, a, b)
    fa, fb = judged.a_figure, judged.b_figure
    shown: dict[str, object] = {
        "a_usd_per_million_tokens": a["usd_per_million_tokens"],
        "b_usd_per_million_tokens": b["usd_per_million_tokens"],
        "a_figure": _figure_text(a),
        "b_figure": _figure_text(b),
        **cost_ranges(a, b),
    }
    if costs is not None and fa is not None and fb is not None:
        shown = {
            "a_usd_per_million_tokens": costs[0],
            "b_usd_per_million_tokens": costs[1],
            "a_figure": _reading_text(fa),
            "b_figure": _reading_text(fb),
            **cost_ranges(a, b, (fa, fb)),
        }
    return {
        **row,
        "pricing_model": a["pricing_model"],
        "term": a["term"],
        "answer": line.sentence(chip_a, chip_b),
        "verdict": line.verdict.word,
        # Whose break-even it is: A, or B where only A is measured (as compare's frame says).
        "break_even_for": line.verdict.needed_by(chip_a, chip_b),
        "break_even_tokens_per_second_per_chip": line.verdict.break_even,
        # At least that, where it rests on a figure that is a lower bound (compare's ≥).
        "break_even_at_least": bool(line.verdict.break_even_least),
        # The break-even in percent of that chip's own figure there (its derived estimate
        # where it is not measured), in percent as every share and change: 174.8.
        "break_even_share_pct": None if line.verdict.share is None else 100 * line.verdict.share,
        # what that share is of: 'its own figure there', or 'its derived estimate, at another
        # point' where the estimate is not at the point (compare's break_even_share_of)
        "break_even_share_of": share_of(line.verdict),
        # Changes in percent, as every read gives them (negative = cheaper).
        **{
            f"{name}_pct": None if change is None else 100 * change
            for name, change in (
                ("change", line.change),
                ("best_case_change", line.best),
                ("worst_case_change", line.worst),
            )
        },
        "a_where": f"{a['provider']} {a['region']}",
        "b_where": f"{b['provider']} {b['region']}",
        # the discount each offer got ('60% EDP'), None where none applied
        "a_discount": a.get("discount"),
        "b_discount": b.get("discount"),
        "same_provider": line.same_provider,
        **shown,
        "a_estimate": (a.get("estimate_basis") or "estimate") if a.get("estimate") else None,
        "b_estimate": (b.get("estimate_basis") or "estimate") if b.get("estimate") else None,
        "a_figure_at_speed": a.get("throughput_at_speed") is not False,
        "b_figure_at_speed": b.get("throughput_at_speed") is not False,
        "caveats": _caveats(result.notes),
        "why_not": None,
    }
