"""The report's sections: a title, what it means, and its table or why there is none."""

from __future__ import annotations

from dataclasses import dataclass, replace
from html import escape

import polars as pl

from chipcost.core.commands import suggested
from chipcost.core.counting import counted
from chipcost.core.figures import DEFAULT_SPEED
from chipcost.reports import tables
from chipcost.reports.answers import PAIRING, discounts_said, estimated_costs_note
from chipcost.reports.charts import chip_charts
from chipcost.reports.data import ReportData, chips_that_moved
from chipcost.reports.glance import most_moved, moves_table, verdicts
from chipcost.reports.labels import marks_note, provisional_note
from chipcost.reports.moves import alike_moves, shown_moves
from chipcost.reports.text import no_data
from chipcost.reports.versus_charts import cost_chart, speed_chart
from chipcost.warehouse.fx import Provisional


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    explain: str
    table: str | None  # great-tables HTML
    empty: str = ""  # shown instead of the table
    # The report page reads in two minutes: a section may show a short table and fold the
    # rest (`more`, opened by `more_label`), or fold whole (`folded`, its title and `gist`
    # showing). The e-mail shows what it is given.
    more: str = ""
    more_label: str = ""
    folded: bool = False
    gist: str = ""


_html = tables.table_html


def index(data: ReportData) -> Section:
    title = "Price index"
    explain = (
        "Each chip's on demand rental price index: the median of each provider's cheapest "
        "per-chip-hour price (a marketplace's many offers count once; jump-and-back glitches "
        "left out), at the end of the period and its move over it, largest moves first "
        "(`chipcost index`, docs/price-index.md). An offer priced in euros counts at each "
        "day's ECB rate, so a level can move with the euro alone."
    ) + provisional_note(data.provisional_index)
    if data.index.is_empty():
        return Section("index", title, explain, None, "No on demand prices in this period.")
    # Every chip that moved; the unchanged ones (largest markets first) up to the table's
    # size, the rest counted: `chipcost index` lists them all.
    limit = data.options.report_rows // 2
    moved = data.index.filter(pl.col("change").abs() >= 0.0005)
    still = data.index.filter(pl.col("change").abs() < 0.0005)
    still = still.sort("constituents", "chip", descending=[True, False])
    kept = pl.concat([moved, still.head(max(limit - moved.height, 0))])
    left = data.index.height - kept.height
    if left:
        others = counted(left, "other chip")
        explain += f" {others} did not move: `chipcost index` lists every chip."
    return Section("index", title, explain, _html(tables.index_table(kept)))


def changes(data: ReportData) -> Section:
    """List and commitment prices that moved; spot moves (daily, by design) have their own."""
    if data.moves.is_empty():
        explain = "Offers whose price moved in the period."
        return Section("changes", "What changed", explain, None, no_changes(data))
    listed = data.moves.filter(pl.col("pricing_model") != "spot")
    return _moves_section(
        "changes", "What changed", "list and commitment", listed, data,
        provisional=data.provisional_changes,
    )  # fmt: skip


def spot_changes(data: ReportData) -> Section | None:
    spot = data.moves.filter(pl.col("pricing_model") == "spot")
    if spot.is_empty():
        return None
    return _moves_section(
        "spot", "Spot moves", "spot", spot, data, data.options.report_rows // 2,
        provisional=data.provisional_spot,
    )  # fmt: skip


def _moves_section(
    key: str,
    title: str,
    kind: str,
    moves: pl.DataFrame,
    data: ReportData,
    limit: int = 0,
    provisional: Provisional | None = None,
) -> Section:
    limit = limit or data.options.report_rows
    moved = alike_moves(moves)
    glitches = moves.filter(pl.col("jump_back")).height if "jump_back" in moves else 0
    shown = f"The {limit} largest" if moved.height > limit else "All"
    explain = (
        f"{shown} moves of {kind} prices in the period ({counted(moves.height, 'offer')}), "
        "largest first, per chip-hour (instance price ÷ chips): one provider's offers of a "
        "chip that moved alike share a line. Green is cheaper, red dearer. The line is the "
        "first offer's price at the end of each day over the last "
        f"{data.options.trend_days // 7} weeks. Every change is in the CSV next to this "
        "report and in the price explorer."
    )
    if glitches:
        explain += (
            f" {counted(glitches, 'offer')} jumped out and came back (likely a data glitch): "
            "marked with the jump, after the real moves."
        )
    if moved.is_empty():
        return Section(key, title, explain, None, f"No {kind} price moved in this period.")
    explain += provisional_note(provisional) + marks_note(moves)
    many = pl.col("offers") > 1
    shown_rows = shown_moves(moved, limit).with_columns(
        instance_type=pl.when(many)
        .then(pl.format("{} ({} offers)", pl.col("instance_type"), pl.col("offers")))
        .otherwise(pl.col("instance_type"))
    )
    glance = min(limit // 2, moved.height)
    return Section(
        key,
        title,
        explain,
        moves_table(moved.head(glance)),
        more=_html(tables.changes_table(shown_rows)),
        more_label=(
            f"The {min(limit, moved.height)} largest"
            + (
                f" and {shown_rows.height - limit} jumped out and back past them"
                if shown_rows.height > limit
                else ""
            )
            + ", with instance, date and each day's price"
            if moved.height > glance
            else "With instance, date and each day's price"
        ),
        gist=(
            f"The {glance} largest of {counted(moves.height, 'offer')} whose {kind} price moved, "
            "per chip-hour (instance price ÷ chips); green is cheaper, red dearer."
            + marks_note(moved.head(glance))
        ),
    )


def _capped(
    frame: pl.DataFrame, limit: int, what: str, total: int | None = None
) -> tuple[pl.DataFrame, str]:
    """The first `limit` rows, and a sentence on the rest ('' when none is left out); `total`:
    how many there are where `frame` holds only the first of them."""
    total = frame.height if total is None else total
    if total <= limit:
        return frame, ""
    said = (
        f" The first {limit} of {total} {what} are shown; the other "
        f"{total - limit} are in the CSV next to this report and in the price explorer."
    )
    return frame.head(limit), said


def no_changes(data: ReportData) -> str:
    if not data.has_history:
        return "No prices yet, so no changes."
    if empty := no_data(data):
        return f"{empty[0].upper()}{empty[1:]}, so no changes were seen."
    since, until = data.period.since, data.period.until
    if data.nothing_collected:
        return (
            f"No source succeeded from {since} to {until} (Health says why), so no changes "
            "were seen."
        )
    if missed := data.not_collected:
        collected = data.watched.height - len(missed)
        return (
            f"No offer of the {counted(collected, 'source')} collected changed price from "
            f"{since} to {until}; {counted(len(missed), 'other source')} not collected (Health "
            "says why)."
        )
    return f"No offer changed price from {since} to {until}."


def new_offers(data: ReportData) -> Section:
    explain = "Offers a source listed for the first time in the period (or listed again)."
    if not data.events.new:
        return Section("new", "New offers", explain, None, "No new offers in this period.")
    limit = data.options.report_rows // 2
    offers, rest = _capped(data.new_shown, limit, "new offers", data.events.new)
    explain += rest + marks_note(offers)
    gt = tables.offers_table(offers, price="new_price_per_chip_hour", day="Listed")
    return Section("new", "New offers", explain, _html(gt))


def withdrawn(data: ReportData) -> Section:
    explain = "Offers a source that ran successfully no longer lists, with their last price."
    if not data.events.withdrawn:
        return Section("withdrawn", "Withdrawn offers", explain, None, "No offer was withdrawn.")
    limit = data.options.report_rows // 2
    offers, rest = _capped(data.withdrawn_shown, limit, "withdrawn offers", data.events.withdrawn)
    explain += rest + marks_note(offers)
    gt = tables.offers_table(offers, price="old_price_per_chip_hour", day="Withdrawn")
    return Section("withdrawn", "Withdrawn offers", explain, _html(gt))


def cheapest(data: ReportData) -> Section:
    explain = (
        f"The cheapest price per chip-hour of each chip {data.at_end}, by "
        "pricing model, with where it is offered. Commitments are effective hourly rates, "
        f"upfront fees spread over the term. Prices not seen in the last "
        f"{data.options.fresh_days} days, and accelerators chipcost does not recognise "
        "(chip 'unknown'), are left out."
    )
    if data.cheapest.is_empty():
        empty = f"No prices known {data.at_end}."
        return Section("cheapest", "Cheapest now", explain, None, empty)
    explain += _yours(data) + provisional_note(data.provisional_now)
    explain += marks_note(data.cheapest)
    table = tables.cheapest_table(data.cheapest, data.currency)
    return Section("cheapest", "Cheapest now", explain, _html(table))


def charts_provisional_note(days: Provisional | None) -> str:
    """provisional_note, and that the charts draw those days' points at the earlier rate with
    no mark of their own (a chart's line marks no single day)."""
    if days is None:
        return ""
    return provisional_note(days) + (
        " The charts draw those days at that earlier rate, their points unmarked."
    )


def _yours(data: ReportData) -> str:
    """' Your prices: after your discounts (...); in EUR at ...' where the report has them."""
    return "".join(f" Your prices: {line}." for line in data.yours)


# Charts shown before the fold: two rows of three at 1280 px.
CHARTS_SHOWN = 6


def history(data: ReportData) -> Section:
    weeks = data.options.history_weeks
    explain = (
        f"Each chip's cheapest price per chip-hour at the end of each day over the last {weeks} "
        "weeks (as far as the history goes), one line per pricing model drawn as its change "
        "in % since the first day, so that a 2% move shows; its last price beside it, the "
        f"price each day on hover; `{suggested('history', chip='NAME')}` gives the numbers."
    )
    if data.history.is_empty():
        return Section("history", "Price history", explain, None, "No prices in these weeks.")
    # A flat line says nothing a sentence cannot: only chips whose cheapest price moved are drawn.
    moved = chips_that_moved(data.history)
    flat = sorted(set(data.history["chip"]) - set(moved))
    if flat:
        explain += f" Cheapest price unchanged over these weeks (not drawn): {', '.join(flat)}."
    charts = chip_charts(data.history.filter(pl.col("chip").is_in(moved)))
    if not charts:
        return Section("history", "Price history", explain, None, "No price moved in these weeks.")
    explain += charts_provisional_note(data.provisional_history)
    figures = [
        f'<figure class="chart"><figcaption>{escape(chip)}</figcaption>{charts[chip]}</figure>'
        for chip in most_moved(data.history, list(charts))
    ]
    shown, rest = figures[:CHARTS_SHOWN], figures[CHARTS_SHOWN:]
    gist = (
        f"The {len(shown)} chips whose cheapest price moved most over the last {weeks} weeks: "
        "each line is a pricing model's move in % since the first day (not a price from $0), "
        "its last price per chip-hour beside it."
    )
    return Section(
        "history", "Price history", explain, f'<div class="charts">{"".join(shown)}</div>',
        more=f'<div class="charts">{"".join(rest)}</div>' if rest else "",
        more_label=f"{counted(len(rest), 'other chip')} that moved less" if rest else "",
        gist=gist,
    )  # fmt: skip


def cost_per_token(data: ReportData) -> Section:
    rows = data.options.cost_rows
    explain = (
        f"For each model and workload, the {rows} chips with the cheapest cost per million "
        "tokens at current prices, each at its cheapest offer whose instance holds the model "
        "(its weights for inference, its training state for training: the rule of "
        "`chipcost cost`); a chip none of whose offers holds it comes after those that do, "
        "with how many instances it would take. Each row names the throughput figure's kind "
        "as `chipcost cost` does (vendor claim, independent benchmark, estimate, derived, "
        "calibrated: derived and fitted on the chip's own measurements, or measured) and "
        "where it comes from, a derived figure with the range its out-of-sample checks "
        f"measure. `{suggested('cost', model='NAME')}` ranks every chip and offer."
    )
    costs = data.cost_per_token
    if data.ended_before_newest_prices:
        newest = data.coverage.newest_observation
        empty = (
            f"Cost per token is computed at current prices only, and this period ended on "
            f"{data.period.until} (the newest prices are of {newest:%Y-%m-%d}): report a "
            "period that reaches them to see it, or see `chipcost cost`."
        )
        return Section("cost", "Cost per token", explain, None, empty)
    if costs is None:
        empty = "This warehouse has no cost_per_token view to read costs from."
        return Section("cost", "Cost per token", explain, None, empty)
    if costs.is_empty():
        empty = (
            "No cost per token yet: the warehouse has no throughput figure for any chip with "
            "a current price (the throughput table is empty or covers other chips)."
        )
        return Section("cost", "Cost per token", explain, None, empty)
    explain += _yours(data)
    table = tables.cost_table(costs, rows, data.currency)
    return Section("cost", "Cost per token", explain, _html(table))


def head_to_head(data: ReportData) -> Section:
    title = "Is chip A cheaper than chip B?"
    explain = (
        "The questions the articles ask (Trainium against H100, H200 and B200; TPU v6e and "
        "MI300X against H100), answered per token for Llama 3 70B as `chipcost compare A B` "
        f"answers them: {PAIRING}, at the default speed ({DEFAULT_SPEED} tokens/s per user). "
        "A verdict (cheaper or dearer) is drawn only where both chips are measured at one "
        "point: request shape, speed, precision and scale; otherwise the answer is the "
        "break-even at the "
        "measured chip's point, the other chip's derived estimate there as context, and the "
        "measurement that would settle it. The first chart draws each pair's cost "
        "per million tokens with those ranges; the second, throughput per chip against the "
        "speed each user gets, published figures as dots, the derivation dashed."
    )
    answers = data.head_to_head
    if data.ended_before_newest_prices or answers is None or answers.is_empty():
        empty = "No answer: cost per token is not shown for this period (see Cost per token)."
        return Section("versus", title, explain, None, empty)
    # what 'est.' after a cost means, under the answers and in their gist alike
    explain += estimated_costs_note(answers.to_dicts())
    glance = f'<div class="verdict-list">{verdicts(answers)}</div>'
    chart = cost_chart(answers.to_dicts())
    top = f'<div class="versus-top">{glance}<div class="versus-charts">{chart}</div></div>'
    speed = speed_chart(data.speed_curve)
    speed = f'<div class="versus-charts">{speed}</div>' if speed else ""
    more = speed + _html(tables.head_to_head_table(answers))
    gist = (
        (
            f"Per token, for Llama 3 70B at {DEFAULT_SPEED} tokens/s per user, on demand, as "
            "`chipcost compare A B` answers; the chart draws each pair's cost per million tokens "
            "and its range."
        )
        + discounts_said(answers.to_dicts())
        + estimated_costs_note(answers.to_dicts())
    )
    return Section(
        "versus", title, explain, top, more=more, gist=gist,
        more_label="How these are answered: break-even, both figures, caveats, tokens/s per user",
    )  # fmt: skip


def health(data: ReportData) -> Section:
    explain = (
        f"Each source's last success, the rows it loaded and had rejected in the period, and "
        "its last failure there: the day and why. "
        f"A source is stale when it has not succeeded for {data.options.stale_days} days."
    )
    if data.health.is_empty():
        empty = "No source has run before the end of this period."
        return Section("health", "Health", explain, None, empty)
    return Section("health", "Health", explain, _html(tables.health_table(data.health)))


def disagreements(data: ReportData) -> Section:
    pct = f"{data.options.disagree_pct:g}%"
    explain = (
        f"Offers that two sources price differently by more than {pct} (the same provider, "
        "region, instance and terms): one of the sources is wrong or stale."
    )
    title = "Sources that disagree"
    compared = data.comparisons.height
    if compared == 0:
        empty = "No offer is priced by two sources yet, so there is nothing to compare."
        return Section("disagree", title, explain, None, empty)
    if data.disagreements.is_empty():
        empty = (
            f"{compared} offers are priced by two or more sources; none differ by more than {pct}."
        )
        return Section("disagree", title, explain, None, empty)
    return Section(
        "disagree", title, explain, _html(tables.disagreements_table(data.disagreements))
    )


def full_report(data: ReportData) -> list[Section]:
    """What moved and what it means, then the details folded, each with its gist."""
    # the answer to the articles' question first, in the first screen; then what moved
    first = [
        head_to_head(data),
        index(data),
        changes(data),
        *filter(None, [spot_changes(data)]),
        history(data),
    ]
    details = [cheapest, cost_per_token, new_offers, withdrawn, health, disagreements]
    return [*first, *(_folded(make(data), data) for make in details)]


def _folded(section: Section, data: ReportData) -> Section:
    """The section folded under its title and a count that says whether to open it."""
    costs = data.cost_per_token
    pairs = 0 if costs is None else costs.select("model", "workload").n_unique()
    stale = len(data.stale_now or ())
    gists = {
        "cheapest": f"by pricing model, for {counted(data.cheapest['chip'].n_unique(), 'chip')}",
        "cost": f"the cheapest chips for {pairs} models and workloads" if pairs else "",
        "new": counted(data.events.new, "offer"),
        "withdrawn": counted(data.events.withdrawn, "offer"),
        # sample data is judged as the sample week, not as stale (`chipcost sources` says so)
        "health": f"{counted(data.health.height, 'source')}, "
        + (
            f"{len(data.sample_now)} holding the bundled sample week"
            if data.sample_now
            else f"{stale} stale now"
        ),
        "disagree": counted(data.disagreements.height, "offer"),
    }
    return replace(section, folded=True, gist=gists.get(section.key, ""))
