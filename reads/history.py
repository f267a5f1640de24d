"""What `chipcost history` and chipcost.history() do: check the filters, query, date the prices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import duckdb

from chipcost.core.asks import HISTORY
from chipcost.core.days import DAYS_WORDS, DayOutOfRange, utc_day
from chipcost.core.errors import UsageError
from chipcost.core.names import resolve_chip_names
from chipcost.core.questions import Voice
from chipcost.core.vocabulary import MODEL_LABELS, code_words
from chipcost.pipeline.clock import until_within
from chipcost.reads.price_ask import check_named, named_filters
from chipcost.reads.price_notes import held_elsewhere, left_out_words
from chipcost.reads.your_prices import YourPrices
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.fx import unrated_of
from chipcost.warehouse.history import daily_cheapest, daily_unrated, history_values
from chipcost.warehouse.prices import as_spelled, instance_spellings

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class HistoryAsk:
    """Filters as a user gives them: names may be families or comma lists, any case.
    `voice` names the fields in messages as the asker did ('--since 2026-11-01' or
    'since=2026-11-01')."""

    chips: Sequence[str] | str | None = None
    regions: Sequence[str] | str | None = None
    pricing_models: Sequence[str] | str | None = None
    providers: Sequence[str] | str | None = None
    instances: Sequence[str] | str | None = None
    since: date | None = None
    until: date | None = None
    voice: Voice = Voice(HISTORY)

    @classmethod
    def of(cls, asked: Mapping[str, Any], *, api: bool = False) -> HistoryAsk:
        """The ask of chipcost.core.asks.HISTORY's fields, the days read."""
        voice = Voice(HISTORY, api)
        return cls(
            chips=asked["chip"],
            regions=asked["region"],
            pricing_models=asked["pricing_model"],
            providers=asked["provider"],
            instances=asked["instance"],
            since=day_asked(asked["since"], voice, "since"),
            until=day_asked(asked["until"], voice, "until"),
            voice=voice,
        )


def day_asked(value: object, voice: Voice, name: str) -> date | None:
    """A day given as YYYY-MM-DD (or, from Python, a date or datetime), or a message naming
    the option as it was given. A time as chipcost prints one ('2026-11-21 06:00 UTC', or ISO
    8601 as csv and json write it) is its UTC day, as every day here is."""
    if value is None:
        return None
    try:
        if not isinstance(value, str | date):
            raise TypeError(value)
        return utc_day(value)
    except DayOutOfRange:
        raise UsageError(f"{voice.said(name, repr(value))}: give {DAYS_WORDS}") from None
    except (TypeError, ValueError):
        said = voice.said(name, repr(value))
        raise UsageError(
            f"{said}: give a day as YYYY-MM-DD"
            if voice.api
            else f"{said} is not a day: write one that exists as YYYY-MM-DD, e.g. 2026-11-01"
        ) from None


def days_in_order(since: date | None, until: date | None, voice: Voice) -> None:
    """Refuse a first day after the last (history's and index's --since and --until)."""
    if since and until and since > until:
        first, last = voice.said("since", since), voice.said("until", until)
        raise UsageError(f"{first} is after {last}: swap them")


@dataclass(frozen=True)
class HistoryResult:
    frame: pl.DataFrame  # daily_cheapest's columns
    freshness: Freshness  # of the sources the frame shows
    chips: list[str]  # the canonical chips the names stood for
    mine: YourPrices = YourPrices()  # the currency the prices are in (no discounts here)
    notes: tuple[str, ...] = ()  # what the read changed of the ask (an --until cut)


def find_history(
    con: duckdb.DuckDBPyConnection,
    ask: HistoryAsk,
    *,
    stale_days: int,
    now: datetime | None = None,
    mine: YourPrices | None = None,
) -> HistoryResult:
    """Each chip's cheapest price per pricing model per day, the names checked against the
    history (a region, pricing model or provider it never held is refused with the closest
    ones) and the days checked against each other."""
    days_in_order(ask.since, ask.until, ask.voice)
    chips = resolve_chip_names(ask.chips) or []
    named = named_filters(ask.regions, ask.pricing_models, ask.providers, ask.instances)
    if named["instances"]:  # as the history spells them (Azure's "Standard_" prefix)
        spellings = instance_spellings(con, history_values)
        named["instances"] = as_spelled(named["instances"], spellings)
    held = ("the history holds no price in", "its prices are in")
    check_named(con, named, known=history_values, held=held, voice=ask.voice)
    until, cut = until_within(con, ask.until, ask.voice)
    mine = mine or YourPrices()
    # The currency only: which offer was cheapest on a day is the list prices' answer.
    frame = daily_cheapest(
        con,
        chips,
        named["providers"],
        named["regions"],
        named["pricing_models"],
        ask.since,
        until,
        named["instances"],
        currency=mine.converting,
    )
    shown = frame["source"].unique().sort().to_list()
    # the days of a price no rate converts, each run of them named: the rows leave them out
    left = daily_unrated(
        con, chips, named["providers"], named["regions"], named["pricing_models"],
        ask.since, until, named["instances"],
    )  # fmt: skip
    fresh = freshness(con, shown, stale_days=stale_days, now=now, left=left)
    frame = mine.frame(frame)
    notes = ((cut,) if cut else ()) + _narrowed(named["pricing_models"] or [], ask.voice)
    return HistoryResult(frame=frame, freshness=fresh, chips=chips, mine=mine, notes=notes)


def _narrowed(codes: list[str], voice: Voice) -> tuple[str, ...]:
    """'the savings plan column is savings plan 1yr, all upfront only (--pricing-model)': a
    column is its pricing model's, so a term, payment or plan asked is said beside it."""
    said = []
    for code in codes:
        model, _, rest = code.partition(" ")
        if rest:
            label = MODEL_LABELS.get(model, model)
            said.append(
                f"the {label} column is {code_words(code)} only ({voice.name('pricing_model')})"
            )
    return tuple(said)


def why_no_history(con: duckdb.DuckDBPyConnection, ask: HistoryAsk, chips: list[str]) -> str:
    """A message for a history read that matched nothing: which part of the ask has none."""
    held = set(history_values(con, "chip"))
    if not held:
        return "the warehouse has no prices yet: run `chipcost collect`"
    named = ", ".join(chips) or "any chip"
    if chips and not any(c in held for c in chips):
        return f"the warehouse has never held a price of {named}: see `chipcost prices`"
    days = ""
    if ask.since or ask.until:
        days = f" from {ask.since or 'the start'} to {ask.until or 'the last run'}"
    filters = named_filters(ask.regions, ask.pricing_models, ask.providers, ask.instances)
    # A euro price no rate converts is in the history, not in its dollars: said, not "no price".
    kept = daily_unrated(
        con, chips or None, filters["providers"], filters["regions"],
        filters["pricing_models"], ask.since, ask.until, filters["instances"],
    )  # fmt: skip
    if kept:
        return (
            f"no prices of {named} in US dollars match these filters{days}: "
            f"{left_out_words(unrated_of(kept), kept)}"
        )
    where = held_elsewhere(con, chips, filters, table="price_history")
    return (
        f"no prices of {named} match these filters{days}{where}: check the region, pricing "
        "model, provider and days with `chipcost prices` and `chipcost sql`"
    )
