"""Price history charts as hand-built SVG: one step line per pricing model, no library.

Each line is drawn as its move since its first day (%), not as a price from $0: the models'
prices lie far apart (spot at a fifth of a capacity block), so on a price axis a 10% move is
a flat line. The axis says it is a change in %, each line's legend its last price."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from html import escape

import polars as pl

from chipcost.core.vocabulary import MODEL_COLOURS
from chipcost.reports.labels import MODEL_LABELS, money, signed_pct

# One colour per pricing model (core/vocabulary.py), the same in the report and the explorer.
COLOURS = MODEL_COLOURS
OTHER_COLOUR = "#6b7280"
WIDTH, HEIGHT = 400, 172
LEFT, RIGHT, TOP, BOTTOM = 44, 176, 22, 28  # room for % labels, the legend, axis title, dates
# Within this many pixels all along, a line drawn later lies over an earlier one: the legend
# says the earlier one is under it (its edge, a pixel or less, is no way to read it).
COVERED_PX = 1.0
TICKS = 4
LEGEND_DESCENT = 5  # pixels below a legend entry's baseline its 11px text may reach
# The least span of the % axis: a 0.3% wobble must not fill the chart as a crash would.
MIN_SPAN = 5.0

Series = Mapping[str, Sequence[tuple[date, float]]]
# A chart of series: (series, each one's label, the chart's title) -> SVG.
Chart = Callable[[Series, Mapping[str, str], str], str]


def _scale(lo: float, hi: float, size: float, flip: bool = False):
    span = (hi - lo) or 1.0

    def at(value: float) -> float:
        share = (value - lo) / span
        return round(size * (1 - share if flip else share), 1)

    return at


def step_path(points: Sequence[tuple[date, float]], x, y) -> str:
    """A step line: a price holds until the day it changes (no slope between prices), and
    each day's price spans that day, the last one's too (a change on the last day shows)."""
    parts = []
    for i, (day, price) in enumerate(points):
        px, py = x(day.toordinal()), y(price)
        if i == 0:
            parts.append(f"M{px},{py}")
        else:
            parts.append(f"H{px}V{py}")
    parts.append(f"H{x(points[-1][0].toordinal() + 1)}")
    return "".join(parts)


def _axes(lo: float, hi: float, first: date, last: date, y, x) -> list[str]:
    inner_w = WIDTH - LEFT - RIGHT
    out = [f'<text x="-{LEFT - 2}" y="-9">change since {first.isoformat()}</text>']
    for i in range(TICKS + 1):
        value = lo + (hi - lo) * i / TICKS
        py = y(value)
        out.append(
            f'<line x1="0" x2="{inner_w}" y1="{py}" y2="{py}" stroke="#e5e7eb" stroke-width="1"/>'
            f'<text x="-6" y="{py + 4}" text-anchor="end">{escape(signed_pct(value))}</text>'
        )
    if lo < 0 < hi:  # no change: the line each move is read from
        py = y(0.0)
        out.append(f'<line x1="0" x2="{inner_w}" y1="{py}" y2="{py}" stroke="#9ca3af"/>')
    inner_h = HEIGHT - TOP - BOTTOM
    # The first day's label where it starts, the last's where it ends (the right edge).
    for day, at, anchor in (
        (first, first.toordinal(), "start"),
        (last, last.toordinal() + 1, "end"),
    ):
        out.append(
            f'<text x="{x(at)}" y="{inner_h + 18}" text-anchor="{anchor}">{day.isoformat()}</text>'
        )
    return out


def _moves(points: Sequence[tuple[date, float]]) -> list[tuple[date, float]]:
    """Each day's price as its % change from the line's first price."""
    start = points[0][1]
    return [(day, (price / start - 1) * 100 if start else 0.0) for day, price in points]


def _pct_range(moves: Sequence[float]) -> tuple[float, float]:
    """The axis: every move in view, 0% on it, at least MIN_SPAN points tall, on whole ticks."""
    lo, hi = min(0.0, *moves), max(0.0, *moves)
    if hi - lo < MIN_SPAN:
        pad = (MIN_SPAN - (hi - lo)) / 2
        lo, hi = lo - pad, hi + pad
    step = math.ceil((hi - lo) / TICKS)  # whole percent per tick
    while True:  # flooring the bottom to a tick may leave the top move above the last tick
        bottom = math.floor(lo / step) * step
        if bottom + step * TICKS >= hi:
            return float(bottom), float(bottom + step * TICKS)
        step += 1


def price_chart(series: Series, labels: Mapping[str, str], title: str) -> str:
    """An SVG of each series' daily move (% since its first day; the legend says its last
    USD per chip-hour); empty string with no points."""
    prices = {k: sorted(v) for k, v in series.items() if v}
    if not prices:
        return ""
    drawn = {k: _moves(v) for k, v in prices.items()}
    days = [d for points in drawn.values() for d, _ in points]
    first, last = min(days), max(days)
    lo, hi = _pct_range([m for points in drawn.values() for _, m in points])
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    x = _scale(first.toordinal(), last.toordinal() + 1, inner_w)  # the last day ends the axis
    y = _scale(lo, hi, inner_h, flip=True)
    body = _axes(lo, hi, first, last, y, x)
    under = _covered(drawn, y)
    legend, ly = [], 4
    for i, (key, points) in enumerate(drawn.items()):
        colour = COLOURS.get(key, OTHER_COLOUR)
        label, (day, price) = labels.get(key, key), prices[key][-1]
        # Lines that moved alike lie on each other: each drawn thinner than the one under
        # it, so the one below shows as an edge; the legend says which is under which.
        width = 2 + round(2.5 * (len(drawn) - 1 - i) / max(len(drawn) - 1, 1), 1)
        body.append(
            f'<path d="{step_path(points, x, y)}" fill="none" stroke="{colour}" '
            f'stroke-width="{width:g}">'
            f"<title>{escape(label)}: {escape(money(price))} on {day.isoformat()} "
            f"({escape(signed_pct(points[-1][1]))} since {first.isoformat()})</title></path>"
        )
        # Its last price as the tables print it (four decimals).
        legend.append(
            f'<rect x="{inner_w + 10}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{inner_w + 24}" y="{ly}">{escape(label)} {escape(money(price))}</text>'
        )
        if key in under:
            cover = labels.get(under[key], under[key])
            legend.append(
                f'<text x="{inner_w + 24}" y="{ly + 11}" font-size="10">'
                f"hidden under {escape(cover)}</text>"
            )
            ly += 11
        ly += 16
    # Every line named: a legend longer than the plot makes the chart taller (the last
    # baseline, less the step to the next entry, and a descender's room).
    height = max(HEIGHT, TOP + ly - 16 + LEGEND_DESCENT)
    return svg_frame(title, "".join(body) + "".join(legend), (WIDTH, height), (LEFT, TOP))


def _covered(drawn: Mapping[str, Sequence[tuple[date, float]]], y) -> dict[str, str]:
    """Each line another drawn after it lies on all along (within COVERED_PX every day it
    has), and the topmost such line: what the reader sees in its place."""
    at = {key: {day: y(move) for day, move in points} for key, points in drawn.items()}
    keys = list(drawn)
    under = {}
    for i, key in enumerate(keys):
        for later in reversed(keys[i + 1 :]):
            days = at[key]
            if all(
                day in at[later] and abs(at[later][day] - py) <= COVERED_PX
                for day, py in days.items()
            ):
                under[key] = later
                break
    return under


def svg_frame(title: str, inner: str, size: tuple[int, int], offset: tuple[int, int]) -> str:
    """A chart's SVG: its title, then `inner` drawn from `offset` (the plot's top left)."""
    (width, height), (left, top) = size, offset
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title, quote=True)}" '
        # Narrower on a phone: the viewBox scales it down rather than widen the page.
        'style="font-family:system-ui,sans-serif;font-size:11px;fill:#374151;'
        'max-width:100%;height:auto">'
        f"<title>{escape(title)}</title>"
        f'<g transform="translate({left},{top})">{inner}</g></svg>'
    )


def chip_charts(history: pl.DataFrame, draw: Chart | None = None) -> dict[str, str]:
    """Chip -> its chart, from warehouse.history.daily_cheapest rows (one line per model),
    drawn by `draw` (price_chart, each line's move in %, unless told)."""
    charts = {}
    for (chip,), rows in history.sort("chip", "day").group_by("chip", maintain_order=True):
        series = {
            model: list(
                zip(part["day"].to_list(), part["price_per_chip_hour"].to_list(), strict=True)
            )
            for (model,), part in rows.group_by("pricing_model", maintain_order=True)
        }
        ordered = {m: series[m] for m in sorted(series, key=_model_order)}
        title = f"{chip}: cheapest USD per chip-hour by pricing model"
        charts[chip] = (draw or price_chart)(ordered, MODEL_LABELS, title)
    return charts


def _model_order(model: str) -> int:
    order = list(COLOURS)
    return order.index(model) if model in order else len(order)
