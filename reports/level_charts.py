"""The explorer's price history charts: each pricing model's cheapest price per chip-hour as a
step line on a price axis (logarithmic where the prices lie far apart), each line named at
its end, so that flat lines stay apart and each one's level can be read off the axis.

The weekly report's charts (chipcost.reports.charts) draw each line's move in % instead: there
a move is the news; here what a chip costs on each pricing model is."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date
from html import escape

from chipcost.reports.charts import COLOURS, OTHER_COLOUR, Series, step_path, svg_frame
from chipcost.reports.labels import money

WIDTH, HEIGHT = 420, 190
LEFT, RIGHT, TOP, BOTTOM = 52, 150, 24, 28  # room for prices, the lines' names, title, dates
# Past this ratio of the dearest price to the cheapest the axis is logarithmic: spot at a
# fifth of a capacity block would be a flat line at the bottom of a linear one.
LOG_RATIO = 3.0
TABLE_DECIMALS = 4  # as labels.money and the tables print a price per chip-hour
LABEL_GAP = 12  # pixels between two lines' names at the right edge
SAME_LINE_OFFSET = 3  # pixels between lines of the very same prices, each drawn beside the last


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Round prices (1, 2, 5 of each power of ten, more where that gives too few) in [lo, hi]."""
    for mantissas in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7)):
        ticks = [
            m * 10**k
            for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
            for m in mantissas
            if lo <= m * 10**k <= hi
        ]
        if len(ticks) >= 3:
            break
    return ticks


def linear_ticks(lo: float, hi: float, steps: int = 4) -> list[float]:
    """Evenly spaced round prices in [lo, hi], about `steps` steps (at most)."""
    raw = (hi - lo) / steps
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step)
    return [round(i * step, 10) for i in range(first, math.floor(hi / step) + 1)]


def _axis(prices: Sequence[float]) -> tuple[float, float, bool, list[float]]:
    """(lowest, highest, logarithmic, ticks) of an axis that holds every price with room."""
    low, high = min(prices), max(prices)
    low = max(low, 1e-6)  # a price is positive; a free one would have no place on a log axis
    if high <= low:
        low, high = low * 0.8, high * 1.25
    log = high / low >= LOG_RATIO
    if log:
        low, high = low / 1.15, high * 1.15
        return low, high, True, _log_ticks(low, high)
    pad = (high - low) * 0.15
    low, high = max(low - pad, 0.0), high + pad
    return low, high, False, linear_ticks(low, high)


def _y_scale(low: float, high: float, log: bool, size: float):
    def at(value: float) -> float:
        if log:
            share = math.log(max(value, low) / low) / math.log(high / low)
        else:
            share = (value - low) / (high - low)
        return round(size * (1 - share), 1)

    return at


def _price_text(value: float, ticks: Sequence[float]) -> str:
    """$0.80, $2.50, $0.125, $12, $1,200: each tick as it is, never rounded (a step of 0.025
    labelled in cents read $0.12 at 0.125)."""
    return f"${value:,.{tick_decimals(ticks)}f}"


def tick_decimals(ticks: Sequence[float]) -> int:
    """Cents, whole units from 10, or the fewest decimals that print every tick exactly, up
    to the tables' four (the report's axes and `chipcost history`'s)."""
    least = 0 if min(ticks, default=0.0) >= 10 else 2
    return next(
        (d for d in range(least, TABLE_DECIMALS + 1) if all(_exact(t, d) for t in ticks)),
        TABLE_DECIMALS,
    )


def _exact(value: float, decimals: int) -> bool:
    return abs(round(value, decimals) - value) < 1e-9


def _spread(wanted: list[float], gap: float, top: float, bottom: float) -> list[float]:
    """The names' heights: each as near its line's end as it can be, at least `gap` apart,
    inside [top, bottom] (given and returned in the order of `wanted`)."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed = [0.0] * len(wanted)
    floor = top
    for i in order:
        placed[i] = max(wanted[i], floor)
        floor = placed[i] + gap
    overflow = max(placed[order[-1]] - bottom, 0.0) if order else 0.0
    for i in order:  # pushed past the bottom: shift all up, as far as the top allows
        placed[i] = placed[i] - overflow
    return placed


def level_chart(series: Series, labels: Mapping[str, str], title: str) -> str:
    """An SVG of each series' price per chip-hour over the days, on a price axis in USD, each
    line named at its right end with its last price; empty string with no points."""
    prices = {k: sorted(v) for k, v in series.items() if v}
    if not prices:
        return ""
    days = [d for points in prices.values() for d, _ in points]
    first, last = min(days), max(days)
    low, high, log, ticks = _axis([p for points in prices.values() for _, p in points])
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    x_span = (last.toordinal() + 1 - first.toordinal()) or 1

    def x(ordinal: float) -> float:
        return round(inner_w * (ordinal - first.toordinal()) / x_span, 1)

    y = _y_scale(low, high, log, inner_h)
    scale = "USD per chip-hour" + (" (log scale)" if log else "")
    body = [f'<text x="-{LEFT - 2}" y="-10">{scale}</text>']
    for tick in ticks:
        py = y(tick)
        body.append(
            f'<line x1="0" x2="{inner_w}" y1="{py}" y2="{py}" stroke="#e5e7eb"/>'
            f'<text x="-6" y="{py + 4}" text-anchor="end">{escape(_price_text(tick, ticks))}</text>'
        )
    body += [
        f'<text x="0" y="{inner_h + 18}">{first.isoformat()}</text>',
        f'<text x="{inner_w}" y="{inner_h + 18}" text-anchor="end">{last.isoformat()}</text>',
    ]
    body += _lines(prices, labels, x, y, inner_w, inner_h)
    return svg_frame(title, "".join(body), (WIDTH, HEIGHT), (LEFT, TOP))


def _lines(
    prices: Mapping[str, Sequence[tuple[date, float]]],
    labels: Mapping[str, str],
    x,
    y,
    inner_w: float,
    inner_h: float,
) -> list[str]:
    """Each series' step line and its name at the right edge, a leader where the name moved."""
    seen: dict[tuple[float, ...], int] = {}
    ends, out = [], []
    for key, points in prices.items():
        colour = COLOURS.get(key, OTHER_COLOUR)
        # Two lines of the very same prices are drawn side by side, not one over the other.
        same = seen.get(shape := tuple(p for _, p in points), 0)
        seen[shape] = same + 1
        offset = same * SAME_LINE_OFFSET

        def shifted(value: float, offset: float = offset) -> float:
            return round(y(value) + offset, 1)

        label, (day, price) = labels.get(key, key), points[-1]
        out.append(
            f'<path d="{step_path(points, x, shifted)}" fill="none" stroke="{colour}" '
            f'stroke-width="2"><title>{escape(label)}: {escape(money(price))} per chip-hour on '
            f"{day.isoformat()}</title></path>"
        )
        # Its last price as the tables print it (four decimals), not a rounder one.
        ends.append((shifted(price), colour, f"{label} {money(price)}"))
    placed = _spread([e[0] for e in ends], LABEL_GAP, 0.0, inner_h)
    for (end, colour, text), at in zip(ends, placed, strict=True):
        out.append(
            f'<path d="M{inner_w},{end}L{inner_w + 6},{at}" stroke="{colour}" fill="none"/>'
            f'<text x="{inner_w + 8}" y="{at + 4}" style="fill:{colour}">{escape(text)}</text>'
        )
    return out
