"""A verdict is a function of the question (transform/evidence.py, transform/verdict.py):
properties over generated figure sets. Naming the chips the other way round mirrors the
answer (the same evidence pair, the inverse change, the opposite words); a figure that is not
better at the point changes nothing; a better one of the same class never raises that chip's
cost; a lower bound decides one way only."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chipcost.transform.evidence import Estimate, Reading
from chipcost.transform.verdict import Evidence, judge

SHAPES = [(1024, 1024), (8192, 1024), (1024, 8192)]
PRECISIONS = ["fp8", "fp4", "bf16"]
DEPLOYMENTS = [None, "single-node", "disaggregated", "single-node+mtp"]
KINDS = ["independent", "benchmark", "vendor-claim", "measured"]


@st.composite
def readings(draw, chip: str) -> list[Reading]:
    count = draw(st.integers(min_value=0, max_value=6))
    found = []
    for i in range(count):
        shape = draw(st.sampled_from(SHAPES))
        found.append(
            Reading(
                throughput_id=f"{chip}-{i}",
                chip=chip,
                model="m",
                workload="inference",
                kind=draw(st.sampled_from(KINDS)),
                origin="reference",
                tokens_per_second_per_chip=draw(st.floats(min_value=1, max_value=10_000)),
                source=draw(st.sampled_from(["S1", "S2"])),
                precision=draw(st.sampled_from(PRECISIONS)),
                chips=draw(st.sampled_from([1, 2, 8, 64])),
                input_tokens=shape[0],
                output_tokens=shape[1],
                software=draw(st.sampled_from(["vllm", "trt", None])),
                tokens_per_second_per_user=draw(st.floats(min_value=5, max_value=200)),
                deployment=draw(st.sampled_from(DEPLOYMENTS)),
                lower_bound=draw(st.booleans()),
            )
        )
    return _ranked(found)


def _ranked(found: list[Reading]) -> list[Reading]:
    """choice_rank as throughput_ranked gives it: your own first, then the best throughput."""
    order = sorted(
        found, key=lambda r: (r.kind != "measured", -r.tokens_per_second_per_chip, r.throughput_id)
    )
    return [replace(r, choice_rank=i + 1) for i, r in enumerate(order)]


def _offer(chip: str, price: float) -> dict:
    # each chip's derived figure, what the ranking chose where nothing is published
    return {
        "chip": chip, "price_per_chip_hour": price, "workload": "inference",
        "tokens_per_second_per_chip": 100.0, "throughput_id": f"derived-{chip}",
    }  # fmt: skip


def _judged(a: list[Reading], b: list[Reading], pa: float, pb: float, first: str = "A"):
    """`first` against the other chip: A against B, or (first='B') B against A, each chip's
    readings and price its own."""
    evidence = Evidence(rows=[], parameters=70e9, speed="25")
    evidence._found.readings = [*a, *b]
    offers = {"A": _offer("A", pa), "B": _offer("B", pb)}
    other = "B" if first == "A" else "A"
    return judge(offers[first], offers[other], evidence)


prices = st.floats(min_value=0.1, max_value=50)
relaxed = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@relaxed
@given(readings("A"), readings("B"), prices, prices)
def test_naming_the_chips_the_other_way_round_mirrors_the_answer(a, b, pa, pb):
    ab, ba = _judged(a, b, pa, pb), _judged(a, b, pa, pb, first="B")
    assert ab.matched == ba.matched
    assert (ab.word == "cannot say") == (ba.word == "cannot say")
    if ab.a_figure is not None:  # the same evidence pair, each on its own side
        assert ab.a_figure == ba.b_figure and ab.b_figure == ba.a_figure
    if ab.matched:
        assert (1 + ab.change) * (1 + ba.change) == pytest.approx(1.0)
        opposite = {"cheaper": "dearer", "dearer": "cheaper", "as cheap": "as cheap"}
        assert ba.word == opposite[ab.word]
        assert ab.bound == "".join(sorted({"a": "b", "b": "a"}[s] for s in ba.bound))
    else:  # the same point (its software said in the order the chips are named)
        assert ab.point.split("; software")[0] == ba.point.split("; software")[0]


@relaxed
@given(readings("A"), readings("B"), prices, prices, st.floats(min_value=0.01, max_value=0.99))
def test_a_figure_not_better_at_the_point_changes_nothing(a, b, pa, pb, share):
    before = _judged(a, b, pa, pb)
    if before.a_figure is None:
        return
    best = before.a_figure
    worse = replace(
        best,
        throughput_id="A-worse",
        tokens_per_second_per_chip=best.tokens_per_second_per_chip * share,
        lower_bound=False,
    )
    after = _judged(_ranked([*a, worse]), b, pa, pb)
    assert after.word == before.word and after.change == before.change
    assert after.a_figure.throughput_id == best.throughput_id


@relaxed
@given(readings("A"), readings("B"), prices, prices, st.floats(min_value=1.01, max_value=5))
def test_a_better_figure_of_the_same_class_never_raises_that_chips_cost(a, b, pa, pb, gain):
    before = _judged(a, b, pa, pb)
    if not before.matched:
        return
    best = before.a_figure
    better = replace(
        best,
        throughput_id="A-better",
        tokens_per_second_per_chip=best.tokens_per_second_per_chip * gain,
        lower_bound=False,  # measured at the point, not faster than asked
    )
    after = _judged(_ranked([*a, better]), b, pa, pb)
    # A's figure at the point (its cost per token there is its price over it) never falls
    assert after.a_figure.tokens_per_second_per_chip >= best.tokens_per_second_per_chip
    if after.matched:  # still decided (B's lower bound may leave a cheaper A undecided)
        assert after.change <= before.change + 1e-12
    else:
        assert after.word == "cannot say" and "b" in after.bound


@relaxed
@given(readings("A"), readings("B"), prices, prices)
def test_a_lower_bound_decides_one_way_only(a, b, pa, pb):
    judged = _judged(a, b, pa, pb)
    if "a" in judged.bound and judged.matched:  # A does at least this: only "cheaper" holds
        assert judged.word == "cheaper" and "b" not in judged.bound
    if "b" in judged.bound and judged.matched:
        assert judged.word == "dearer" and "a" not in judged.bound
    if judged.matched and judged.bound:
        assert judged.change_words().startswith("at least")


def test_a_bound_that_would_need_to_rise_says_cannot_say_and_what_it_is_at():
    a = _ranked([Reading("a1", "A", "m", "inference", "independent", "reference", 1000.0,
                         precision="fp8", input_tokens=1024, output_tokens=1024,
                         tokens_per_second_per_user=40.0, lower_bound=True,
                         deployment="single-node")])  # fmt: skip
    b = _ranked([Reading("b1", "B", "m", "inference", "independent", "reference", 2000.0,
                         precision="fp8", input_tokens=1024, output_tokens=1024,
                         tokens_per_second_per_user=25.0, deployment="single-node")])  # fmt: skip
    judged = _judged(a, b, 1.0, 1.0)  # A at least 1,000 against B's 2,000 at equal prices
    assert judged.word == "cannot say" and judged.bound == "a"
    assert judged.bound_change == pytest.approx(1.0)  # at most twice as dear: could be cheaper
    words = judged.sentence("A", "B")
    assert "A's figure is a lower bound" in words and "40 tok/s per user" in words
    cheap = _judged(a, b, 0.25, 1.0)  # at a quarter of the price, at least half as dear
    assert cheap.word == "cheaper" and cheap.change_words() == "at least 50% cheaper"


def test_figures_of_two_deployment_classes_draw_no_verdict():
    def one(chip: str, deployment: str) -> list[Reading]:
        figure = Reading(
            f"{chip}1", chip, "m", "inference", "independent", "reference", 1000.0,
            precision="fp8", input_tokens=1024, output_tokens=1024,
            tokens_per_second_per_user=30.0, deployment=deployment,
        )  # fmt: skip
        return _ranked([figure])

    judged = _judged(one("A", "disaggregated+mtp"), one("B", "single-node"), 1.0, 1.0)
    assert judged.word == "cannot say" and "deployment" in judged.differ


def test_a_lower_bound_holds_where_only_one_chip_is_measured_whichever_is_named_first():
    """B measured only at a curve's point faster than asked, A not at all: the break-even A
    must reach is at least the one said, and which way the estimate leans is a bound too."""
    b = _ranked([Reading("b1", "B", "m", "inference", "independent", "reference", 1000.0,
                         precision="fp8", input_tokens=1024, output_tokens=1024,
                         tokens_per_second_per_user=34.0, lower_bound=True,
                         deployment="single-node")])  # fmt: skip
    evidence = Evidence(rows=[], parameters=70e9, speed="25")
    evidence._found.readings = b
    evidence._found.estimates[("A", "b1")] = Estimate(250.0, None, "error unknown")
    a_offer, b_offer = _offer("A", 4.0), _offer("B", 1.0)
    ab, ba = judge(a_offer, b_offer, evidence), judge(b_offer, a_offer, evidence)
    assert ab.word == ba.word == "cannot say"
    assert ab.break_even == ba.break_even == pytest.approx(4000.0)
    assert (ab.bound, ab.needs, ab.b_figure.throughput_id) == ("b", "a", "b1")
    assert (ba.bound, ba.needs, ba.a_figure.throughput_id) == ("a", "b", "b1")
    assert ab.break_even_least and ba.break_even_least
    assert ab.break_even_words() == ba.break_even_words() == "≥4,000"
    # A needs 4,000 where its estimate is 250: at least 16 times as dear, however read
    assert ab.leaning() == "~≥16x dearer" and ba.leaning() == "~≥16x cheaper"
    assert "at least 4,000" in ab.sentence("A", "B") and "B's figure is a lower bound" in (
        ab.sentence("A", "B")
    )
    # at a sixteenth of the price A leans cheaper, but only at most that much
    cheap = judge(_offer("A", 0.125), b_offer, evidence)
    assert cheap.leaning() == "~≤2.0x cheaper"
