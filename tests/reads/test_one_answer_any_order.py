"""A verdict is a function of the question, on the shipped catalogue and the sample's prices:
for every pair of chips, `compare B A` mirrors `compare A B` on every pricing model (the same
offers, the same evidence pair, the inverse change, the opposite words), and an offer's cost
per million tokens is the same under any baseline. Real DuckDB."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.pipeline.seed import open_warehouse
from chipcost.reads.compare import compare_in
from chipcost.reads.cost import rank_cost
from chipcost.reads.cost_asked import Ask, every_offer
from chipcost.transform.cost import CostQuestion
from tests import warehouses

CHIPS = ["H100-SXM", "H200", "B200", "GB200", "MI300X", "MI355X", "Trainium2", "B300"]
QUESTIONS = [("deepseek-r1", "30"), ("llama-3-70b", "25"), ("gpt-oss-120b", "50")]
OPPOSITE = {"cheaper": "dearer", "dearer": "cheaper", "as cheap": "as cheap"}


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    connection = open_warehouse(
        warehouses.sample(tmp_path_factory.mktemp("any-order") / "w.duckdb")
    )
    yield connection
    connection.close()


def _ask(model: str, speed: str, baseline: str = "H100-SXM") -> Ask:
    return Ask(
        model=model, workload="inference", chips=[], baseline=baseline, baseline_given=False,
        speed=speed, stale_days=10_000,
    )  # fmt: skip


OFFER = (
    "provider", "region", "instance_type", "pricing_model", "term", "payment", "plan",
    "usd_per_million_tokens",
)  # fmt: skip


def _offer(row) -> tuple:
    return tuple(row.get(k) for k in OFFER)


@pytest.mark.parametrize(("model", "speed"), QUESTIONS)
def test_compare_b_a_mirrors_compare_a_b(con, model, speed):
    ask = _ask(model, speed)
    every = rank_cost(con, every_offer(ask), CostQuestion())
    answered = 0
    for a, b in itertools.combinations(CHIPS, 2):
        try:
            ab, ba = compare_in(every, ask, a, b), compare_in(every, ask, b, a)
        except ChipcostError:  # a chip with no offer or figure: said, for either order
            with pytest.raises(ChipcostError):
                compare_in(every, ask, b, a)
            continue
        assert [line.pricing for line in ab.lines] == [line.pricing for line in ba.lines]
        for x, y in zip(ab.lines, ba.lines, strict=True):
            assert _offer(x.a) == _offer(y.b) and _offer(x.b) == _offer(y.a)
            vx, vy = x.verdict, y.verdict
            assert (vx.a_figure, vx.b_figure) == (vy.b_figure, vy.a_figure)
            if vx.matched:
                assert vy.word == OPPOSITE[vx.word]
                assert (1 + vx.change) * (1 + vy.change) == pytest.approx(1.0)
            else:
                assert vy.word == "cannot say"
            answered += 1
    assert answered > 10  # the catalogue answers many pairs of these models


@pytest.mark.parametrize(("model", "speed"), QUESTIONS[:1])
def test_an_offers_cost_per_token_is_the_same_under_any_baseline(con, model, speed):
    costs = {}
    for baseline in ("H100-SXM", "B200", "H200"):
        ranking = rank_cost(
            con, replace(every_offer(_ask(model, speed, baseline)), chips=CHIPS[:4]), CostQuestion()
        )
        costs[baseline] = {
            (r["chip"], *_offer(r)[:-1]): r["usd_per_million_tokens"] for r in ranking.rows
        }
    shared = set.intersection(*(set(found) for found in costs.values()))
    assert len(shared) > 20
    for key in shared:
        assert len({costs[baseline][key] for baseline in costs}) == 1, key


def test_a_narrower_ask_no_offer_answers_is_refused_in_words_as_rank_cost_refuses_it(con):
    """taken_from's refusal where no offer of the chip is left (--max-instances): the NoMatch
    rank_cost gives for the same ask, not an error of its own."""
    from chipcost.core.errors import NoMatch
    from chipcost.reads.cost import taken_from

    ask = _ask("deepseek-r1", "30")
    every = rank_cost(con, every_offer(ask), CostQuestion())
    narrow = replace(ask, chips=["H100-SXM"], all_offers=True, max_instances=1)
    with pytest.raises(NoMatch) as direct:
        rank_cost(con, narrow, CostQuestion())
    with pytest.raises(NoMatch) as taken:
        taken_from(every, narrow, CostQuestion())
    assert str(taken.value) == str(direct.value)
    assert "no offer holds deepseek-r1 for inference in 1 instance(s)" in str(taken.value)
