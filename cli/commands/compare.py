"""`chipcost compare A B`: is chip A cheaper per token than chip B, on each pricing model.
Its options are the fields of chipcost.core.asks.COMPARE; the question is
chipcost.reads.compare's (answered through chipcost.reads.answers, as the Python API's);
here, one table, a row per pricing model, then the evidence once (the figures, the estimate
and the measurement that would decide it); `--chart` draws cost per million tokens against
tokens/s per user for both chips on one pricing model, along the curves their figures belong
to (plotext, in the terminal): each measured chip's curve point by point (its price over each
point's throughput); where a chip has no figure at the other's point, the other's curve is its
break-even (it must cost no more per token there), and its derived estimate at the asked speed
the cost range it would give.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from chipcost.cli.commands.cost import UNHELD_TTFT, figure_point, print_footer, shortened
from chipcost.cli.consoles import Screen, notices, out, print_fitted
from chipcost.cli.fit import Column, Styled, fit_table, plain
from chipcost.cli.formats import OutputFormat, with_currency, write_frame
from chipcost.cli.options import widened
from chipcost.cli.parser import Command
from chipcost.cli.price_cells import (
    DOUBT_MARK,
    ESTIMATE_MARK,
    SHORT_NOTE,
    doubt_note,
    where_cell,
)
from chipcost.cli.render import shown
from chipcost.cli.render_fresh import print_freshness
from chipcost.core.asks import COMPARE
from chipcost.core.figures import DEFAULT_SPEED, point_label, speed_label, ttft_words
from chipcost.core.vocabulary import (
    NO_TERM_WORDS,
    PLAN_SHORT,
    code_words,
    no_term_rest,
    pricing_words,
)
from chipcost.transform.change_words import ESTIMATE_ELSEWHERE, change_words, leaning_notes
from chipcost.transform.comparison import Comparison
from chipcost.transform.cost import cost_text
from chipcost.transform.derived_source import derived_parts
from chipcost.transform.evidence import Estimate, Reading
from chipcost.transform.rows import CostRow, FigureRow
from chipcost.transform.tokens import money_sign
from chipcost.transform.verdict import (
    SHARE_ESTIMATE_ELSEWHERE,
    SHARE_OWN_ELSEWHERE,
    SHARE_THERE,
    cost_at,
    costs_at_point,
    figure_kind,
    share_of,
    table_words,
)

if TYPE_CHECKING:  # the table reads the answer: DuckDB's import is not needed to print it
    from chipcost.reads.compare import CompareResult


def _compare(**given: Any) -> None:
    """`chipcost compare`: chip A against chip B per pricing model, in one screen
    (chipcost.core.asks.COMPARE)."""
    from chipcost.reads import answers

    asked = COMPARE.given(given)
    result = answers.compare(asked)
    format = OutputFormat(asked["format"])
    if format is OutputFormat.table:
        if asked["wide"]:
            widened(out)
        print_comparison(out, result, wide=bool(asked["wide"]))
        if asked["chart"]:
            print_chart(out, result)
        return
    import polars as pl  # csv and json only

    from chipcost.core.frames import money_named
    from chipcost.reads.compare import ZONE_FIELDS

    money = str(result.ranking.header["currency"])
    frame = with_currency(money_named(result.frame(), money), money)
    # each side's zone after the currency, added last: the columns before keep their places
    write_frame(format, frame.select(pl.exclude(*ZONE_FIELDS), *ZONE_FIELDS))
    # the notes for people, on stderr as the table prints them under it, worded for the rows
    # (docs/cli.md)
    for note in _said_of(result, table=False):
        notices(format).say(f"note: {note}")
    print_freshness(notices(format), result.ranking.freshness)


# An estimated price (no price the provider publishes) in compare's table, said in a note: its
# columns are many and the mark short.
PRICE_MARK = "*"


def _money(row: CostRow) -> str:
    """'$2.2500', '$3.6500*' (an estimated price), '$0.5600 (!)' (a doubtful spot price)."""
    sign = money_sign(str(row.get("currency") or "USD"))
    est = PRICE_MARK if row.get("estimate") else ""
    doubt = DOUBT_MARK if row.get("spot_doubt") else ""
    return f"{sign}{row['price_per_chip_hour']:,.4f}{est}{doubt}"


def _verdict(line: Comparison) -> str | Styled:
    judged = line.verdict
    words = table_words(judged, line.a, line.b)
    if not judged.matched:
        return Styled(words, "yellow")
    return Styled(words, "green" if (judged.change or 0) < 0 else "red")


def _columns(result: CompareResult, wide: bool) -> list[Column]:
    a, b, lines = result.chip_a, result.chip_b, result.lines
    sign = money_sign(str(result.lines[0].a.get("currency") or "USD")).strip()
    # A chip's figure is one whatever the pricing: a derived one marks its $/M column, where
    # no row sets the two chips' figures at a shared point instead.
    est = {
        side: ESTIMATE_MARK
        if all(figure_kind(getattr(line, side)) in ("derived", "calibrated") for line in lines)
        and not any(costs_at_point(line.verdict, line.a, line.b) for line in lines)
        else ""
        for side in ("a", "b")
    }
    columns = [
        Column("pricing", "pricing model", essential=True),
        Column("a_price", f"{a} {sign}/hr", numeric=True, essential=True),
        Column("b_price", f"{b} {sign}/hr", numeric=True, essential=True),
        Column("a_cpm", f"{a} {sign}/M{est['a']}", numeric=True, essential=True),
        Column("b_cpm", f"{b} {sign}/M{est['b']}", numeric=True, essential=True),
        Column("needs", "must do", numeric=True, essential=True),
        Column("verdict", "verdict", essential=True, primary=True),
    ]
    if wide:
        columns += [
            Column("ratio", "ratio", numeric=True),
            Column("share", "share", numeric=True),
            Column("a_offer", f"{a} offer"),
            Column("b_offer", f"{b} offer"),
        ]
    return columns


# Both costs per token stay on the row's line while the table fits, else are folded under it;
# with --wide, the ratio and the share too.
_KEEP = ("a_cpm", "b_cpm", "ratio", "share")


def _who_needs(result: CompareResult) -> str | None:
    """The chip every row's break-even is for (its column's heading names it), or None where
    the rows' differ (each cell names its own)."""
    needs = {line.verdict.needs for line in result.lines}
    return (result.chip_a if needs == {"a"} else result.chip_b) if len(needs) == 1 else None


def _paid(row: CostRow, wide: bool) -> str:
    """'std, all upfront': how an offer is paid beyond its pricing model and term, its plan
    shortened as cost's table shortens it unless `wide`; '' where nothing more is said."""
    plan, payment = row.get("plan"), row.get("payment")
    plan = plan if wide or plan is None else PLAN_SHORT.get(str(plan), plan)
    return pricing_words(None, None, _text(payment), _text(plan), model_said=False)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _paid_both(result: CompareResult, line: Comparison, wide: bool) -> str:
    """How both offers of a row are paid beyond its pricing model and term ('std, all
    upfront', as cost's pricing column says it), or each chip's where they are paid
    differently ('H200: secure'; a chip whose offer says nothing more left out)."""
    paid_a, paid_b = _paid(line.a, wide), _paid(line.b, wide)
    if paid_a == paid_b:
        return paid_a
    return "; ".join(
        f"{chip}: {paid}"
        for chip, paid in ((result.chip_a, paid_a), (result.chip_b, paid_b))
        if paid
    )


# A row's second line where its two offers are paid differently: each is said with --wide,
# the table keeping the width of its longest pricing model ('capacity block 14d').
PAID_DIFFERENTLY = "differ (--wide)"


def _pricing(result: CompareResult, line: Comparison, wide: bool) -> str:
    """The pricing model's words, as prices, cost and the page say it ('savings plan 3yr'),
    kept whole (a reservation's 'no term' says the rest in a note), and under them, indented,
    how both offers are paid ('std, all upfront', or PAID_DIFFERENTLY); on one line, each
    chip's way said, with `wide`."""
    a, b = line.a, line.b
    label = pricing_words(str(a["pricing_model"]), str(a["term"]), None, None, short=True)
    paid = _paid_both(result, line, wide)
    if not paid:
        return plain(label)
    if wide:
        return plain(f"{label}, {paid}")
    alike = _paid(a, wide) == _paid(b, wide)
    return plain(label) + "\n  " + plain(paid if alike else PAID_DIFFERENTLY)


def _cells(result: CompareResult, line: Comparison, wide: bool = False) -> dict:
    judged = line.verdict
    a, b = line.a, line.b
    pb = b["price_per_chip_hour"]
    ratio = a["price_per_chip_hour"] / pb if pb else None
    chips = {"a": result.chip_a, "b": result.chip_b}
    who = "" if _who_needs(result) else f"{chips[judged.needs]} "
    # Where both chips are measured at one point, both costs at its figures (the verdict's, or
    # the bounds a leaning rests on); else each chip's own at the asked speed, which the answer
    # does not set against each other.
    at_point = costs_at_point(judged, a, b)
    cpm = {
        side: cost_text(
            at_point[i] if at_point else row["usd_per_million_tokens"],
            str(row.get("currency") or "USD"),
        )
        for i, (side, row) in enumerate((("a", a), ("b", b)))
    }
    return {
        "pricing": _pricing(result, line, wide),
        "a_price": _money(a),
        "b_price": _money(b),
        "ratio": f"{ratio:.2f}" if ratio is not None else "",
        "a_cpm": cpm["a"],
        "b_cpm": cpm["b"],
        "needs": f"{who}{judged.break_even_words()}",
        "share": f"{judged.share:,.0%}",
        "verdict": _verdict(line),
        # a zone's offer named by its zone (us-east-1d), whose price is that zone's alone
        "a_offer": plain(f"{where_cell(a)} {a['instance_type']}"),
        "b_offer": plain(f"{where_cell(b)} {b['instance_type']}"),
    }


def _reading(figure: Reading) -> str:
    """A published figure in one line, as _figure says an offer's."""
    point = figure_point(
        {
            "throughput_operating_point": figure.operating_point,
            "throughput_scenario": figure.scenario,
            "throughput_tokens_per_second_per_user": figure.tokens_per_second_per_user,
        }
    )
    dated = f" ({figure.source_date})" if figure.source_date else ""
    bound = LOWER_BOUND_WORDS if figure.lower_bound else ""
    return (
        f"{figure.throughput_id}: {figure.kind}, "
        f"{str(figure.precision or 'precision not stated').upper()}, "
        f"{figure.tokens_per_second_per_chip:,.0f} tok/s per chip{point}{bound}; "
        f"{figure.source}{dated}"
    )


# A figure read from a curve's point faster than asked (docs/cost-per-token.md, rule 3).
LOWER_BOUND_WORDS = " (a lower bound at the asked speed)"


def _figure(row: CostRow, bound: bool = False) -> str:
    """A figure in one line: a derived one says how it was derived, not its chip's and model's
    datasheet quotes (`cost --wide` and `throughput list --wide` give them); `bound` says it
    is a lower bound at the asked speed."""
    source, dated = str(row["throughput_source"]), f" ({row['throughput_source_date']})"
    if row.get("throughput_origin") == "derived":
        source, dated = derived_parts(source)[0], ""
    return (
        f"{row['throughput_id']}: {figure_kind(row)}, "
        f"{str(row.get('precision') or 'precision not stated').upper()}, "
        f"{row['tokens_per_second_per_chip']:,.0f} tok/s per chip{figure_point(row)}"
        f"{LOWER_BOUND_WORDS if bound else ''}; {source}{dated}"
    )


def _estimate(found: Estimate | None) -> str:
    if found is None:
        return "no derived estimate"
    unlike = f" {found.unlike}" if found.unlike else ""
    if found.band is None:
        return f"derived estimate {found.value:,.0f} tok/s per chip{unlike} ({found.error})"
    low, high = found.band
    return f"derived estimate {low:,.0f}-{high:,.0f} tok/s per chip{unlike} ({found.error})"


def _measure(result: CompareResult, chip: str, baseline: str, fixed: CostRow) -> str:
    """The measurement that would decide it, every option measure requires given: what the
    user must fill in in capitals, the precision the baseline's figure was measured at."""
    header = result.ranking.header
    speed = str(header.get("speed") or "")
    at = f" --speed {speed}" if speed and speed != DEFAULT_SPEED else ""
    precision = str(fixed.get("precision") or "PRECISION").lower()
    return (
        f"chipcost measure --endpoint URL --model {header['model']} --tokenizer TOKENIZER "
        f"--precision {precision} --software 'NAME VERSION' --chip {chip} --chips N "
        f"--match {baseline}{at}"
    )


def _spread(result: CompareResult, line: Comparison) -> str:
    """Every figure of each chip at the point, and the change from the best case to the worst
    on the first pricing model: each row's verdict rests on each side's first figure."""
    judged = line.verdict
    spans = [
        f"{chip} {low:,.0f}-{high:,.0f}" if low != high else f"{chip} {low:,.0f}"
        for chip, (low, high) in (
            (result.chip_a, judged.a_spread or (0.0, 0.0)),
            (result.chip_b, judged.b_spread or (0.0, 0.0)),
        )
    ]
    pricing = pricing_words(str(line.a["pricing_model"]), str(line.a["term"]), None, None)
    return (
        f"every figure of each there: {', '.join(spans)} tok/s per chip; {pricing} from "
        f"{change_words(judged.best or 0.0)} to {change_words(judged.worst or 0.0)} over them "
        "(--format json: each row's best and worst case)"
    )


def _evidence(console: Screen, result: CompareResult) -> None:
    """The evidence the rows rest on, once: the measured side's figure and point, the other
    side's figure there or 'none at this point', its estimate band, what would decide it."""
    first = result.lines[0]
    judged = first.verdict
    chips = {"a": result.chip_a, "b": result.chip_b}
    if judged.a_figure is not None and judged.b_figure is not None:
        console.say(shown(f"both measured at {judged.point}:"))
        for side, figure in (("a", judged.a_figure), ("b", judged.b_figure)):
            _say_under(console, f"  {chips[side]}: {_reading(figure)}")
        if judged.best is not None and judged.worst is not None:
            _say_under(console, f"  {_spread(result, first)}")
        return
    if not judged.anchor:
        console.say(shown(f"neither chip is measured at this speed ({judged.point})"))
        for row in (first.a, first.b):
            _say_under(console, f"  {row['chip']}: {_figure(row)}")
        if judged.differ:
            _say_under(console, f"  the published figures differ: {judged.differ}")
        return
    anchor, needs = chips[judged.anchor], chips[judged.needs]
    fixed = first.b if judged.anchor == "b" else first.a
    console.say(shown(f"evidence at {anchor}'s point ({judged.point}):"))
    _say_under(console, f"  {anchor}: {_figure(fixed, judged.anchor in judged.bound)}")
    why = f" (the published figures differ: {judged.differ})" if judged.differ else ""
    _say_under(console, f"  {needs}: none at this point{why}; {_estimate(judged.estimate)}")
    # what leans rests on an estimate at another point where it is not at this one
    found = judged.estimate
    elsewhere = " (the ~ leaning rests on that estimate, at another point)" * bool(
        found is not None and found.unlike
    )
    if judged.workload == "training":
        _say_under(
            console, f"  to decide{elsewhere}: record a {needs} run (`chipcost throughput add`)"
        )
    else:
        console.command(f"  to decide{elsewhere}:", _measure(result, needs, anchor, fixed))


def _say_under(console: Screen, text: str) -> None:
    """An indented line; too long for the width, it goes on two spaces further in, under
    itself, not at the left margin."""
    indent = " " * (len(text) - len(text.lstrip(" ")) + 2)
    console.say(shown(text), indent=indent)


# What --wide's share column is of, by share_of's words.
_SHARE_OF = {
    SHARE_THERE: "that chip's own figure there (its derived estimate where it is not measured)",
    SHARE_ESTIMATE_ELSEWHERE: (
        f"that chip's derived estimate, at another point, on a line marked {ESTIMATE_ELSEWHERE}"
    ),
    SHARE_OWN_ELSEWHERE: "that chip's own figure, at another point, where it has no estimate",
}


def _share_note(result: CompareResult) -> str:
    """'share: the must do in percent of that chip's own figure there ...', and of what else
    it is on a line whose estimate is not at the point (share_of)."""
    found = dict.fromkeys(share_of(line.verdict) for line in result.lines)
    return "share: the must do in percent of " + ", or ".join(_SHARE_OF[of] for of in found)


def print_comparison(console: Screen, result: CompareResult, *, wide: bool = False) -> None:
    header = result.ranking.header
    at = ""
    if header.get("speed"):
        ttft = header.get("ttft_ms")
        ttft = f", first token within {ttft_words(float(ttft))}" if ttft else ""
        label = speed_label(str(header["speed"]), str(header["model"]))
        point = point_label(header.get("shape"), header.get("precision"))
        at = f", {label}{ttft}{point} (--speed, --ttft, --shape, --precision to change)"
    console.say(
        shown(
            f"{result.chip_a} against {result.chip_b}: {header['model']} {header['workload']}{at}"
        )
    )
    cells = [_cells(result, line, wide) for line in result.lines]
    fitted = fit_table(console, _columns(result, wide), cells, keep_order=_KEEP, wide=wide)
    print_fitted(console, fitted)
    _evidence(console, result)
    offers = _offers(result)
    notes = _said_of(result, table=True)
    # one chip where every row's break-even is the same chip's; else each cell names its chip
    needs = _who_needs(result) or "the chip the row names"
    marks = [
        "$/hr: per chip-hour, each chip's cheapest offer"
        + (
            f" ({PRICE_MARK}: an estimated price)" if any(r.get("estimate") for r in offers) else ""
        ),
        "$/M: per million tokens, at the figures a verdict rests on",
        f"must do: the tok/s per chip {needs} must reach to cost as little per token",
    ]
    if wide:
        marks.append(_share_note(result))
    if any(str(row["pricing"]).endswith(PAID_DIFFERENTLY) for row in cells):
        marks.append(
            f"under a pricing model, how both offers are paid; {PAID_DIFFERENTLY}: each is "
            "paid its own way"
        )
    if not wide and shortened(offers):
        marks.append(SHORT_NOTE)
    bare = {str(r["pricing_model"]) for r in offers if r.get("term") == "none"}
    marks += [no_term_rest(model) for model in sorted(bare & NO_TERM_WORDS.keys())]
    marks += leaning_notes(
        words
        for line in result.lines
        for words in (line.verdict.cell_words(), line.verdict.break_even_words())
    )
    notes.insert(0, "; ".join(marks))
    if not wide:
        notes[0] += " (--wide: each offer; --format json: every field)"
    print_footer(console, notes, result.ranking.freshness)


def _offers(result: CompareResult) -> list[CostRow]:
    return [row for line in result.lines for row in (line.a, line.b)]


def _said_of(result: CompareResult, *, table: bool) -> list[str]:
    """The notes on what the lines rest on, under the table (`table`) or on stderr beside csv
    and json, worded for each: the ranking's (whether an instance holds the model only where
    one does not; the asked speed only where no heading says it), your discounts, doubtful
    spot prices, an unheld time to first token."""
    offers = _offers(result)
    fit = all(row.get("fits") is not False for row in offers)
    notes = [note for note in result.notes if not (fit and note.startswith("fits:"))]
    if table:  # the asked speed is in its heading, with how to change it
        notes = [note for note in notes if not note.startswith("throughput at")]
    yours = {
        f"{row['chip']} {row['provider']}: {row['discount']}": None
        for row in offers
        if row.get("discount")
    }
    if yours:
        notes.append(
            f"prices after your discount ({'; '.join(yours)}); --list-prices for list prices"
        )
    if doubted := doubt_note(offers, table=table):  # which spot offers (the table's (!)), why
        notes.append(doubted)
    derived = any(row.get("throughput_origin") == "derived" for row in offers)
    if result.ranking.header.get("ttft_ms") and derived:
        notes.append(UNHELD_TTFT)
    return notes


# `--chart`
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


compare = Command("compare", COMPARE, _compare)
