"""The report's price history charts (reports/charts.py): the % axis holds every move, and a
line another lies on is said hidden in the legend."""

from __future__ import annotations

import itertools
import re
from datetime import date, timedelta

from chipcost.reports.charts import MIN_SPAN, _pct_range, price_chart
from chipcost.reports.labels import MODEL_LABELS


def test_the_axis_holds_every_move_and_no_change():
    """On 2487f4c moves from -1.5% to +6.4% got an axis from -2% to +6%: A10G's spot line
    (+5.6%) and Trainium2's (+10.8%) left the top of their charts."""
    steps = [x / 10 for x in range(-150, 151, 7)]
    for low, high in itertools.combinations(steps, 2):
        bottom, top = _pct_range([low, high])
        assert bottom <= min(low, 0.0) and top >= max(high, 0.0), (low, high, bottom, top)
        assert top - bottom >= MIN_SPAN
    assert _pct_range([-1.5, 6.4])[1] >= 6.4


def _days(*prices: float) -> list[tuple[date, float]]:
    return [(date(2026, 11, 14) + timedelta(days=i), p) for i, p in enumerate(prices)]


def test_a_line_another_lies_on_is_said_hidden_in_the_legend():
    """On 697f5e5 the sample's L4 showed 2 of its 5 lines: on demand, reserved and savings plan
    each flat at 0%, commitment under spot, and the legend listed all 5 as if drawn."""
    series = {
        "on_demand": _days(0.38, 0.38, 0.38),
        "reserved": _days(0.3158, 0.3158, 0.3158),  # flat too: the same 0% line
        "savings_plan": _days(0.6976, 0.6976, 0.6976),
        "commitment": _days(0.30, 0.2589, 0.2589),  # -13.7%, as spot
        "spot": _days(0.2666, 0.2301, 0.2301),
        "capacity_block": _days(1.00, 1.10, 1.00),  # a line of its own
    }
    svg = price_chart(series, MODEL_LABELS, "L4")
    said = re.findall(r"<text [^>]*>([^<]*)</text>", svg)
    for hidden, cover in (
        ("on demand $0.3800", "savings plan"),
        ("reserved $0.3158", "savings plan"),
        ("commitment $0.2589", "spot"),
    ):
        assert said[said.index(hidden) + 1] == f"hidden under {cover}", hidden
    # Lines drawn where they are: the last drawn of each place, and one alone, say nothing.
    for shown in ("savings plan $0.6976", "spot $0.2301", "capacity block $1.0000"):
        following = said[said.index(shown) + 1 :]
        assert not following or not following[0].startswith("hidden"), shown
    assert sum(text.startswith("hidden under") for text in said) == 3
