"""Reading a curve (warehouse/views/35_throughput_ranked.sql): a chip's figure at an asked speed
is the best point of its curves that meets the speed and the time-to-first-token bound,
interpolated between two measured points of one load sweep, never beyond its ends, never a
single stream, never a saturated point. Real DuckDB, throughput_at as every read uses it."""

from __future__ import annotations

import pytest

from chipcost.warehouse.cost_per_token import Point, figures, throughput_listing

SOURCE = "a load sweep under test"
# One chip's sweep at 1,000 in / 1,000 out tokens (tokens/s per user, tokens/s per chip, TTFT
# in ms, concurrency): the throughput per chip rises as each user's speed falls; the last
# point is a saturated queue (its first token after 9 s).
SWEEP = [
    (60.0, 100.0, 150.0, 1),
    (50.0, 400.0, 200.0, 8),
    (40.0, 700.0, 300.0, 16),
    (20.0, 1100.0, 900.0, 64),
    (12.0, 1400.0, 9000.0, 256),
]


def _add(con, chip: str, points, *, source: str = SOURCE, input_tokens: int = 1000) -> None:
    for user, tps, ttft, concurrency in points:
        con.execute(
            """
            INSERT INTO throughput BY NAME SELECT
                $id AS throughput_id, $chip AS chip, 'curve-model' AS model,
                'inference' AS workload, $tps AS tokens_per_second_per_chip,
                'independent' AS kind, 'reference' AS origin, $source AS source,
                '2026-10-01' AS source_date, 'as published' AS stated_as,
                'latency-bound' AS operating_point, 'c' || $c AS scenario,
                $user AS tokens_per_second_per_user, $ttft AS ttft_ms, 1000 / $user AS tpot_ms,
                $input AS input_tokens, 1000 AS output_tokens, $c AS concurrency,
                'fp8' AS precision, 'vLLM' AS software, 8 AS chips
            """,
            {
                "id": f"{chip}-{source}-c{concurrency}", "chip": chip, "tps": tps,
                "source": source, "c": concurrency, "user": user, "ttft": ttft,
                "input": input_tokens,
            },
        )  # fmt: skip


def _chosen(con, chip: str, speed: str, ttft_ms: float | None = None) -> dict | None:
    found = con.execute(
        "SELECT throughput_id, tokens_per_second_per_chip, tokens_per_second_per_user, "
        "at_speed, interpolated, concurrency, ttft_ms "
        "FROM throughput_at(speed := $speed, ttft := $ttft) "
        "WHERE chip = $chip AND model = 'curve-model' AND chosen",
        {"chip": chip, "speed": speed, "ttft": ttft_ms},
    ).fetchall()
    if not found or not found[0][3]:
        return None
    names = ("id", "tps", "user", "at_speed", "interpolated", "concurrency", "ttft")
    return dict(zip(names, found[0], strict=True))


@pytest.fixture
def sweep(con):
    _add(con, "H100-SXM", SWEEP)
    return con


def test_a_speed_between_two_points_is_read_between_them(sweep):
    # 45 tok/s per user lies halfway between c8 (50, 400) and c16 (40, 700): 550
    got = _chosen(sweep, "H100-SXM", "45")
    assert got["interpolated"] and got["tps"] == pytest.approx(550.0)
    assert got["id"] == "H100-SXM-a load sweep under test-c8@45" and got["user"] == 45.0
    # the interpolated point keeps the slower neighbour's (worse) first-token time
    assert got["ttft"] == pytest.approx(300.0)


@pytest.mark.parametrize(("speed", "tps"), [("50", 400.0), ("40", 700.0), ("30", 900.0)])
def test_a_speed_on_or_between_points_takes_the_best_that_meets_it(sweep, speed, tps):
    assert _chosen(sweep, "H100-SXM", speed)["tps"] == pytest.approx(tps)


def test_no_point_beyond_the_fastest_and_never_a_single_stream(sweep):
    # c1 streams at 60 tok/s per user but is one request in flight: it answers no load
    # question, so the curve ends at c8's 50
    assert _chosen(sweep, "H100-SXM", "55") is None
    assert _chosen(sweep, "H100-SXM", "70") is None


def test_a_saturated_point_answers_no_speed_and_the_bound_can_be_asked(sweep):
    # c256's first token after 9 s is over the 2 s bound of a 1,000-token prompt: at 12 tok/s
    # per user the best point within the bound is c64's 1,100, not c256's 1,400
    assert _chosen(sweep, "H100-SXM", "12")["tps"] == pytest.approx(1100.0)
    # with --ttft 10s it counts; with --ttft 250ms only c8 (200 ms) is left in the curve
    assert _chosen(sweep, "H100-SXM", "12", 10_000)["tps"] == pytest.approx(1400.0)
    assert _chosen(sweep, "H100-SXM", "12", 250)["tps"] == pytest.approx(400.0)
    # at 45: c16 is out of the curve, so nothing is read between c8 and it; c8 meets 45 itself
    within = _chosen(sweep, "H100-SXM", "45", 250)
    assert within["tps"] == pytest.approx(400.0) and not within["interpolated"]


def test_the_default_bound_follows_the_prompt(con):
    # 8,000-token prompts: 6 s, so a 5 s first token meets it
    _add(con, "H200", [(20.0, 900.0, 5000.0, 32), (10.0, 1500.0, 7000.0, 128)], input_tokens=8000)
    assert _chosen(con, "H200", "15")["tps"] == pytest.approx(900.0)


def test_max_is_the_frontiers_top_within_the_bound(sweep):
    assert _chosen(sweep, "H100-SXM", "max")["tps"] == pytest.approx(1100.0)


def test_the_best_publication_point_not_the_middle(con):
    # two curves of the same kind and date: the better one's point is chosen
    _add(con, "B200", [(30.0, 1000.0, 500.0, 32), (20.0, 2000.0, 800.0, 64)])
    _add(con, "B200", [(30.0, 3000.0, 500.0, 32), (20.0, 4000.0, 800.0, 64)], source="better")
    assert _chosen(con, "B200", "25")["tps"] == pytest.approx(3500.0)


def test_the_figures_read_carries_whether_each_point_is_within_the_bounds(sweep):
    # cost's advice ("figures answer no speed") reads this one column, not a second copy of
    # the rule: c1 is a single stream, c256's first token (9 s) is after the 2 s bound
    rows = figures(sweep, "curve-model", "inference").rows
    within = {r["throughput_id"].rsplit("-", 1)[1]: r["within_bounds"] for r in rows}
    assert within == {"c1": False, "c8": True, "c16": True, "c64": True, "c256": False}
    # with --ttft 10s c256 is within; c1 never is
    wider = figures(sweep, "curve-model", "inference", Point(ttft_ms=10_000)).rows
    assert {r["throughput_id"]: r["within_bounds"] for r in wider}[f"H100-SXM-{SOURCE}-c256"]
    # `throughput list` prints what `throughput add` takes back: not this column
    assert "within_bounds" not in throughput_listing(sweep, models=["curve-model"]).columns
