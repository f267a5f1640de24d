"""What `chipcost index` and `chipcost.index()` answer: the daily rental price index per chip
(warehouse/price_index.py holds the method; docs/price-index.md explains it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import duckdb
import polars as pl

from chipcost.core.asks import INDEX
from chipcost.core.errors import UsageError
from chipcost.core.names import resolve_chip_names, split_values
from chipcost.core.questions import Voice
from chipcost.core.settings import DEFAULT_STALE_DAYS
from chipcost.core.vocabulary import MODEL_LABELS, old_spelling
from chipcost.pipeline.clock import until_within
from chipcost.pipeline.jumps import JUMP_FACTOR
from chipcost.reads.history import day_asked, days_in_order
from chipcost.reads.price_ask import pricing_model_name
from chipcost.reads.price_notes import left_out_words
from chipcost.reads.your_prices import Rates
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.fx import unrated_of
from chipcost.warehouse.history import newest_day
from chipcost.warehouse.price_index import (
    BUCKETS,
    COMMITMENT_TERM,
    MARK_COLUMNS,
    MARK_PROVIDERS,
    buckets_held,
    index_unrated,
    price_index,
)

# With chips named and no --since: the last 30 days of their index.
DEFAULT_DAYS = 30


@dataclass(frozen=True)
class IndexAsk:
    chips: Sequence[str] | str | None = None
    buckets: Sequence[str] | str | None = None
    since: date | None = None
    until: date | None = None
    latest: bool = False  # only each chip's newest day (the overview)
    voice: Voice = Voice(INDEX)  # names the fields in messages as the asker did
    rates: Rates | None = None  # the currency to state the index in; None: US dollars
    stale_days: int = DEFAULT_STALE_DAYS  # a failing source's prices are left out past this

    @classmethod
    def of(
        cls,
        asked: Mapping[str, Any],
        *,
        rates: Rates | None = None,
        api: bool = False,
        stale_days: int = DEFAULT_STALE_DAYS,
    ) -> IndexAsk:
        """The ask of chipcost.core.asks.INDEX's fields, the days and pricing models read (an
        old spelling noted once, here)."""
        voice = Voice(INDEX, api)
        return cls(
            chips=asked["chip"],
            buckets=_buckets(asked["pricing_model"], voice),
            since=day_asked(asked["since"], voice, "since"),
            until=day_asked(asked["until"], voice, "until"),
            latest=asked["latest"],
            voice=voice,
            rates=rates,
            stale_days=stale_days,
        )


_COMMITMENT_LABELS = ("commitment 1yr", "1_yr_commitment", "commit_1yr")


def _buckets(given: Sequence[str] | str | None, voice: Voice) -> list[str]:
    found = [pricing_model_name(b) for b in split_values(given, "pricing model") or []]
    # the commitment rows as the index's table labels them, and the report's column
    found = ["commitment" if b in _COMMITMENT_LABELS else b for b in found]
    if COMMITMENT_TERM in found:  # the 1-year commitments' old name, taken for one release
        old_spelling(voice.said("pricing_model", COMMITMENT_TERM),
                     voice.said("pricing_model", "commitment"))  # fmt: skip
        found = ["commitment" if b == COMMITMENT_TERM else b for b in found]
    unknown = sorted(set(found) - set(BUCKETS))
    if unknown:
        raise UsageError(
            f"{voice.said('pricing_model', ', '.join(unknown))}: not a pricing model of the "
            f"index; use {', '.join(BUCKETS)} (commitment: any 1-year commitment)"
        )
    return list(dict.fromkeys(found)) or ["on_demand"]


def find_index(con: duckdb.DuckDBPyConnection, ask: IndexAsk) -> pl.DataFrame:
    """The index rows asked for: every day from since to until, or each chip's newest day;
    none where none is (why_no_index says why)."""
    days_in_order(ask.since, ask.until, ask.voice)
    chips = resolve_chip_names(ask.chips) or None
    buckets = _buckets(ask.buckets, ask.voice)
    since, until = _days(con, ask)
    fresh = freshness(con, None, stale_days=ask.stale_days)
    frame = price_index(
        con, chips, buckets, since, until,
        jump=JUMP_FACTOR, failing=failing_since(fresh), stale_days=ask.stale_days,
        currency=ask.rates.currency if ask.rates else None, providers=True,
    )  # fmt: skip
    if ask.latest and not frame.is_empty():
        frame = frame.filter(pl.col("day") == pl.col("day").max().over("chip", "pricing_model"))
    if ask.rates is not None and frame["usd_rate"].null_count():
        raise ask.rates.missing(frame.filter(pl.col("usd_rate").is_null())["rate_day"][0])
    # As every read's rows: whether the prices it rests on are the bundled sample's; the
    # constituents' marks after it, so that every column before keeps its place; the providers
    # each mark names last, which the command line's notes say and no output writes (shown).
    frame = frame.with_columns(pl.lit(bool(fresh.sample)).alias("sample"))
    marks = (*MARK_COLUMNS, *MARK_PROVIDERS)
    return frame.select(pl.exclude(marks), *marks)


def shown(frame: pl.DataFrame) -> pl.DataFrame:
    """find_index's rows as every output writes them (csv, json, Python's frame): without the
    providers its marks name (MARK_PROVIDERS), which only the notes under the table say."""
    return frame.drop(MARK_PROVIDERS, strict=False)


def why_no_index(con: duckdb.DuckDBPyConnection, ask: IndexAsk) -> str:
    """Why the index asked has no row: the days past the newest prices, prices no rate
    converts to US dollars, or none in the history of those days."""
    chips = resolve_chip_names(ask.chips) or None
    buckets = _buckets(ask.buckets, ask.voice)
    since, until = _days(con, ask)
    which = f" for {', '.join(chips)}" if chips else ""
    if since and until and since > until:  # --until was cut to the newest prices
        return (
            f"no index{which}: {ask.voice.said('since', since)} is after the newest prices "
            f"({until}); give an earlier day"
        )
    held = buckets_held(con, chips)
    if chips and held and not set(buckets) & set(held):  # no such offer on any day
        return (
            f"no index{which} ({', '.join(buckets)}): the history holds no "
            f"{_in_words(buckets, 'or')} offer of {', '.join(chips)} on any day, only "
            f"{_in_words(held, 'and')}: give {ask.voice.said('pricing_model', ','.join(held))}"
        )
    kept = index_unrated(con, chips, buckets, since, until)
    if kept:  # euro prices no rate converts: in the history, not in its dollars
        return (
            f"no index{which} ({', '.join(buckets)}) in US dollars: "
            f"{left_out_words(unrated_of(kept), kept)}"
        )
    return (
        f"no index{which} ({', '.join(buckets)}) in the history"
        + (f" from {since}" if since else "")
        + (f" to {until}" if until else "")
        + ": run `chipcost collect` (or `chipcost backfill` for past years), or widen the days"
    )


def _in_words(buckets: Sequence[str], joined: str) -> str:
    """'on demand and spot', '1-year commitment': the index's pricing models in prose."""
    words = ["1-year commitment" if b == "commitment" else MODEL_LABELS[b]
             for b in buckets]  # fmt: skip
    return f" {joined} ".join(words)


def _days(con: duckdb.DuckDBPyConnection, ask: IndexAsk) -> tuple[date | None, date | None]:
    """The first and last day the index is read for: the days asked, `until` cut to the
    newest prices; with no `since`, the DEFAULT_DAYS to `until` (for `latest`: every day,
    each chip's newest kept)."""
    since = ask.since
    until = until_within(con, ask.until, ask.voice)[0]
    if since is None and not ask.latest:
        end = until or newest_day(con)
        since = end - timedelta(days=DEFAULT_DAYS - 1) if end else None
    return since, until


def index_left_out(con: duckdb.DuckDBPyConnection, ask: IndexAsk) -> list[dict[str, object]]:
    """The constituents the index asked leaves out of some of its days for want of a rate,
    each run of days one row in its own currency (chipcost.warehouse.price_index.
    index_unrated): what the index says under its rows."""
    chips = resolve_chip_names(ask.chips) or None
    since, until = _days(con, ask)
    if ask.latest and since is None:  # the newest day is what it shows
        since = until or newest_day(con)
    return index_unrated(con, chips, _buckets(ask.buckets, ask.voice), since, until)


def failing_since(fresh: Freshness) -> dict[str, date]:
    """Each source whose latest attempt did not succeed, with the day of its last success:
    the index flags its carried prices, and leaves them out past the stale limit."""
    return {
        s.source: s.last_ok_at.date()
        for s in fresh.sources
        if s.last_status not in ("ok", "already_loaded") and s.last_ok_at is not None
    }
