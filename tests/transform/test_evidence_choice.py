"""A verdict at a matched point rests on each side's figure by the warehouse's choice rule
(throughput_ranked.choice_rank), not on a second rule of its own; the others are its range."""

from __future__ import annotations

import pytest

from chipcost.transform.evidence import Reading, matched
from chipcost.transform.verdict import at_match


def reading(throughput_id: str, chip: str, kind: str, source: str, tps: float, rank: int):
    return Reading(
        throughput_id=throughput_id, chip=chip, model="llama-3-70b", workload="inference",
        kind=kind, origin="reference", tokens_per_second_per_chip=tps, source=source,
        precision="fp8", chips=8, input_tokens=1024, output_tokens=1024, choice_rank=rank,
    )  # fmt: skip


def test_each_side_rests_on_its_figure_by_the_choice_rule_and_the_rest_is_its_range():
    # At one point, A's benchmark ranks before its faster vendor claim (kind before
    # throughput); B has one figure there, of a third publication.
    a = [
        reading("a-bench", "A", "benchmark", "Bench v1", 100.0, 1),
        reading("a-claim", "A", "vendor-claim", "A's blog", 150.0, 2),
    ]
    b = [reading("b-bench", "B", "benchmark", "Other bench", 100.0, 1)]
    match = matched(a, b)
    assert match is not None and match.figure("a").throughput_id == "a-bench"
    verdict = at_match(2.0, 1.0, match)
    assert verdict.a_figure.throughput_id == "a-bench"
    assert verdict.change == 1.0  # twice B's price at the benchmark's equal throughput
    # the range: A at its fastest figure there (a third dearer) and at its slowest
    assert (verdict.best, verdict.worst) == (pytest.approx(1 / 3), 1.0)


def _served(throughput_id: str, chip: str, software: str, tps: float, rank: int) -> Reading:
    return Reading(
        throughput_id=throughput_id, chip=chip, model="llama-3-70b", workload="inference",
        kind="benchmark", origin="reference", tokens_per_second_per_chip=tps,
        source="Bench", precision="fp8", chips=8, input_tokens=1024, output_tokens=1024,
        choice_rank=rank, software=software,
    )  # fmt: skip


def test_a_cross_software_verdict_stays_on_the_frontier_and_says_the_same_software_pair():
    # A's best ran TensorRT-LLM, B's only vLLM; A's vLLM figure is slower than its best.
    a = [
        _served("a-trt", "A", "trt, image not stated", 400.0, 1),
        _served("a-vllm", "A", "vLLM 0.10.1", 250.0, 2),
    ]
    b = [_served("b-vllm", "B", "vllm, image not stated", 200.0, 1)]
    verdict = at_match(1.0, 1.0, matched(a, b))
    assert verdict.a_figure.throughput_id == "a-trt"  # the verdict: each chip's best
    assert verdict.change == pytest.approx(-0.5)
    assert "software trt, image not stated against vllm, image not stated" in verdict.point
    # beside it, the pair of one software: vLLM on both, 250 against 200: 20% cheaper
    assert "with vllm on both, 250 against 200 tok/s per chip: 20% cheaper" in verdict.point


@pytest.mark.parametrize("software_b", ["sglang", "", None])
def test_no_same_software_pair_is_said_where_none_exists(software_b):
    a = [_served("a-trt", "A", "trt", 400.0, 1)]
    b = [_served("b", "B", software_b, 200.0, 1)]
    match = matched(a, b)
    assert match.same_software() is None
    assert "on both" not in at_match(1.0, 1.0, match).point


def test_figures_both_unstated_say_no_pair_though_others_share_one():
    # the figures the verdict rests on both state no software: nothing differs to explain
    a = [_served("a", "A", None, 400.0, 1), _served("a2", "A", "trt", 300.0, 2)]
    b = [_served("b", "B", None, 200.0, 1), _served("b2", "B", "trt", 350.0, 2)]
    match = matched(a, b)
    assert match.software() == "" and match.same_software() is None


def test_one_software_on_both_figures_says_no_pair_beside_the_verdict():
    # the figures the verdict rests on both ran vLLM (versions differ): that is the pair
    a = [_served("a", "A", "vllm 0.9", 400.0, 1), _served("a2", "A", "trt", 300.0, 2)]
    b = [_served("b", "B", "vllm 0.10", 200.0, 1), _served("b2", "B", "trt", 350.0, 2)]
    assert matched(a, b).same_software() is None


def test_the_same_software_pair_said_is_the_one_with_the_fastest_slower_side():
    a = [
        _served("a", "A", "dynamo", 900.0, 1),
        _served("a2", "A", "vllm", 400.0, 2),
        _served("a3", "A", "trt", 300.0, 3),
    ]
    b = [
        _served("b", "B", "sglang", 800.0, 1),
        _served("b2", "B", "trt", 350.0, 2),
        _served("b3", "B", "vllm", 200.0, 3),
    ]
    name, fa, fb = matched(a, b).same_software()
    assert (name, fa.throughput_id, fb.throughput_id) == ("trt", "a3", "b2")


def _round(throughput_id: str, chip: str, source: str, date: str, tps: float, rank: int):
    return Reading(
        throughput_id=throughput_id, chip=chip, model="llama-3-70b", workload="inference",
        kind="benchmark", origin="reference", tokens_per_second_per_chip=tps, source=source,
        source_date=date, precision="fp8", chips=8, choice_rank=rank,
    )  # fmt: skip


def test_where_both_chips_have_figures_of_one_round_only_those_are_set_against_each_other():
    # A's best is of the newer round, which B did not enter: A's figure of the round both
    # entered answers, whichever chip is named first, and its range is of that round alone.
    a = [
        _round("a-v6", "A", "MLPerf Inference v6.0", "2026-03-26", 3183.0, 1),
        _round("a-v51", "A", "MLPerf Inference v5.1", "2025-09-09", 3108.0, 2),
        _round("a-v41", "A", "MLPerf Inference v4.1", "2024-08-28", 2629.0, 3),
    ]
    b = [
        _round("b-v51", "B", "MLPerf Inference v5.1", "2025-09-09", 3821.0, 1),
        _round("b-v41", "B", "MLPerf Inference v4.1", "2024-08-28", 2701.0, 2),
    ]
    match = matched(a, b)
    assert [r.throughput_id for r in match.a] == ["a-v51"]  # the newest round both entered
    assert [r.throughput_id for r in match.b] == ["b-v51"]
    assert matched(b, a).figure("b").throughput_id == "a-v51"
    # no round in common: every figure of each, A's best answering
    other = [_round("b-v7", "B", "MLPerf Inference v7.0", "2026-09-01", 3821.0, 1)]
    assert matched(a, other).figure("a").throughput_id == "a-v6"
