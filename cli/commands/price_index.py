"""`chipcost index`: the daily rental price index per chip, with its changes and constituents:
its table, the constituents of the newest day and the footnotes of the marks it used. The
question is chipcost.reads.price_index's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chipcost.cli.consoles import print_fitted
from chipcost.cli.fit import Column, fit_table, plain
from chipcost.cli.formats import OutputFormat
from chipcost.cli.parser import Command
from chipcost.core.asks import INDEX
from chipcost.core.errors import NoMatch
from chipcost.core.vocabulary import (
    ALONE_MARK,
    DOUBT_MARK,
    DOUBT_WHY,
    MODEL_LABELS,
    gpu_alone_note,
    gpu_alone_types,
    pricing_words,
)
from chipcost.transform.tokens import money_sign

if TYPE_CHECKING:
    import polars as pl

    from chipcost.cli.consoles import Screen


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
    if output is not OutputFormat.table:  # when empty, [] or the header: a pipe still parses
        from chipcost.cli.formats import with_currency, write_frame
        from chipcost.reads.price_index import shown

        write_frame(output, with_currency(shown(frame), mine.currency))
    if found.empty:
        raise NoMatch(found.empty)
    if output is not OutputFormat.table:
        if mine.rates is not None:
            notices(output).say(f"note: {mine.rate_note(frame.to_dicts())}")
        if found.provisional:
            notices(output).say(f"note: {found.provisional}")
        print_freshness(notices(output), fresh)
        return
    if asked["wide"]:
        widened(out)
    _show(frame, daily=bool(chip) or since is not None, currency=mine.currency)
    if mine.rates is not None:
        out.say(
            f"note: {mine.rate_note(frame.to_dicts())}; the providers' prices listed stay in USD",
        )
    if found.provisional:
        out.say(f"note: {found.provisional}")
    print_freshness(out, fresh)


index = Command("index", INDEX, _index)


def _show(frame, *, daily: bool, currency: str = "USD") -> None:
    from chipcost.cli.consoles import out
    from chipcost.cli.render import shown

    print_index_table(out, frame, currency)
    if not daily:
        out.say(
            "constituents per day: chipcost index --chip NAME (or --format csv/json)",
        )
    newest = frame.filter(frame["day"] == frame["day"].max()) if daily else frame.clear()
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
    from chipcost.cli.render import shown

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
    for note in mark_notes(frame):
        out.say(shown(note))


def mark_notes(frame: pl.DataFrame) -> list[str]:
    """What the table's marks beside a level say, each with the constituents it stands for (by
    chip and pricing model, each once): '(!) = ...' where a constituent's spot price is
    doubtful, '(GPU alone) = ...' where one is the GPU's alone, in the words prices says them
    (cli/price_cells.py doubt_note, core/vocabulary.py gpu_alone_note); none when no row is
    marked."""
    notes = []
    doubtful = _marked(frame, "doubtful")
    if doubtful:
        notes.append(
            f"{DOUBT_MARK.strip()} = the level includes {DOUBT_WHY}; --format csv/json: "
            "`doubtful`): " + "; ".join(doubtful)
        )
    alone = _marked(frame, "gpu_alone")
    if alone:
        providers = {p for row in frame["gpu_alone_providers"].drop_nulls() for p in row}
        # A source that prices the GPU alone is its provider's own (cudo, daytona, modal,
        # tensordock, gcp), so the note is asked of the provider; gcp's by one of its types
        # priced alone, as the index marked only those.
        offers = [(p, next(iter(gpu_alone_types(p)), "")) for p in sorted(providers)]
        notes.append(
            f"{ALONE_MARK.strip()} = the level includes a price of the GPU alone (--format "
            f"csv/json: `gpu_alone`): {'; '.join(alone)}; {gpu_alone_note(offers)}"
        )
    return notes


def _marked(frame: pl.DataFrame, column: str) -> list[str]:
    """'lium (RTX-5090 spot)': each provider `column` names, with the chips and pricing models
    of the rows it is named in: the providers as the index's query gives them
    (warehouse/price_index.py MARK_PROVIDERS, `column`_providers), in the order it names them."""
    seen: dict[str, dict[str, None]] = {}
    for row in frame.filter(frame[column].is_not_null()).iter_rows(named=True):
        where = f"{row['chip']} {MODEL_LABELS.get(row['pricing_model'], row['pricing_model'])}"
        for provider in row[f"{column}_providers"]:
            seen.setdefault(provider, {})[where] = None
    return [f"{p} ({', '.join(w)})" for p, w in seen.items()]


# Kept at any width: chip, pricing model, level and the providers behind it; the day and the moves
# (1d first) while they fit.
_COLUMNS = (
    Column("chip", "chip", essential=True),
    Column("pricing_model", "pricing model", essential=True),
    Column("day", "day"),
    Column("level", "level", numeric=True, essential=True),
    Column("1d", "1d", numeric=True),
    Column("7d", "7d", numeric=True),
    Column("30d", "30d", numeric=True),
    Column("providers", "providers", numeric=True, essential=True),
)
_KEEP_ORDER = ("7d", "1d", "30d", "day")


def change(percent: float | None) -> str:
    """'−0.7%' from a change in percent."""
    if percent is None:
        return ""
    percent = round(percent, 1)
    return "0%" if percent == 0 else f"{percent:+.1f}%".replace("-", "\u2212")


def print_index_table(console: Screen, frame: pl.DataFrame, currency: str = "USD") -> None:
    """The index's rows under a title naming the currency; '*' and '!' beside the providers."""
    cells = []
    for row in frame.iter_rows(named=True):
        moved = (" *" if row["constituents_changed"] else "") + (" !" if row["failing"] else "")
        level = row["level"]
        # The level includes a doubtful spot price or the GPU's alone: said beside it, as
        # prices marks such a price and the price explorer the GPU's alone (the note under the
        # table names them).
        marks = (DOUBT_MARK if row["doubtful"] else "") + (ALONE_MARK if row["gpu_alone"] else "")
        cells.append(
            {
                "chip": plain(row["chip"]),
                "pricing_model": plain(
                    pricing_words(row["pricing_model"], row["term"], None, None)
                ),
                "day": str(row["day"]),
                "level": "left out"
                if level is None
                else f"{money_sign(currency)}{level:,.4f}{marks}",
                "1d": change(row["change_1d_pct"]),
                "7d": change(row["change_7d_pct"]),
                "30d": change(row["change_30d_pct"]),
                "providers": f"{row['constituents']}{moved}",
            }
        )
    title = (
        f"rental price index: median of each provider's cheapest per-chip-hour price ({currency})"
    )
    columns = list(_COLUMNS)
    days = {c["day"] for c in cells}
    if len(days) == 1:  # one day for every row: said once in the title, not a column
        title += f", {days.pop()}"
        columns = [c for c in columns if c.key != "day"]
    console.say(title)
    fitted = fit_table(console, columns, cells, keep_order=_KEEP_ORDER)
    print_fitted(console, fitted)
