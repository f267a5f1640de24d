"""`chipcost compare --chart`: cost per million tokens against tokens/s per user for both chips
on one pricing model, along the curves their figures belong to (plotext, in the terminal).

Each measured chip's curve is drawn point by point (its price over each point's throughput);
where a chip has no figure at the other's point, the other's curve is its break-even (it must
cost no more per token there), and its derived estimate at the asked speed is drawn as the
cost range it would give."""

from __future__ import annotations

from collections.abc import Iterable

from chipcost.cli.consoles import Screen
from chipcost.core.vocabulary import code_words
from chipcost.reads.compare import CompareResult
from chipcost.transform.comparison import Comparison
from chipcost.transform.rows import CostRow, FigureRow
from chipcost.transform.verdict import cost_at

CHART_HEIGHT = 18
MARKS = {"a": "●", "b": "○", "estimate": "x"}


def _curve(result: CompareResult, row: CostRow) -> list[tuple[float, float]]:
    """(tokens/s per user, $/M tokens) of each measured point of the curve `row`'s figure
    belongs to, at `row`'s price; [] for a figure on no curve (derived, or without a speed)."""
    evidence = result.ranking.evidence
    if evidence is None:
        return []
    figures = {str(r["throughput_id"]): r for r in evidence.rows}
    figure = figures.get(str(row.get("throughput_id") or "").split("@")[0])
    if figure is None or figure.get("origin") == "derived":
        return []
    points = _at_speed(
        r for r in evidence.rows
        if r.get("curve") == figure.get("curve") and not r.get("interpolated") and r.get("usable")
    )  # fmt: skip
    if not points:
        points = _at_speed([figure])
    return sorted((user, cost_at(row, tps)) for user, tps in points)


def _at_speed(figures: Iterable[FigureRow]) -> list[tuple[float, float]]:
    """(tokens/s per user, tokens/s per chip) of the figures measured at a per-user speed."""
    return [
        (user, r["tokens_per_second_per_chip"])
        for r in figures
        if (user := r.get("tokens_per_second_per_user"))
    ]


def chart(result: CompareResult, line: Comparison, width: int, colour: bool) -> tuple[str, str]:
    """The plot and its legend for one pricing model's answer."""
    import plotext as plt

    judged = line.verdict
    chips = {"a": result.chip_a, "b": result.chip_b}
    series = {side: _curve(result, row) for side, row in (("a", line.a), ("b", line.b))}
    keys = []
    plt.clear_figure()
    for side in ("b", "a"):
        if not series[side]:
            continue
        xs, ys = zip(*series[side], strict=True)
        plt.plot(list(xs), list(ys), marker=MARKS[side])
        said = f"{MARKS[side]} {chips[side]} measured"
        if not judged.matched and judged.anchor == side:
            said += f" (= {chips[judged.needs]}'s break-even: it must cost no more per token)"
        keys.append(said)
    speed = str(result.ranking.header.get("speed") or "")
    found = judged.estimate
    if found is not None and found.band and speed not in ("", "max"):
        needs = line.a if judged.needs == "a" else line.b
        low, high = found.band
        at = float(speed)
        plt.scatter([at, at], [cost_at(needs, high), cost_at(needs, low)], marker=MARKS["estimate"])
        keys.append(
            f"{MARKS['estimate']} {chips[judged.needs]}'s derived estimate at {speed} tok/s per "
            "user (its error band), not a measurement"
        )
    if not keys:
        return "", ""
    from chipcost.cli.plot_axes import round_x_axis, round_y_axis

    points = [point for side in ("a", "b") for point in series[side]]
    if found is not None and found.band and speed not in ("", "max"):
        points += [(float(speed), cost_at(needs, bound)) for bound in found.band]
    round_x_axis(plt, [x for x, _ in points])
    round_y_axis(plt, [y for _, y in points])
    plt.plotsize(width, CHART_HEIGHT)
    plt.title(f"{code_words(line.pricing)}: $ per million tokens against tokens/s per user")
    plt.xlabel("tokens/s per user")
    plt.theme("clear")
    text = plt.build()
    return (text if colour else plt.uncolorize(text)), "\n".join(f"    {k}" for k in keys)


def print_chart(console: Screen, result: CompareResult) -> None:
    """The first pricing model's chart (on demand where both have it), or one line saying why
    there is none (no curve to draw: training, or only derived figures)."""
    line = result.lines[0]
    width = min(console.width or 100, 120)
    colour = console.styled and not console.no_color
    text, keys = chart(result, line, width, colour)
    if not text:
        console.say(
            f"no chart: neither {result.chip_a} nor {result.chip_b} has a measured curve at this "
            "point (derived figures and training runs are points, not curves)"
        )
        return
    console.line(text)
    console.say(keys)
    if len(result.lines) > 1:
        console.say(f"    (charted: {code_words(line.pricing)}; --pricing-model charts another)")
