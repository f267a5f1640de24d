"""`chipcost history`: a chip's cheapest price per day per pricing model, as a table (a
column per pricing model) and a terminal chart; csv, json and FOCUS. The question is
chipcost.reads.history's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chipcost.cli.consoles import Screen, print_fitted
from chipcost.cli.fit import Column, fit_table
from chipcost.cli.formats import OutputFormat, PriceFormat
from chipcost.cli.parser import Command
from chipcost.cli.price_cells import DOUBT_MARK, ESTIMATE_MARK, doubt_note, estimate_note
from chipcost.core.asks import HISTORY
from chipcost.core.errors import NoMatch
from chipcost.core.vocabulary import (
    GLANCE_KINDS,
    MODEL_LABELS,
    PRICING_MODELS,
    gpu_alone_note,
    pricing_words,
)
from chipcost.transform.tokens import money_sign

if TYPE_CHECKING:  # polars loads when the command runs, not for --help
    import polars as pl


def _history(**given: Any) -> None:
    """The cheapest per-chip-hour price per day per pricing model, with a terminal chart."""
    from chipcost.cli.consoles import notices, out
    from chipcost.cli.options import widened
    from chipcost.cli.render_fresh import print_freshness
    from chipcost.reads.answers import history

    asked = HISTORY.given(given)
    answer = history(asked)
    result, empty, missing, mine = (
        answer.found,
        answer.empty,
        answer.missing or {},
        answer.found.mine,
    )
    focus = asked["format"] == PriceFormat.focus
    output = OutputFormat.csv if focus else OutputFormat(asked["format"])
    if output is not OutputFormat.table:
        from chipcost.cli.formats import with_currency, write_frame

        # when empty, [] or the header: a pipe still parses
        frame = _focus(result.frame) if focus else with_currency(result.frame, mine.currency)
        write_frame(output, frame)
    if empty:
        raise NoMatch(empty)
    if output is OutputFormat.table:
        if asked["wide"]:
            widened(out)
        chart = not asked["no_chart"]
        _show(result.frame, result.chips, missing, chart=chart, currency=mine.currency)
    else:
        for why in missing.values():
            notices(output).say(f"note: {why}")
        # as `prices` says it under its csv, json and focus (their rows say it in gpu_alone)
        if alone := gpu_alone_note(result.frame.select("source", "instance_type").iter_rows()):
            notices(output).say(f"note: {alone}")
    for note in result.notes:
        notices(output).say(f"note: {note}")
    if mine.rates is not None:
        notices(output).say(f"note: {mine.rate_note(result.frame.to_dicts())}")
    if answer.provisional:
        notices(output).say(f"note: {answer.provisional}")
    print_freshness(notices(output), result.freshness)


history = Command("history", HISTORY, _history)


def _focus(frame):
    """Each day's cheapest price as a FOCUS row in force for that UTC day (docs/focus.md)."""
    from datetime import UTC, datetime, time, timedelta

    from chipcost.transform.focus import focus_frame, focus_text_times

    rows = []
    for row in frame.to_dicts():
        begin = datetime.combine(row["day"], time(), UTC)
        price_per_hour = row["price_per_chip_hour"] * row["chip_count"]
        end = begin + timedelta(days=1)
        rows.append({**row, "price_per_hour": price_per_hour, "valid_from": begin, "valid_to": end})
    return focus_text_times(focus_frame(rows))


def _show(
    frame, chips: list[str], missing: dict[str, str], *, chart: bool, currency: str = "USD"
) -> None:
    import polars as pl

    from chipcost.cli.consoles import out

    for chip in chips:
        rows = frame.filter(pl.col("chip") == chip)
        if rows.is_empty():
            out.say(missing[chip])
            continue
        print_history(out, chip, rows, currency)
        if chart:
            print_chart(out, chip, rows, currency)


# Beyond this many days the table keeps the days a price changed (and the first and last).
TABLE_DAYS = 60
CHART_HEIGHT = 20


def wide(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per day, one price column per pricing model (cheapest per chip-hour)."""
    models = list(dict.fromkeys(frame.sort("pricing_model")["pricing_model"].to_list()))
    table = frame.pivot(on="pricing_model", index="day", values="price_per_chip_hour").sort("day")
    return table.select("day", *models)


def changed_days(table: pl.DataFrame) -> pl.DataFrame:
    """Only the days some price changed, plus the first and the last day."""
    import polars as pl

    prices = table.drop("day")
    moved = pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift(1)) for c in prices.columns])
    last = pl.int_range(pl.len()) == pl.len() - 1
    return table.filter(moved | last)


def print_history(console: Screen, chip: str, frame: pl.DataFrame, currency: str = "USD") -> None:
    table = wide(frame)
    note = ""
    if table.height > TABLE_DAYS:
        shown = changed_days(table)
        note = f" ({shown.height} of {table.height} days: those a price changed, and the last)"
        table = shown
    console.say([(chip, "bold"), (f": cheapest {currency} per chip-hour by day{note}", "")])
    models = table.columns[1:]
    # est. after a day's cheapest that is an estimate, (!) after a doubtful spot price, as
    # `prices` and `compare` mark them.
    marked = {(row["day"], row["pricing_model"]): row for row in frame.iter_rows(named=True)}
    # The days and prices are never cut: a header wraps a word a line ("capacity" over
    # "block") where the screen is narrow.
    columns = [Column("day", "day", essential=True)]
    columns += [Column(m, MODEL_LABELS.get(m, m), numeric=True, essential=True) for m in models]
    cells = [
        {
            "day": str(day),
            **{
                m: "" if p is None else f"{p:,.4f}" + _marks(marked.get((day, m)))
                for m, p in zip(models, prices, strict=False)
            },
        }
        for day, *prices in table.iter_rows()
    ]
    shown = {day for day, *_ in table.iter_rows()}
    # Where even a word a line does not fit, the pricing models least asked about (flex-start,
    # then capacity block, ...) fold to a second line under each day: on demand, spot and the
    # commitments (the glance's kinds) stay on the day's line.
    keep = [m for m in dict.fromkeys((*GLANCE_KINDS, *PRICING_MODELS)) if m in models]
    print_fitted(console, fit_table(console, columns, cells, keep_order=keep))
    latest = frame.sort("day").group_by("pricing_model", maintain_order=True).last()
    for row in latest.sort("pricing_model").iter_rows(named=True):
        where = " · ".join(p for p in (row["provider"], row["region"], row["zone"]) if p)
        offers = f"{row['offers']} offer{'s' if row['offers'] != 1 else ''}"
        # The column is the cheapest of every term: the line says which one it is today.
        label = MODEL_LABELS.get(row["pricing_model"], row["pricing_model"])
        terms = pricing_words(
            *(row.get(p) for p in ("pricing_model", "term", "payment", "plan")), model_said=False
        )
        mark = _marks(row)
        console.say(
            f"  {label}: {money_sign(currency)}{row['price_per_chip_hour']:,.4f}{mark} "
            f"on {row['day']} at "
            f"{where} · {row['instance_type']}{f', {terms}' if terms else ''} ({offers})",
            indent="    ",  # a line too long goes on under its own, not at column 0
        )
    rows = [r for (day, _), r in marked.items() if day in shown]
    alone = gpu_alone_note((r.get("source"), r["instance_type"]) for r in rows)
    for note in (estimate_note(rows), doubt_note(rows), alone):  # each doubtful offer once
        if note:
            console.say(f"note: {note}", indent="  ")


def _marks(row: dict[str, Any] | None) -> str:
    """' est. (!)': after a day's cheapest price, what it is (an estimate; a spot price not
    below its offer's on-demand price), as `prices` marks it."""
    if row is None:
        return ""
    return ESTIMATE_MARK * bool(row.get("estimate")) + DOUBT_MARK * bool(row.get("spot_doubt"))


def _steps(days: list[str], prices: list[float]) -> tuple[list[str], list[float]]:
    """Points of a step line: a price holds until the day it changes, no slope between."""
    xs, ys = [], []
    for i, (day, price) in enumerate(zip(days, prices, strict=True)):
        if i and price != ys[-1]:
            xs.append(day)
            ys.append(ys[-1])
        xs.append(day)
        ys.append(price)
    return xs, ys


# One marker a series, so the lines are told apart without colour (NO_COLOR, a pipe, print).
MARKERS = ("o", "+", "x", "*", "#", "=", "%", "@", "&", "~")


def chart(chip: str, frame: pl.DataFrame, width: int, colour: bool, currency: str = "USD") -> str:
    """A terminal line chart (plotext) of each pricing model's cheapest price per day, each
    model in its own marker at the row of its prices, on ticks that print exactly, and its
    legend on a line under the plot (plotext draws its own legend over the plot's top lines).
    A model whose marks another model's draw over wholly (prices within a row) is said hidden
    under it in the legend: every mark is where its price is."""
    import polars as pl

    models = sorted(set(frame["pricing_model"].to_list()))
    marks = dict(zip(models, MARKERS * len(models), strict=False))
    series = {}
    for model in models:
        rows = frame.filter(pl.col("pricing_model") == model).sort("day")
        days = [d.isoformat() for d in rows["day"].to_list()]
        series[model] = _steps(days, rows["price_per_chip_hour"].to_list())
    text = _plot(chip, series, marks, width, currency)
    area = _plot_area(text)
    hidden = {m: _cover(m, series) for m in models if marks[m] not in area}
    text = text if colour else _uncolored(text)
    return text + "\n" + legend(models, width, hidden)


def _cover(model: str, series: dict[str, tuple[list[str], list[float]]]) -> str | None:
    """The model drawn after `model` (plotext draws in order, the last on top) whose prices lie
    nearest its own on its days: what shows in its place; None if none shares its days."""
    own = dict(zip(*series[model], strict=True))
    later = list(series)[list(series).index(model) + 1 :]
    gaps = {}
    for other in later:
        theirs = dict(zip(*series[other], strict=True))
        if set(own) <= set(theirs):
            gaps[other] = max(abs(theirs[day] - price) for day, price in own.items())
    return min(gaps, key=lambda other: gaps[other]) if gaps else None


def _plot(
    chip: str,
    series: dict[str, tuple[list[str], list[float]]],
    marks: dict[str, str],
    width: int,
    currency: str,
) -> str:
    """The plot, each model's prices where they are, the price axis on round ticks labelled
    exactly (reports.level_charts': 2.50, not 2.51 for 2.5083)."""
    import plotext as plt

    from chipcost.cli.plot_axes import round_y_axis

    plt.clear_figure()
    plt.date_form("Y-m-d")
    for model, (xs, ys) in series.items():
        plt.plot(xs, ys, marker=marks[model])
    round_y_axis(plt, [y for _, ys in series.values() for y in ys])
    plt.plotsize(width, CHART_HEIGHT)
    plt.title(f"{chip}: cheapest {currency} per chip-hour")
    plt.theme("clear")
    return plt.build()


def _uncolored(text: str) -> str:
    import plotext as plt

    return plt.uncolorize(text)


def _plot_area(text: str) -> str:
    """The characters inside the plot's frame (not its title, axes or labels)."""
    inside = []
    for line in _uncolored(text).splitlines():
        if line.count("│") >= 1 or "┤" in line:
            body = line.split("┤", 1)[-1] if "┤" in line else line.split("│", 1)[-1]
            inside.append(body.rsplit("│", 1)[0])
    return "\n".join(inside)


def legend(models: list[str], width: int, hidden: dict[str, str | None] | None = None) -> str:
    """'o capacity block   + commitment   ...' (the models' labels, as the table's headers),
    wrapped to the chart's width; a model another's marks hide says so, and under which."""
    keys = []
    for model, marker in zip(models, MARKERS * len(models), strict=False):
        key = f"{marker} {MODEL_LABELS.get(model, model)}"
        if model in (hidden or {}):
            cover = (hidden or {})[model]
            mark = MARKERS[models.index(cover) % len(MARKERS)] if cover else ""
            under = f"{mark} {MODEL_LABELS.get(cover, cover)}" if cover else "other marks"
            key += f" (hidden under {under})"
        keys.append(key)
    lines, line = [], ""
    for key in keys:
        if line and len(line) + 3 + len(key) > width:
            lines.append(line)
            line = ""
        line = f"{line}   {key}" if line else f"    {key}"
    return "\n".join([*lines, line])


def print_chart(console: Screen, chip: str, frame: pl.DataFrame, currency: str = "USD") -> None:
    """The chart at the console's width (at most 120 columns), in colour only on a terminal
    that allows it (not under NO_COLOR): plotext's own colour codes."""
    width = min(console.width or 100, 120)
    colour = console.styled and not console.no_color
    console.line(chart(chip, frame, width, colour=colour, currency=currency))
