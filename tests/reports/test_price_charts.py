"""The report's price history charts (reports/charts.py): the % axis holds every move."""

from __future__ import annotations

import itertools

from chipcost.reports.charts import MIN_SPAN, _pct_range


def test_the_axis_holds_every_move_and_no_change():
    """On 2487f4c moves from -1.5% to +6.4% got an axis from -2% to +6%: A10G's spot line
    (+5.6%) and Trainium2's (+10.8%) left the top of their charts."""
    steps = [x / 10 for x in range(-150, 151, 7)]
    for low, high in itertools.combinations(steps, 2):
        bottom, top = _pct_range([low, high])
        assert bottom <= min(low, 0.0) and top >= max(high, 0.0), (low, high, bottom, top)
        assert top - bottom >= MIN_SPAN
    assert _pct_range([-1.5, 6.4])[1] >= 6.4
