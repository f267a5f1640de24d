"""Chip A against chip B per pricing model (transform/comparison.py): offers grouped by
pricing, on demand first; A's offer paired with B's on its own provider, else B's cheapest;
the answer judged at both chips' figures at one point."""

from __future__ import annotations

import pytest

from chipcost.transform.comparison import (
    comparison,
    cost_ranges,
    offers_by_pricing,
    paired,
    pricing_of,
    shared_pricing,
)
from chipcost.transform.rows import CostRow, FigureRow
from chipcost.transform.tokens import cost_per_million_tokens
from chipcost.transform.verdict import Evidence


def offer(chip: str, provider: str, price: float, model: str = "on_demand", term: str = "none"):
    tps = 1000.0
    row: CostRow = {
        "chip": chip, "provider": provider, "region": "r", "instance_type": f"{chip}-box",
        "pricing_model": model, "term": term, "price_per_chip_hour": price,
        "tokens_per_second_per_chip": tps, "throughput_id": f"{chip}-mlperf",
        "usd_per_million_tokens": cost_per_million_tokens(price, tps),
    }  # fmt: skip
    return row


def figure(chip: str, tps: float) -> FigureRow:
    """A published figure at one point: the same model, shape, precision and scale for both."""
    return {
        "throughput_id": f"{chip}-mlperf", "chip": chip, "model": "llama-3-70b",
        "workload": "inference", "kind": "benchmark", "origin": "reference",
        "tokens_per_second_per_chip": tps, "source": "MLPerf Inference v5.1",
        "precision": "fp8", "chips": 8, "usable": True, "at_speed": True, "choice_rank": 1,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("model", "term", "said"),
    [("on_demand", "none", "on_demand"), ("reserved", "1yr", "reserved 1yr")],
)
def test_a_pricing_is_named_by_its_model_and_a_term_it_has(model, term, said):
    assert pricing_of(offer("A", "aws", 1.0, model, term)) == said


def test_shared_pricings_come_on_demand_first_then_shorter_terms_and_only_where_both_offer():
    rows = [
        offer("A", "aws", 1.0, "reserved", "3yr"),
        offer("B", "aws", 1.0, "reserved", "3yr"),
        offer("A", "aws", 2.0, "reserved", "1yr"),
        offer("B", "aws", 2.0, "reserved", "1yr"),
        offer("A", "aws", 1.5, "spot"),
        offer("A", "aws", 3.0),
        offer("B", "gcp", 4.0),
        offer("B", "aws", 5.0),
    ]
    by_pricing = offers_by_pricing(rows)
    assert [p for p, _ in shared_pricing(by_pricing, "A", "B")] == [
        "on_demand", "reserved 1yr", "reserved 3yr",
    ]  # fmt: skip
    # each chip's offers kept in the order given (the ranking's: cheapest first)
    assert [r["provider"] for r in by_pricing["on_demand"]["B"]] == ["gcp", "aws"]


def test_each_chip_takes_its_own_cheapest_offer_whichever_is_named_first():
    a_offers = [offer("A", "aws", 2.0)]
    b_there = [offer("B", "gcp", 3.0), offer("B", "aws", 4.0)]
    assert paired(a_offers, b_there) == (a_offers[0], b_there[0], False)
    assert paired(b_there, a_offers) == (b_there[0], a_offers[0], False)
    b_same = [offer("B", "aws", 3.0), offer("B", "gcp", 3.5)]
    assert paired(a_offers, b_same)[1:] == (b_same[0], True)


def test_both_measured_at_one_point_draws_a_verdict_at_those_figures():
    evidence = Evidence([figure("A", 1000.0), figure("B", 1000.0)], 70e9, "max")
    line = comparison(
        "on_demand", [offer("A", "aws", 2.0)], [offer("B", "gcp", 3.0), offer("B", "aws", 4.0)],
        evidence,
    )  # fmt: skip
    assert (line.a["provider"], line.b["provider"], line.same_provider) == ("aws", "gcp", False)
    assert line.verdict.word == "cheaper"
    assert line.change == pytest.approx(2.0 / 3.0 - 1)  # B's cheapest, same throughput


def test_only_one_side_measured_gives_the_break_even_and_no_verdict_word():
    evidence = Evidence([figure("B", 1000.0)], None, "max")
    line = comparison("on_demand", [offer("A", "aws", 2.0)], [offer("B", "aws", 4.0)], evidence)
    assert line.verdict.word == "cannot say" and line.change is None
    # A must reach its price / B's of B's figure to cost as little per token
    assert line.verdict.break_even == pytest.approx(500.0)


def test_a_published_figures_cost_range_is_its_point_and_a_ranges_ends_swap():
    a = {**offer("A", "aws", 2.0), "throughput_kind": "benchmark"}
    b = {**offer("B", "aws", 4.0), "throughput_kind": "derived"}
    b |= {"throughput_range_low": 500.0, "throughput_range_high": 2000.0}
    found = cost_ranges(a, b)
    assert found["a_cost_low"] == found["a_cost_high"] == a["usd_per_million_tokens"]
    # B's lowest cost is at its highest throughput, and its highest at its lowest
    assert found["b_cost_low"] == pytest.approx(cost_per_million_tokens(4.0, 2000.0))
    assert found["b_cost_high"] == pytest.approx(cost_per_million_tokens(4.0, 500.0))
    assert (found["a_kind"], found["b_kind"]) == ("benchmark", "derived")


def test_terms_are_in_order_of_their_length():
    """A capacity block's 1d, 7d and 14d in that order (on 2b517ec: 14d, 1d, 7d, as text),
    after on demand and reserved 1yr and 3yr."""
    rows = [
        offer(chip, "aws", 2.0, model, term)
        for chip in ("A", "B")
        for model, term in (("capacity_block", "14d"), ("reserved", "3yr"),
                            ("capacity_block", "1d"), ("on_demand", "none"),
                            ("capacity_block", "7d"), ("reserved", "1yr"))
    ]  # fmt: skip
    order = [pricing for pricing, _ in shared_pricing(offers_by_pricing(rows), "A", "B")]
    assert order == [
        "on_demand", "reserved 1yr", "reserved 3yr", "capacity_block 1d", "capacity_block 7d",
        "capacity_block 14d",
    ]  # fmt: skip
