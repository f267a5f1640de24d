"""`chipcost history`: a chip's cheapest price per day per pricing model, as a table and chart."""

from __future__ import annotations

from typing import Any

from chipcost.cli.formats import OutputFormat, PriceFormat
from chipcost.cli.parser import Command
from chipcost.core.asks import HISTORY
from chipcost.core.errors import NoMatch


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
    for note in result.notes:
        notices(output).say(f"note: {note}")
    if mine.rates is not None:
        notices(output).say(f"note: {mine.rate_note(result.frame.to_dicts())}")
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
    from chipcost.cli.render_history import print_chart, print_history

    for chip in chips:
        rows = frame.filter(pl.col("chip") == chip)
        if rows.is_empty():
            out.say(missing[chip])
            continue
        print_history(out, chip, rows, currency)
        if chart:
            print_chart(out, chip, rows, currency)
