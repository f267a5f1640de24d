"""A verdict at a matched point rests on each side's figure by the warehouse's choice rule
(throughput_ranked.choice_rank), not on a second rule of its own; the others are its range."""

from __future__ import annotations

import pytest

from chipcost.transform.evidence import Reading, at_match, matched


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
