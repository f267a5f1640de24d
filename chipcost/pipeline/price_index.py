"""What `chipcost index` and `chipcost.index()` answer: the daily rental price index per chip
(warehouse/price_index.py holds the method; docs/price-index.md explains it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import duckdb
import polars as pl

from chipcost.core.errors import ChipcostError, NoMatch
from chipcost.core.names import resolve_chip_names
from chipcost.core.questions import INDEX, Voice
from chipcost.core.settings import DEFAULT_STALE_DAYS
from chipcost.pipeline.clock import until_within
from chipcost.pipeline.history import day_asked
from chipcost.pipeline.jumps import JUMP_FACTOR
from chipcost.pipeline.your_prices import Rates
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.history import newest_day
from chipcost.warehouse.price_index import BUCKETS, price_index

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
        """The ask of chipcost.core.questions.INDEX's fields, the days read."""
        voice = Voice(INDEX, api)
        return cls(
            chips=asked["chip"],
            buckets=asked["pricing_model"],
            since=day_asked(asked["since"], voice, "since"),
            until=day_asked(asked["until"], voice, "until"),
            latest=asked["latest"],
            voice=voice,
            rates=rates,
            stale_days=stale_days,
        )


def _buckets(given: Sequence[str] | str | None, voice: Voice) -> list[str]:
    names = [given] if isinstance(given, str) else list(given or [])
    found = [b.strip().lower() for name in names for b in name.split(",") if b.strip()]
    unknown = sorted(set(found) - set(BUCKETS))
    if unknown:
        raise ChipcostError(
            f"{voice.said('pricing_model', ', '.join(unknown))}: not an index bucket; use "
            f"{', '.join(BUCKETS)}"
        )
    return found or ["on_demand"]


def in_currency(frame: pl.DataFrame, rates: Rates) -> pl.DataFrame:
    """The index in another currency: each day's level at that day's ECB rate, and each change
    between the two days' converted levels ((1 + change) x rate now / rate then - 1), so that
    a move of the rate moves the index as it moves what the chip-hour costs in that money.
    The constituents' prices (`prices`) stay the US dollars they were judged in."""
    days = set(frame["day"].to_list())
    wanted = days | {d - timedelta(days=n) for d in days for n in (1, 7, 30)}
    rate: dict = {}
    for day in wanted:
        try:
            rate[day] = rates.on(day)
        except ChipcostError:
            if day in days:
                raise

    def moved(column: str, back: int) -> list[float | None]:
        out = []
        for day, change in zip(frame["day"].to_list(), frame[column].to_list(), strict=True):
            then = rate.get(day - timedelta(days=back))
            out.append(None if change is None or then is None
                       else (1 + change) * rate[day][0] / then[0] - 1)  # fmt: skip
        return out

    levels = zip(frame["day"].to_list(), frame["level"].to_list(), strict=True)
    converted = [None if level is None else level * rate[day][0] for day, level in levels]
    return frame.with_columns(
        pl.Series("level", converted, dtype=pl.Float64),
        pl.Series("change_1d", moved("change_1d", 1), dtype=pl.Float64),
        pl.Series("change_7d", moved("change_7d", 7), dtype=pl.Float64),
        pl.Series("change_30d", moved("change_30d", 30), dtype=pl.Float64),
        pl.lit(rates.currency).alias("currency"),
        pl.Series("usd_rate", [rate[d][0] for d in frame["day"]], dtype=pl.Float64),
        pl.Series("rate_day", [rate[d][1] for d in frame["day"]], dtype=pl.Date),
    )


def find_index(con: duckdb.DuckDBPyConnection, ask: IndexAsk) -> pl.DataFrame:
    """The index rows asked for: every day from since to until, or each chip's newest day."""
    if ask.since and ask.until and ask.since > ask.until:
        first, last = ask.voice.said("since", ask.since), ask.voice.said("until", ask.until)
        raise ChipcostError(f"{first} is after {last}")
    chips = resolve_chip_names(ask.chips) or None
    buckets = _buckets(ask.buckets, ask.voice)
    since = ask.since
    until = until_within(con, ask.until, ask.voice)[0]
    if since is None and not ask.latest:
        end = until or newest_day(con)
        since = end - timedelta(days=DEFAULT_DAYS - 1) if end else None
    fresh = freshness(con, None, stale_days=ask.stale_days)
    frame = price_index(
        con, chips, buckets, since, until,
        jump=JUMP_FACTOR, failing=failing_since(fresh), stale_days=ask.stale_days,
    )  # fmt: skip
    if ask.latest and not frame.is_empty():
        frame = frame.filter(pl.col("day") == pl.col("day").max().over("chip", "bucket"))
    if frame.is_empty():
        which = f" for {', '.join(chips)}" if chips else ""
        raise NoMatch(
            f"no index{which} ({', '.join(buckets)}) in the history"
            + (f" from {since}" if since else "")
            + (f" to {until}" if until else "")
            + ": run `chipcost collect` (or `chipcost backfill` for past years), or widen the days"
        )
    if ask.rates is not None:
        frame = in_currency(frame, ask.rates)
    # As every read's rows: whether the prices it rests on are the bundled sample's.
    return frame.with_columns(pl.lit(bool(fresh.sample)).alias("sample"))


def failing_since(fresh: Freshness) -> dict[str, date]:
    """Each source whose latest attempt did not succeed, with the day of its last success:
    the index flags its carried prices, and leaves them out past the stale limit."""
    return {
        s.source: s.last_ok_at.date()
        for s in fresh.sources
        if s.last_status not in ("ok", "already_loaded") and s.last_ok_at is not None
    }
