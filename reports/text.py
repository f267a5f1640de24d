"""The report in words: counts, subject line, what the data lacks, plain text and markdown."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.counting import counted
from chipcost.core.figures import DEFAULT_SPEED
from chipcost.reads.price_notes import unconverted_words
from chipcost.reports.answers import answer_lines, estimated_costs_note
from chipcost.reports.data import ReportData, report_name
from chipcost.reports.labels import (
    marks_notes,
    model_label,
    move_text,
    plain,
    provisional_note,
)
from chipcost.reports.moves import alike_moves, place_of_alike, shown_moves, swing_words

SAMPLE_NOTE = (
    "SAMPLE DATA: these prices come from the bundled sample archive (synthetic, in the "
    "providers' real payload shape), not from a live fetch. Do not quote them."
)


@dataclass(frozen=True)
class Counts:
    changed: int  # offers whose price moved (once or more)
    down: int
    up: int
    new: int
    withdrawn: int
    stale: int
    disagreements: int
    changes: int = 0  # price changes, every one (the CSV's changed rows)
    glitches: int = 0  # offers that jumped out and came back


def counts(data: ReportData) -> Counts:
    real = data.real_moves
    # On the prices, as with_jumps tells a price back where it began: a move rounded to 0.00%
    # is still down or up, so that down, up and back add up to the moves.
    old, new = real["old_price_per_hour"], real["new_price_per_hour"]
    return Counts(
        changed=data.moves.height,
        changes=data.price_changes,
        glitches=data.glitches.height,
        down=int((new < old).sum()),
        up=int((new > old).sum()),
        new=data.events.new,
        withdrawn=data.events.withdrawn,
        stale=data.stale_sources.height,
        disagreements=data.disagreements.height,
    )


def no_data(data: ReportData) -> str:
    """'no data from 2026-10-01 to 2026-10-31 (the warehouse holds 2026-11-14 to 2026-11-21)'
    for a period no collection ran in, '' otherwise: an empty period is said to be one, not
    read as a period in which no price moved."""
    cov, period = data.coverage, data.period
    newest = cov.newest_observation  # None: no history (data.has_history)
    if newest is None or cov.runs_in_period:
        return ""
    first = cov.history_start.date() if cov.history_start else None
    last = newest.date()
    held = f"{first} to {last}" if first and first != last else f"{last}"
    return f"no data from {period.since} to {period.until} (the warehouse holds {held})"


def top_move(row: dict) -> str:
    """'H100-SXM on demand −8%', or for a price back where it began 'H100-SXM on demand back
    at $1.3900 (low $1.1900 on 2026-11-28, high $1.4900 on 2026-11-25)'."""
    model = model_label(row["pricing_model"], row["term"])
    if row.get("back") and "now" in row:
        return f"{row['chip']} {model} {swing_words(row, marked=False)}"
    return f"{row['chip']} {model} {move_text(row)}"


def _span_words(data: ReportData) -> str:
    """'this week' for a report of seven days, else 'from 2026-11-01 to 2026-11-10'."""
    period = data.period
    if period.label.startswith("week of"):
        return "this week"
    if period.days == 1:
        return f"on {period.since}"
    return f"from {period.since} to {period.until}"


def _named(names: list[str]) -> str:
    """'a, b, c' or 'a, b, c, d, e, f and 30 more' (NAMED_STALE named)."""
    more = f" and {len(names) - NAMED_STALE} more" if len(names) > NAMED_STALE else ""
    return ", ".join(names[:NAMED_STALE]) + more


def not_collected_words(data: ReportData) -> str:
    """'36 of 48 sources not collected this week (a, b, ... and 30 more)': the sources meant to
    be collected that had no successful run in the period ('' when every one had)."""
    missed, watched = data.not_collected, data.watched.height
    if not missed:
        return ""
    return (
        f"{len(missed)} of {counted(watched, 'source')} not collected {_span_words(data)} "
        f"({_named(missed)})"
    )


def nothing_collected_words(data: ReportData) -> str:
    """'No prices collected: no source succeeded in the week's 1 run (48 sources; Health says
    why), so no price could be seen to move'."""
    runs = data.coverage.runs_in_period
    whose = "the week's" if _span_words(data) == "this week" else "the period's"
    return (
        f"No prices collected: no source succeeded in {whose} {counted(runs, 'run')} "
        f"({counted(data.watched.height, 'source')}; Health says why), so no price could be seen "
        "to move"
    )


def first_known(moves: pl.DataFrame) -> dict:
    """The first of the moves whose chip chipcost knows, else the first: what a subject or an
    alert's title names (the explorer leaves out chips it cannot name)."""
    known = moves.filter(pl.col("chip") != UNKNOWN_CHIP)
    return (known if known.height else moves).row(0, named=True)


def subject(data: ReportData) -> str:
    """'7 price changes, H100-SXM on demand −8%: week of 2026-11-15'."""
    c = counts(data)
    if not data.has_history:
        head = "No price history yet"
    elif no_data(data):
        head = "No data"
    elif data.nothing_collected:
        # Runs in the period, none of them a success: no price was watched, none could move.
        head = "No prices collected"
    elif c.changed:
        # The largest real move (moves come real first, glitches after), as its offers
        # moved alike: "H100-SXM on demand −8% (gcp, 4 offers)".
        top = lead_move(data)
        alike = f" ({top['provider']}, {top['offers']} offers)" if top["offers"] > 1 else ""
        head = f"{counted(c.changed, 'offer')} moved, {top_move(top)}{alike}"
        if data.not_collected:  # the moves are of the sources collected only
            head += f"; only {_collected_of(data)} collected"
    else:
        # "No price changes" is said of the prices watched only: among the sources collected.
        among = f" among {_collected_of(data)} collected" if data.not_collected else ""
        parts = [f"No price changes{among}"]
        if c.new:
            parts.append(counted(c.new, "new offer"))
        if c.withdrawn:
            parts.append(f"{c.withdrawn} withdrawn")
        head = ", ".join(parts)
    prefix = "[sample data] " if data.sample else ""
    return f"{prefix}{head}: {data.period.label}"


def _collected_of(data: ReportData) -> str:
    """'12 of 48 sources': those with a successful run in the period, of those meant to be."""
    watched = data.watched.height
    return f"{watched - len(data.not_collected)} of {counted(watched, 'source')}"


def lead_move(data: ReportData) -> dict:
    """The move a subject names: the largest real net move of a list or commitment price (spot
    prices move daily), as its offers moved alike; else the largest real spot move; else the
    largest swing of a price back where it began (list first); else the largest glitch; each
    of a chip chipcost knows before one of a chip it does not (the explorer leaves those out:
    an 'unknown on demand +972.6%' leads nothing)."""
    grouped = alike_moves(data.moves)
    real = grouped.filter(~pl.col("jump_back")) if "jump_back" in grouped else grouped
    back = real.filter(pl.col("back")) if "back" in real else real.clear()
    net = real.filter(~pl.col("back")) if "back" in real else real
    spot = pl.col("pricing_model") == "spot"
    ordered = (net.filter(~spot), net, back.filter(~spot), back, grouped)
    for frame in (*(f.filter(pl.col("chip") != UNKNOWN_CHIP) for f in ordered), *ordered):
        if frame.height:
            return frame.row(0, named=True)
    raise ValueError("no move to lead with")


def headline(data: ReportData) -> str:
    """'7 offers moved in price (9 price changes): 6 down, 1 up. 26 new offers, 13
    withdrawn.' Offers and changes are counted apart and named: one offer may change twice."""
    c = counts(data)
    if empty := no_data(data):
        return f"{empty[0].upper()}{empty[1:]}."
    if data.nothing_collected:
        return f"{nothing_collected_words(data)}."
    missed = not_collected_words(data)
    if not c.changed and missed:
        # Not "no offer moved": the prices of the sources not collected were not watched.
        collected = data.watched.height - len(data.not_collected)
        moves = f"No price changes among the {counted(collected, 'source')} collected; {missed}"
    elif not c.changed:
        moves = "No offer moved in price"
    else:
        moves = (
            f"{counted(c.changed, 'offer')} moved in price ({counted(c.changes, 'price change')}"
            f" in all): {c.down} down, {c.up} up"
        )
        # An offer that moved and came back is neither down nor up: a glitch, or a real
        # move undone; said apart.
        back = c.changed - c.down - c.up - c.glitches
        if back:
            moves += f", {back} back where {'it was' if back == 1 else 'they were'}"
        if c.glitches:
            moves += f", {c.glitches} jumped out and back (likely a data glitch)"
    said = f"{moves}. {counted(c.new, 'new offer')}, {c.withdrawn} withdrawn."
    if c.changed and missed:
        said += f" {missed[0].upper()}{missed[1:]}: their prices are not in these counts."
    return said


def health_line(data: ReportData) -> str:
    """One sentence on the sources: stale now, as `chipcost sources` judges them at the moment
    the report was made, then what the period's figures rest on (the sources that had not
    succeeded by its end). "Stale" is said of now only, so the two moments cannot read as a
    contradiction; and the disagreements."""
    c = counts(data)
    total = data.health.height
    if total == 0:
        had = "had run by " + str(data.period.until) if data.has_history else "has run yet"
        return f"No source {had}."
    days, at = data.options.stale_days, data.at_end
    if c.stale:
        names = ", ".join(data.stale_sources["source"].to_list())
        then = (
            f"{at}, {c.stale} of {total} had not succeeded in the {days} days "
            f"before ({names}), so their prices in this report may be old"
        )
    else:
        then = (
            f"{at} each had succeeded in the {days} days before, so the "
            "period's prices are complete"
        )
    if data.stale_now is None:
        text = f"Sources: {then}."
    else:
        when = f"{data.generated_at:%Y-%m-%d %H:%M} UTC"
        text = f"Sources now ({when}): {_stale_now(data, total)}; {then}."
    if c.disagreements:
        text += (
            f" {counted(c.disagreements, 'offer')} where two sources disagree by more than "
            f"{data.options.disagree_pct:g}%."
        )
    if data.unrated.count:  # every read says what it left out for want of a rate
        text += f" Not in this report: {data.unrated.said()}."
        if data.unconverted:  # each named, in its own currency
            text += f" In their own currency: {unconverted_words(data.unconverted, why=False)}."
    return text


# Stale sources named in the line judged now; the rest counted (`chipcost sources` has all).
NAMED_STALE = 6


def _stale_now(data: ReportData, total: int) -> str:
    """'24 of 24 stale (aws-bulk, ... and 18 more), as chipcost sources reports them (no
    success in the last 2 days)': judged as `chipcost sources` and every read judge them."""
    stale = data.stale_now or ()
    days = data.options.stale_days
    judged = f"as `chipcost sources` reports them (no success in the last {days} days)"
    end = data.sample_week_end
    week = f"the sample week, ending {end:%Y-%m-%d}" if end else "the sample week"
    sample = f"{len(data.sample_now)} of {total} hold {week} (bundled sample data)"
    if len(data.sample_now) == total:
        return f"{week} (bundled sample data, not live prices, as `chipcost sources` says)"
    if not stale:
        return f"none of the {total} stale, {judged}" + (f"; {sample}" if data.sample_now else "")
    names = ", ".join(stale[:NAMED_STALE])
    more = f" and {len(stale) - NAMED_STALE} more" if len(stale) > NAMED_STALE else ""
    said = f"{len(stale)} of {total} stale ({names}{more}), {judged}"
    return said + (f"; {sample}" if data.sample_now else "")


def lacks(data: ReportData) -> list[str]:
    """What the data cannot show for this period, in sentences a reader can act on."""
    cov, period = data.coverage, data.period
    if not data.has_history:
        return ["The warehouse holds no prices yet: run `chipcost collect` first."]
    notes = []
    if empty := no_data(data):
        notes.append(
            f"{empty[0].upper()}{empty[1:]}: changes, new and withdrawn offers are empty for "
            "that reason."
        )
    start = cov.history_start.date() if cov.history_start else None
    if start and start > period.since:
        notes.append(f"History starts on {start}: nothing is known of prices before that day.")
    if cov.days_in_period == 1 and start and start >= period.since:
        notes.append("Only one day of prices so far: nothing to compare it with yet.")
    if data.first_seen:
        verb = "is" if data.first_seen == 1 else "are"
        notes.append(
            f"{counted(data.first_seen, 'offer')} first seen in a source's first run in this "
            f"period {verb} the start of its history, not news, and {verb} not listed as new."
        )
    return notes


def mover_lines(moves: pl.DataFrame, limit: int) -> list[str]:
    """Two lines a move: the change, then where (plain text has no room for a table); offers
    that moved alike share them."""
    lines = []
    rows = alike_moves(moves).with_columns(place=place_of_alike())
    for row in shown_moves(rows, limit).iter_rows(named=True):
        prices = swing_words(row) if row.get("back") else f"{row['was']} -> {row['now']}"
        lines.append(f"  {move_text(row):>6}  {row['chip']}: {prices}")
        lines.append(f"          {row['place']} · {row['offer']}")
    return lines


def _answers(data: ReportData) -> list[str]:
    """The head-to-head answers, a line each (as the HTML body has them): the pair first, both
    costs per million tokens where known, the answer, and where its chart is in the attached
    report; then a blank line."""
    answers = data.head_to_head
    if data.ended_before_newest_prices or answers is None or answers.is_empty():
        return []
    lines = [
        f"Is chip A cheaper than chip B? (per token, on demand, {DEFAULT_SPEED} tokens/s per user; "
        f"each answer's chart is in the attached report, {report_name(data)}, under this heading)"
    ]
    for line in answer_lines(answers):
        costs = f"{line.costs}; " if line.costs else ""
        lines.append(f"- {line.head}: {costs}{plain(line.said)}")
    if note := estimated_costs_note(answers.to_dicts()):  # what est. after a cost means
        lines.append(plain(note.strip()))
    return [*lines, ""]


def text_body(data: ReportData, limit: int) -> str:
    """The plain-text alternative of the e-mail."""
    period = data.period
    lines = [f"Accelerator prices, {period.label} ({period.since} to {period.until}, UTC)", ""]
    if data.sample:
        lines += [SAMPLE_NOTE, ""]
    lines += [headline(data), plain(health_line(data)), *map(plain, lacks(data)), ""]
    # Spot moves apart, as in the HTML body: they move daily and would crowd out the rest.
    spot = pl.col("pricing_model") == "spot"
    groups = (
        ("list and commitment prices", data.moves.filter(~spot), limit, data.provisional_changes),
        ("spot prices", data.moves.filter(spot), max(1, limit // 2), data.provisional_spot),
    )
    listed = []
    for kind, moves, most, provisional in groups:
        if moves.height:
            shown = f"{counted(moves.height, 'offer')}; those that moved alike share a line"
            lines.append(f"Largest moves of {kind} ({shown}), USD per chip-hour:")
            lines += mover_lines(moves, most) + [""]
            # the euro prices of a day at an earlier day's rate, under the moves they are of
            if note := provisional_note(provisional):
                lines += [plain(note.strip()), ""]
            listed.append(shown_moves(alike_moves(moves), most))
    # What est. and (!) after a price mean, and which of the prices listed are the GPU's alone
    for note in marks_notes(pl.concat(listed, how="diagonal_relaxed")) if listed else []:
        lines += [plain(note), ""]
    lines += _answers(data)  # after what changed, as in the HTML body
    lines.append("The full report (HTML, with every change and the cheapest prices per chip) and")
    lines.append("a CSV of every change are attached.")
    return "\n".join(lines) + "\n"


# Markdown's own characters in scraped text are escaped, so a provider string can make no
# link, image, emphasis or code span in the artifact; "<" and ">" make no raw HTML.
_MARKDOWN = "\\`*_[]()!|#"


def _md(text: object) -> str:
    """A table cell safe in markdown: no column breaks, links, images or raw HTML."""
    found = str(text)
    for mark in _MARKDOWN:
        found = found.replace(mark, "\\" + mark)
    return found.replace("<", "&lt;").replace(">", "&gt;")


def markdown(data: ReportData, footer: list[str]) -> str:
    """The Prefect artifact: headline, health, largest moves, then the footer lines."""
    lines = [f"## Accelerator prices: {data.period.label}", ""]
    if data.sample:
        lines += [f"**{SAMPLE_NOTE}**", ""]
    lines += [headline(data), "", health_line(data), ""]
    lines += [f"- {_md(note)}" for note in lacks(data)]
    if data.moves.height:
        limit = data.options.top_movers
        lines += [
            "",
            "| change | chip | where | pricing | was | now |",
            "|---:|---|---|---|---:|---:|",
        ]
        # Offers of one provider that moved alike share a line, as in the e-mail.
        rows = alike_moves(data.moves).with_columns(place=place_of_alike())
        for row in rows.head(limit).iter_rows(named=True):
            cells = [
                move_text(row),
                row["chip"],
                row["place"],
                row["offer"],
                row["was"],
                swing_words(row) if row.get("back") else row["now"],
            ]
            lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join([*lines, "", *footer]) + "\n"
