"""A chip's figure follows its measurements as the asked speed changes (issue: one answer
whatever the question's wording): on the whole catalogue, the figure chosen never rises as the
speed rises, and a derived figure is never above the chip's own measured frontier."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import pytest

from chipcost.pipeline.seed import open_warehouse

SPEEDS = ("5", "10", "15", "20", "25", "30", "40", "50", "60", "75", "100", "150", "200")


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    con = open_warehouse(tmp_path_factory.mktemp("frontier") / "w.duckdb")
    yield con
    con.close()


def _chosen(con, speed: str) -> dict[tuple[str, str], tuple[float, str]]:
    rows = con.execute(
        "SELECT chip, model, tokens_per_second_per_chip, throughput_id "
        "FROM throughput_at(speed := $speed) WHERE workload = 'inference' AND chosen AND at_speed",
        {"speed": speed},
    ).fetchall()
    return {(chip, model): (tps, ident) for chip, model, tps, ident in rows}


def test_the_figure_chosen_never_rises_as_the_asked_speed_rises(con):
    seen: dict[tuple[str, str], list[tuple[str, float, str]]] = defaultdict(list)
    for speed in SPEEDS:
        for key, (tps, ident) in _chosen(con, speed).items():
            seen[key].append((speed, tps, ident))
    assert len(seen) > 600  # every chip and model with a figure at some speed
    rises = [
        (key, slower, faster)
        for key, points in seen.items()
        for slower, faster in itertools.pairwise(points)
        if faster[1] > slower[1] * (1 + 1e-9)
    ]
    assert not rises, rises[:5]


def _class(precision: str | None) -> str | None:
    text = (precision or "").lower()
    return "fp8" if text.startswith("fp8") else "bf16" if text in ("bf16", "fp16") else None


def test_no_derived_figure_is_above_the_chips_measured_frontier_at_its_point(con):
    held = sum(_held(con, speed) for speed in ("10", "25", "50"))
    assert held > 0  # the rule binds somewhere: the derivation promises more than measured


def _held(con, speed: str) -> int:
    """How many derived figures at `speed` sit at their chip's measured frontier (held to it);
    fails where one is above it."""
    rows = con.execute(
        "SELECT chip, model, origin, precision, input_tokens, output_tokens, "
        "tokens_per_second_per_chip, tokens_per_second_per_user, interpolated, lower_bound, "
        "superseded, at_speed, throughput_id FROM throughput_at(speed := $speed) "
        "WHERE workload = 'inference' AND usable AND input_tokens > 0",
        {"speed": speed},
    ).fetchall()
    asked = float(speed)
    # the frontier, read here from the view's points: measured (not derived), at the speed,
    # not a lower bound (a point within 2% of the speed, or read between two)
    measured = [
        r for r in rows
        if r[2] != "derived" and r[11] and not r[10] and not r[9]
        and (r[8] or r[7] <= 1.02 * asked)
    ]  # fmt: skip
    held = 0
    for chip, model, origin, precision, isl, osl, tps, *_, ident in rows:
        if origin != "derived" or _class(precision) is None:
            continue
        frontier = [
            m[6] for m in measured
            if (m[0], m[1]) == (chip, model) and _class(m[3]) == _class(precision)
            and abs(math.log(m[4] / isl)) < math.log(1.1)
            and abs(math.log(m[5] / osl)) < math.log(1.1)
        ]  # fmt: skip
        if frontier:
            assert tps <= max(frontier) * (1 + 1e-9), (ident, tps, max(frontier))
            held += tps == pytest.approx(max(frontier))
    return held


def test_a_held_derived_figure_says_to_what_and_from_how_much(con):
    tps, notes = con.execute(
        "SELECT tokens_per_second_per_chip, notes FROM throughput_at(speed := '25') "
        "WHERE throughput_id = 'derived:MI300X:llama-3-70b:inference:25'"
    ).fetchone()
    frontier = con.execute(
        "SELECT max(tokens_per_second_per_chip) FROM throughput_at(speed := '25') "
        "WHERE chip = 'MI300X' AND model = 'llama-3-70b' AND origin = 'reference' "
        "AND at_speed AND NOT lower_bound AND precision = 'fp8' "
        "AND input_tokens = 1024 AND output_tokens = 1024"
    ).fetchone()[0]
    assert tps == pytest.approx(frontier)
    assert f"Held to {round(frontier)} tokens/s per chip, the chip's own measured frontier" in notes
    assert notes.endswith(" derived.")


def test_a_derived_maximum_throughput_figure_answers_only_max(con):
    for speed, expected in (("max", True), ("5", False), ("50", False)):
        found = con.execute(
            "SELECT DISTINCT at_speed FROM throughput_at(speed := $speed) "
            "WHERE origin = 'derived' AND operating_point = 'max-throughput'",
            {"speed": speed},
        ).fetchall()
        assert found == [(expected,)], speed


@pytest.mark.parametrize("speed", ["5", "25", "max"])
def test_a_better_figure_of_the_same_class_never_lowers_a_chips_figure(tmp_path, speed):
    """For every chip and model, a copy of its chosen figure 10% better (the same kind,
    origin and point, from a source of its own) never leaves the chip with a lower figure:
    its cost per token never rises."""
    con = open_warehouse(tmp_path / "w.duckdb")
    try:
        before = _chosen(con, speed)
        columns = [
            c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'throughput' ORDER BY ordinal_position"
            ).fetchall()
        ]  # fmt: skip
        copied = {"throughput_id", "tokens_per_second_per_chip", "source", "recorded_at"}
        kept = ", ".join(c for c in columns if c not in copied)
        con.execute(
            f"INSERT INTO throughput BY NAME SELECT {kept}, "
            "'better-' || row_number() OVER () AS throughput_id, "
            "1.1 * tokens_per_second_per_chip AS tokens_per_second_per_chip, "
            "source || ' (better copy ' || row_number() OVER () || ')' AS source, "
            "recorded_at FROM throughput_at(speed := $speed) "
            "WHERE chosen AND at_speed",
            {"speed": speed},
        )
        after = _chosen(con, speed)
    finally:
        con.close()
    assert len(before) > 600
    lowered = [
        (key, was, after.get(key))
        for key, was in before.items()
        if key not in after or after[key][0] < was[0] * (1 - 1e-9)
    ]
    assert not lowered, lowered[:5]
    raised = sum(after[key][0] > was[0] * (1 + 1e-9) for key, was in before.items())
    assert raised > len(before) / 2  # the copies are taken where they are better
