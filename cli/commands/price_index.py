"""`chipcost index`: the daily rental price index per chip, with its changes and constituents."""

from __future__ import annotations

from typing import Any

from chipcost.cli.formats import OutputFormat
from chipcost.cli.parser import Command
from chipcost.core.asks import INDEX


def _index(**given: Any) -> None:
    """The daily rental price index per chip (chipcost.core.asks.INDEX)."""
    from chipcost.cli.consoles import notices, out
    from chipcost.cli.options import widened
    from chipcost.cli.render_fresh import print_freshness
    from chipcost.reads.answers import index as answer

    asked = INDEX.given(given)
    chip, since, output = asked["chip"], asked["since"], OutputFormat(asked["format"])
    # Every chip's latest day unless chips or a first day are asked for.
    asked["latest"] = not chip and since is None
    found = answer(asked)
    frame, mine, cut, fresh = found.frame, found.mine, found.cut, found.freshness
    if cut:
        notices(output).say(f"note: {cut}")
    if output is not OutputFormat.table:
        from chipcost.cli.formats import with_currency, write_frame

        write_frame(output, with_currency(frame, mine.currency))
        if mine.rates is not None:
            notices(output).say(f"note: {mine.rate_note(frame.to_dicts())}")
        print_freshness(notices(output), fresh)
        return
    if asked["wide"]:
        widened(out)
    _show(frame, daily=bool(chip) or since is not None, currency=mine.currency)
    if mine.rates is not None:
        out.say(
            f"note: {mine.rate_note(frame.to_dicts())}; the providers' prices listed stay in USD",
        )
    print_freshness(out, fresh)


index = Command("index", INDEX, _index)


def _show(frame, *, daily: bool, currency: str = "USD") -> None:
    from chipcost.cli.consoles import out
    from chipcost.cli.render import shown
    from chipcost.cli.render_index import print_index_table

    print_index_table(out, frame, currency)
    if not daily:
        out.say(
            "constituents per day: chipcost index --chip NAME (or --format csv/json)",
        )
    newest = frame.filter(frame["day"] == frame["day"].max()) if daily else frame.clear()
    from chipcost.core.vocabulary import MODEL_LABELS

    for row in newest.iter_rows(named=True):
        paid = MODEL_LABELS.get(row["pricing_model"], row["pricing_model"])
        out.say(shown(f"{row['chip']} {paid} {row['day']}: {row['prices'] or 'none kept'}"))
        if row["failing"]:
            out.say(shown(f"  from a failing source: {row['failing']}"))
        if row["left_out"]:
            out.say(shown(f"  left out: {row['left_out']}"))
    _footnotes(frame)


def _footnotes(frame) -> None:
    """The footnotes of the marks the table used, and only those."""
    from chipcost.cli.consoles import out

    if frame["constituents_changed"].any():  # the footnote only where a row is starred
        out.say(
            "* the providers differ from the day before (an entry or exit moved the level, not "
            "only prices); method: docs/price-index.md",
        )
    if frame["failing"].is_not_null().any():
        out.say(
            "! a constituent's source failed its latest attempt: its last good price is kept up "
            "to CHIPCOST_STALE_DAYS days, then left out (--format csv/json: `failing`)",
        )
    if frame["level"].is_null().any():
        out.say(
            "left out: every price of that day was left out (`left_out` says why)",
        )
