"""The explorer's history charts (chipcost.reports.level_charts): a price axis, and flat lines
that stay apart, each named at its end."""

from __future__ import annotations

import re
from datetime import date, timedelta

from chipcost.reports.labels import MODEL_LABELS
from chipcost.reports.level_charts import LABEL_GAP, SAME_LINE_OFFSET, level_chart

DAYS = [date(2026, 11, 14) + timedelta(days=i) for i in range(7)]


def flat(price: float) -> list[tuple[date, float]]:
    return [(d, price) for d in DAYS]


def line_heights(svg: str) -> dict[str, float]:
    """Each named line's height (its path's first point), by its name's first words."""
    paths = re.findall(r'<path d="M[\d.]+,([\d.]+)[^"]*"[^>]*><title>([^:]+):', svg)
    return {name: float(y) for y, name in paths}


def name_heights(svg: str) -> list[float]:
    return [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)" style="fill:', svg)]


def test_flat_lines_at_their_prices_stay_apart_and_are_named():
    # The sample's MI300X: four pricing models, each a flat line all along.
    series = {"on_demand": flat(1.74944), "reserved": flat(2.550647),
              "savings_plan": flat(2.88625), "spot": flat(0.95)}  # fmt: skip
    svg = level_chart(series, MODEL_LABELS, "MI300X")
    heights = line_heights(svg)
    assert len(set(heights.values())) == 4, heights
    # Dearer is higher (smaller y), on the axis the ticks name in dollars.
    assert heights["savings plan"] < heights["reserved"] < heights["on demand"] < heights["spot"]
    assert "USD per chip-hour (log scale)" in svg  # spot at a third of the savings plan
    assert {"$1.00", "$2.00"} <= set(re.findall(r">(\$[\d.,]+)<", svg))
    # Each line's last price as the tables print it (four decimals; two until issue 74).
    for name in ("on demand $1.7494", "reserved $2.5506", "savings plan $2.8862", "spot $0.9500"):
        assert f">{name}<" in svg
    names = sorted(name_heights(svg))
    assert all(b - a >= LABEL_GAP - 0.01 for a, b in zip(names, names[1:], strict=False))


def test_lines_of_the_same_prices_are_drawn_side_by_side():
    svg = level_chart({"on_demand": flat(2.0), "commitment": flat(2.0)}, MODEL_LABELS, "x")
    heights = line_heights(svg)
    assert abs(heights["on demand"] - heights["commitment"]) == SAME_LINE_OFFSET
    assert "(log scale)" not in svg  # prices close together: a linear axis


def test_no_points_no_chart():
    assert level_chart({"spot": []}, MODEL_LABELS, "x") == ""


def tick_labels(svg: str) -> list[str]:
    """The price axis's labels, bottom to top (each beside its grid line)."""
    return re.findall(r'<line x1="0" [^>]*/><text x="-6" [^>]*>(\$[\d.,]+)</text>', svg)


def test_each_tick_prints_its_value_exactly():
    """On 697f5e5 the explorer's A10 axis read $0.10, $0.12, $0.15, $0.17: ticks 0.025 apart
    labelled in cents, 0.125 and 0.175 rounded."""
    svg = level_chart({"on_demand": flat(0.10), "spot": flat(0.17)}, MODEL_LABELS, "A10")
    labels = tick_labels(svg)
    assert labels == ["$0.100", "$0.125", "$0.150", "$0.175"]
    ticks = [float(label.removeprefix("$")) for label in labels]
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert steps == {0.025}  # evenly spaced: a label is the value its line stands at


def test_ticks_in_cents_and_dollars_stay_as_they_were():
    assert tick_labels(level_chart({"spot": flat(2.0), "on_demand": flat(2.7)}, {}, "x")) == [
        "$2.00", "$2.25", "$2.50", "$2.75",
    ]  # fmt: skip
    assert tick_labels(level_chart({"spot": flat(12.0), "on_demand": flat(30.0)}, {}, "x")) == [
        "$10", "$20", "$30",
    ]  # fmt: skip
