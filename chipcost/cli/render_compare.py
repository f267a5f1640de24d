"""Terminal output of `chipcost compare`: one line per pricing model, then the figures."""

from __future__ import annotations

from chipcost.cli.consoles import Screen
from chipcost.cli.render import shown
from chipcost.cli.render_cost import figure_point, print_footer
from chipcost.cli.render_prices import ESTIMATE_MARK, estimate_note
from chipcost.core.figures import speed_label
from chipcost.pipeline.compare import CompareResult, Comparison
from chipcost.pipeline.verdict import figure_kind, is_derived
from chipcost.transform.cost import money_sign
from chipcost.transform.tokens import change_words


def _offer(row: dict, per_token: bool = True) -> str:
    """'aws us-east-1 $4.1624/chip-hr, $0.30/M tokens' (est. where the price is an estimate);
    no cost per token where the chip has no figure at the point the answer rests on."""
    sign = money_sign(str(row.get("currency") or "USD"))
    mark = f" (your discount {row['discount']})" if row.get("discount") else ""
    est = ESTIMATE_MARK if row.get("estimate") else ""
    cost = f", {sign}{float(row['usd_per_million_tokens']):,.4f}/M tokens" if per_token else ""
    return (
        f"{row['provider']} {row['region']} {row['instance_type']} "
        f"{sign}{float(row['price_per_chip_hour']):,.4f}/chip-hr{est}{cost}{mark}"
    )


def _range(line: Comparison) -> str:
    """The point both figures are at, and the range every figure there allows."""
    judged = line.verdict
    if not judged.matched:
        return ""
    at = f" (both measured at {judged.point}"
    if line.best is None or line.worst is None:
        return at + "; one figure each there: no range)"
    best, worst = change_words(line.best), change_words(line.worst)
    return at + f"; range over every figure there: {best} to {worst})"


def _precision(row: dict) -> str:
    return str(row.get("precision") or "precision not stated").upper()


def _figure(row: dict) -> str:
    return (
        f"{row['throughput_id']}: {figure_kind(row)}, {_precision(row)}, "
        f"{float(row['tokens_per_second_per_chip']):,.1f} tok/s per chip{_band(row)}"
        f"{figure_point(row)}; {row['throughput_source']} ({row['throughput_source_date']})"
    )


def _elsewhere(rows: list[dict]) -> str:
    """'measured at other points: neuron-...: 2.3 tok/s per chip (latency-bound, 51 tok/s per
    user); ...' (the first three, and how many more)."""
    said = []
    for row in rows[:3]:
        point = str(row.get("operating_point") or "point not stated")
        if row.get("tokens_per_second_per_user"):
            point += f", {float(row['tokens_per_second_per_user']):g} tok/s per user"
        said.append(f"{row['throughput_id']}: {float(row['tokens_per_second_per_chip']):,.1f} "
                    f"tok/s per chip ({point})")  # fmt: skip
    more = f"; and {len(rows) - 3} more (chipcost throughput list)" if len(rows) > 3 else ""
    return "measured at other points: " + "; ".join(said) + more


def _band(row: dict) -> str:
    low, high = row.get("throughput_range_low"), row.get("throughput_range_high")
    if low is None or high is None:
        return ""
    return f" (range {float(low):,.0f}-{float(high):,.0f}, the derivation's error)"


def _evidence(row: dict) -> str:
    """'its figure: measured 3,819' or 'its figure: calibrated 950, range 600-1,400'."""
    tps = f"{float(row['tokens_per_second_per_chip']):,.0f}"
    return f"{figure_kind(row)} {tps}{_band(row)}"


def _break_even(result: CompareResult, line: Comparison) -> str:
    judged = line.verdict
    chips = {"a": result.chip_a, "b": result.chip_b}
    needs, other = chips[judged.needs], chips["b" if judged.needs == "a" else "a"]
    mine, theirs = (line.a, line.b) if judged.needs == "a" else (line.b, line.a)
    return (
        f"    break-even: {needs} must do {judged.break_even:,.0f} tok/s per chip "
        f"({judged.share:.0%} of {other}'s {float(theirs['tokens_per_second_per_chip']):,.0f},"
        f" {_evidence(theirs)}) to cost as little per token; {needs}'s figure: "
        f"{_evidence(mine)}"
    )


def _say_under(console: Screen, text: str) -> None:
    """An indented line of the comparison; too long for the width, it goes on two spaces
    further in, under itself, not at the left margin among the verdicts."""
    indent = " " * (len(text) - len(text.lstrip(" ")) + 2)
    console.say(shown(text), indent=indent)


def print_comparison(console: Screen, result: CompareResult) -> None:
    header = result.ranking.header
    at = f", {speed_label(str(header['speed']))}" if header.get("speed") else ""
    console.say(
        f"{result.chip_a} against {result.chip_b}: {header['model']} {header['workload']}{at}",
    )
    for line in result.lines:
        where = "same provider" if line.same_provider else "each chip's cheapest offer"
        off = [str(r["chip"]) for r in (line.a, line.b) if r.get("throughput_at_speed") is False]
        caveat = f" (not at the asked speed: {', '.join(off)})" if off else ""
        console.say(
            shown(
                f"{line.pricing}: {line.sentence(result.chip_a, result.chip_b)}"
                f"{_range(line)}{caveat}"
            ),
        )
        judged = line.verdict
        if judged.matched:
            _say_under(console, _break_even(result, line))
        a_cost = judged.matched or judged.anchor == "a"
        b_cost = judged.matched or judged.anchor == "b"
        _say_under(console, f"    {result.chip_a} {_offer(line.a, a_cost)}")
        _say_under(console, f"    {result.chip_b} {_offer(line.b, b_cost)} ({where})")
    used = {}
    for line in result.lines:
        for row in (line.a, line.b):
            used.setdefault(str(row["chip"]), row)
    precisions = " against ".join(f"{chip} {_precision(row)}" for chip, row in used.items())
    console.say(f"figures used ({precisions}):")
    for chip, row in used.items():
        held = len(result.figures.get(chip, []))
        count = f"{held} published figure(s) at this speed" if held else "none published here"
        _say_under(console, f"  {chip}: {_figure(row)} ({count})")
        if is_derived(row) and result.elsewhere.get(chip):
            _say_under(console, f"    {_elsewhere(result.elsewhere[chip])}")
    offers = [row for line in result.lines for row in (line.a, line.b)]
    notes = [*result.notes, *filter(None, [estimate_note(offers)])]
    print_footer(console, notes, result.ranking.freshness)
