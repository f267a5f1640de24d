"""Terminal charts' axes on round values printed exactly (plotext's own ticks fall at the
range's fifths: 5.37, 4.80, 4.23, each a rounding of where it stands)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# About one tick every 3 rows of a 20-row plot, or every 15 columns of an 80-column one.
STEPS = 6


def round_ticks(values: Sequence[float], steps: int = STEPS) -> tuple[float, float, list, list]:
    """(low, high, ticks, labels) of an axis holding `values` with a little room: round ticks
    (reports.level_charts', as the report's and the explorer's charts), each label its value
    printed exactly."""
    from chipcost.reports.level_charts import linear_ticks, tick_decimals

    low, high = min(values), max(values)
    pad = (high - low) * 0.05 or max(abs(high) * 0.05, 0.01)
    low, high = low - pad, high + pad
    ticks = linear_ticks(max(low, 0.0) if min(values) >= 0 else low, high, steps=steps)
    ticks = ticks or [round(values[0], 4)]
    decimals = tick_decimals(ticks)
    return low, high, ticks, [f"{tick:,.{decimals}f}" for tick in ticks]


def round_y_axis(plt: Any, values: Sequence[float]) -> None:
    """plotext's y axis on round ticks (`plt`: the plotext module)."""
    low, high, ticks, labels = round_ticks(values)
    plt.ylim(low, high)
    plt.yticks(ticks, labels)


def round_x_axis(plt: Any, values: Sequence[float]) -> None:
    """plotext's x axis on round ticks."""
    low, high, ticks, labels = round_ticks(values)
    plt.xlim(low, high)
    plt.xticks(ticks, labels)
