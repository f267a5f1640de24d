"""The head-to-head section's two charts as hand-built SVG (the report and the explorer):
each answered pair's cost per million tokens, point and range, published and derived figures
told apart; and throughput per chip against per-user speed, as InferenceMAX draws it.

Both are drawn in a 360-unit-wide box scaled to the page's width, so that they read on a
390-pixel phone as on a desktop; text is 11 units, nothing is told by colour alone (a
published figure is a filled dot, a derived one a hollow dot or a dashed line).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from html import escape

from chipcost.transform.cost import cost_text
from chipcost.transform.rows import number

WIDTH = 360
LEFT, RIGHT = 8, 8
FONT = ""  # the font is set once on the <svg> (inherited): the report stays small
# one colour per chip of chipcost.reads.articles.CURVE_CHIPS (and a grey for any other)
CHIP_COLOURS = {
    "H100-SXM": "#2563eb", "H200": "#7c3aed", "B200": "#0891b2", "MI300X": "#dc2626",
    "Trainium2": "#d97706", "TPU-v6e": "#16a34a",
}  # fmt: skip
OTHER = "#6b7280"
PUBLISHED = ("benchmark", "measured", "independent", "vendor-claim", "estimate")


def _svg(height: float, body: str, title: str) -> str:
    return (
        f'<svg class="versus-chart" viewBox="0 0 {WIDTH} {height:.0f}" width="100%" '
        'role="img" style="max-width:720px;height:auto" '
        'font-size="11" font-family="system-ui, sans-serif" stroke-width="1.6">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )


def _log_scale(lo: float, hi: float, start: float, end: float):
    lo, hi = math.log10(lo), math.log10(hi)
    span = (hi - lo) or 1.0
    return lambda v: round(start + (math.log10(v) - lo) / span * (end - start), 1)


def _dot(x: float, y: float, colour: str, published: bool) -> str:
    fill = colour if published else "white"
    return f'<circle cx="{x:.0f}" cy="{y:.0f}" r="4" fill="{fill}" stroke="{colour}"/>'


LABEL = 132  # the chips' names and costs on the left, the ranges to the right of them


def charted(answer: Mapping[str, object]) -> bool:
    """Whether cost_chart draws this pair: an answered inference pair with its ranges (the
    question the ranges answer; training's derivation has no measured error yet)."""
    return (
        answer.get("answer") is not None
        and bool(answer.get("a_cost_low"))
        and answer.get("workload") == "inference"
    )


def pair_anchor(answer: Mapping[str, object]) -> str:
    """The id of a pair's band in cost_chart, what the e-mail links to:
    'versus-trainium2-h100-sxm-inference'."""
    words = (answer["chip_a"], answer["chip_b"], answer["workload"])
    slugs = (re.sub(r"[^a-z0-9]+", "-", str(w).lower()).strip("-") for w in words)
    return "versus-" + "-".join(slugs)


def cost_chart(answers: Sequence[Mapping[str, object]]) -> str:
    """One band per answered inference pair (charted): A's and B's USD per million tokens on a
    log axis, each a dot (filled: published figure; hollow: derived or calibrated) on its
    range; each band a group whose id is pair_anchor."""
    rows = [a for a in answers if charted(a)]
    if not rows:
        return ""
    keys = ("a_cost_low", "a_cost_high", "b_cost_low", "b_cost_high")
    values = [number(a[k]) for a in rows for k in keys]
    lo, hi = min(values) / 1.3, max(values) * 1.3
    x = _log_scale(lo, hi, LABEL + 6, WIDTH - RIGHT - 6)
    parts, y = [], 14.0
    for a in rows:
        label = f"{a['chip_a']} vs {a['chip_b']}: {a['verdict'] or ''}"
        parts.append(f'<g id="{pair_anchor(a)}">')
        parts.append(f'<text x="{LEFT}" y="{y:.0f}" font-weight="600">{escape(label)}</text>')
        for n, side in enumerate(("a", "b")):
            chip = str(a[f"chip_{side}"])
            colour = CHIP_COLOURS.get(chip, OTHER)
            cy = y + 13 + 12 * n
            low, high = number(a[f"{side}_cost_low"]), number(a[f"{side}_cost_high"])
            point = number(a[f"{side}_usd_per_million_tokens"])
            published = a[f"{side}_kind"] in PUBLISHED
            parts.append(
                # As the tables print a cost per million tokens: $0.0902, not $0.09.
                f'<text x="{LEFT}" y="{cy + 4}">{escape(chip)} {cost_text(point)}</text>'
                f'<line x1="{x(low)}" x2="{x(high)}" y1="{cy}" y2="{cy}" stroke="{colour}" '
                f'stroke-width="2"/>{_dot(x(point), cy, colour, published)}'
            )
        parts.append("</g>")
        y += 46
    parts.append(_cost_axis(x, lo, hi, y))
    title = "Inference: cost per million tokens of each pair compared, with each figure's range"
    return _svg(y + 50, "".join(parts), title)


def _cost_axis(x, lo: float, hi: float, y: float) -> str:
    ticks = [t for t in (0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300) if lo <= t <= hi]
    marks = "".join(
        f'<line x1="{x(t)}" x2="{x(t)}" y1="{y - 6}" y2="{y}" stroke="#9ca3af"/>'
        f'<text x="{x(t)}" y="{y + 12}" text-anchor="middle">${t:g}</text>'
        for t in ticks
    )
    key = (
        f'<text x="{LEFT}" y="{y + 12}">USD per M tokens (log)</text>'
        f'<text x="{LEFT}" y="{y + 28}">Filled: published figure; hollow: derived or '
        "calibrated</text>"
        f'<text x="{LEFT}" y="{y + 42}">(line: its range, the derivation\'s error)</text>'
    )
    axis = f'<line x1="{LABEL}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}" stroke="#9ca3af"/>'
    return axis + marks + key


def speed_chart(points: Sequence[Mapping[str, object]]) -> str:
    """Tokens/s per chip against tokens/s per user: published figures as filled dots, the
    derived (calibrated) curve dashed; maximum throughput drawn at the left edge."""
    if not points:
        return ""
    top_y, bottom_y, left = 12.0, 210.0, LEFT + 34
    most_x = max([number(p["tokens_per_second_per_user"] or 0) for p in points] + [10.0])
    most_x = min(most_x, 120.0)
    most_y = max(number(p["tokens_per_second_per_chip"]) for p in points) * 1.1

    def x(user: object) -> float:
        return round(left + min(number(user or 0), most_x) / most_x * (WIDTH - RIGHT - left), 1)

    def y(tps: object) -> float:
        return round(bottom_y - number(tps) / most_y * (bottom_y - top_y), 1)

    parts = [_speed_axes(x, y, most_x, most_y, top_y, bottom_y, left)]
    chips = sorted({str(p["chip"]) for p in points}, key=list(CHIP_COLOURS).index)
    for chip in chips:
        colour = CHIP_COLOURS.get(chip, OTHER)
        mine = [p for p in points if p["chip"] == chip]
        curve = [p for p in mine if p["kind"] == "derived"]
        line = " ".join(
            f"{x(p['tokens_per_second_per_user']):.0f},{y(p['tokens_per_second_per_chip']):.0f}"
            for p in curve
        )
        if line:
            parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" '
                         'stroke-width="1.5" stroke-dasharray="4 3"/>')  # fmt: skip
        # one dot per 8-unit spot (a round's near-equal results would repeat it), the chip's
        # colour set once on their group
        spots = {
            (8 * round(x(p["tokens_per_second_per_user"]) / 8),
             8 * round(y(p["tokens_per_second_per_chip"]) / 8))
            for p in _frontier([p for p in mine if p["kind"] != "derived"])
        }  # fmt: skip
        dots = "".join(f'<circle cx="{cx}" cy="{cy}" r="4"/>' for cx, cy in sorted(spots))
        parts.append(f'<g fill="{colour}" stroke="{colour}">{dots}</g>')
    parts.append(_speed_legend(chips, bottom_y + 46))
    title = "Tokens per second per chip against tokens per second per user, Llama 3 70B"
    return _svg(bottom_y + 46 + 14 * ((len(chips) + 2) // 3) + 34, "".join(parts), title)


def _frontier(points: Sequence[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """A chip's published points that no other of its points beats on both axes (more tokens/s
    per chip at as many or more per user): the frontier a chip's figure is read from, as
    InferenceX draws it; the configurations under it say nothing the answer uses."""

    def at(p: Mapping[str, object]) -> tuple[float, float]:
        return number(p["tokens_per_second_per_user"] or 0), number(p["tokens_per_second_per_chip"])

    kept, best = [], -1.0
    for p in sorted(points, key=lambda p: (-at(p)[0], -at(p)[1])):  # fastest per user first
        if at(p)[1] > best:
            kept.append(p)
            best = at(p)[1]
    return kept


def _speed_axes(x, y, most_x: float, most_y: float, top: float, bottom: float, left: float) -> str:
    step = 10 ** math.floor(math.log10(most_y / 2))
    step *= 2 if most_y / step > 8 else 1
    ys = [step * n for n in range(int(most_y // step) + 1)]
    grid = "".join(
        f'<line x1="{left}" x2="{WIDTH - RIGHT}" y1="{y(v)}" y2="{y(v)}" stroke="#e5e7eb"/>'
        f'<text x="{left - 4}" y="{y(v) + 4}" text-anchor="end">{v:,.0f}</text>'
        for v in ys
    )
    xs = [0, *range(25, int(most_x) + 1, 25)]
    ticks = "".join(
        f'<text x="{x(v)}" y="{bottom + 13}" text-anchor="middle">{"max" if v == 0 else v}</text>'
        for v in xs
    )
    return (
        f'{grid}<line x1="{left}" x2="{WIDTH - RIGHT}" y1="{bottom}" y2="{bottom}" '
        f'stroke="#9ca3af"/>{ticks}<text x="{WIDTH - RIGHT}" y="{bottom + 26}" '
        'text-anchor="end">tokens/s per user (max: maximum throughput)</text>'
        f'<text x="{LEFT}" y="{top - 2}">tokens/s per chip</text>'
    )


def _speed_legend(chips: Sequence[str], y: float) -> str:
    parts = []
    for n, chip in enumerate(chips):
        cx, cy = LEFT + 6 + (n % 3) * 118, y + 14 * (n // 3)
        parts.append(f"{_dot(cx, cy - 4, CHIP_COLOURS.get(chip, OTHER), True)}"
                     f'<text x="{cx + 8}" y="{cy}">{escape(chip)}</text>')  # fmt: skip
    rows = (len(chips) + 2) // 3
    parts.append(
        f'<text x="{LEFT}" y="{y + 14 * rows + 4}">Dots: published figures; dashed: the '
        "derivation,</text>"
        f'<text x="{LEFT}" y="{y + 14 * rows + 18}">calibrated where the chip has '
        "figures</text>"
    )
    return "".join(parts)
