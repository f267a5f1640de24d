"""Each read answered once, for the command line and the Python API alike: the ask checked in
the asker's words (`api`: `max_price=3` from Python, else `--max-price 3`), the warehouse
opened read-only, the read found, the warehouse closed. The command line renders what these
return (each command's module in chipcost.cli.commands); chipcost.api returns the frame.
`asked` holds every field of the read's question (chipcost.core.asks) by name, as
`Question.given` returns it.

`sources` too (the runs, or each source's freshness; before the first collection the
registered sources alone), and `sql`: the command line reads its rows within the row bounds,
with the warehouse's freshness from the same open, the API a frame (chipcost.warehouse.readonly)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from chipcost.core.asks import COMPARE, COST, MAX_LIMIT
from chipcost.core.errors import UsageError
from chipcost.core.questions import COMMAND_LINE, PYTHON, Voice
from chipcost.core.settings import Settings, load_settings
from chipcost.reads.price_ask import PriceAsk
from chipcost.reads.prices import PriceResult, PriceRows
from chipcost.reads.your_prices import YourPrices, for_read
from chipcost.warehouse.reader import limit_hit, read_connection

if TYPE_CHECKING:  # each read imports what it alone needs: a read's start-up is timed
    import polars as pl

    from chipcost.reads.compare import CompareResult
    from chipcost.reads.cost import CostRanking
    from chipcost.reads.history import HistoryResult
    from chipcost.warehouse.freshness import Freshness
    from chipcost.warehouse.readonly import QueryResult


def _voice(api: bool) -> Voice:
    """Who asked, where no read's question is at hand: the command line or Python."""
    return PYTHON if api else COMMAND_LINE


@contextmanager
def reading(
    db: str | Path | None, stale_days: int | None = None, *, api: bool = False
) -> Iterator[tuple[duckdb.DuckDBPyConnection, Settings]]:
    """The warehouse open read-only for one read (`stale_days`, when given, over the
    settings'; `api`: messages name db= rather than --db); a read limit reached is said
    naming its variable."""
    with _opened(_settings(db, stale_days, api)) as opened:
        yield opened


def _settings(db: str | Path | None, stale_days: int | None, api: bool) -> Settings:
    """The read's settings: `stale_days`, when given, over the environment's."""
    settings = load_settings(db=db, voice=_voice(api))
    return settings if stale_days is None else replace(settings, stale_days=stale_days)


@contextmanager
def _opened(settings: Settings) -> Iterator[tuple[duckdb.DuckDBPyConnection, Settings]]:
    con = read_connection(settings)
    try:
        yield con, settings
    except (duckdb.InterruptException, duckdb.OutOfMemoryException) as exc:
        raise limit_hit(exc, settings.read_limits) or exc from None
    finally:
        con.close()


@dataclass(frozen=True)
class PriceAnswer:
    found: PriceResult | PriceRows
    ask: PriceAsk  # as read: `hints` says where a name was read as something else
    empty: str | None = None  # why nothing matched (the command line's; None from Python)


def prices(asked: Mapping[str, Any], *, api: bool = False, rows: bool = False) -> PriceAnswer:
    """The current prices asked for: as rows (a terminal's table, which imports no polars) or
    a frame; from Python, each offer once (chipcost.reads.prices.each_offer_once)."""
    from chipcost.reads.instances import instances_named_as_chips
    from chipcost.reads.price_notes import why_empty
    from chipcost.reads.prices import each_offer_once, find_price_rows, find_prices

    with reading(asked["db"], asked.get("stale_days"), api=api) as (con, settings):
        mine = for_read(con, asked["currency"], asked["list_prices"], voice=_voice(api))
        ask = instances_named_as_chips(con, PriceAsk.of(asked, api=api))
        find = find_price_rows if rows else find_prices
        found = find(con, ask, stale_days=settings.stale_days, mine=mine)
        if isinstance(found, PriceResult) and api:
            return PriceAnswer(replace(found, frame=each_offer_once(con, found.frame)), ask)
        none = not found.rows if isinstance(found, PriceRows) else found.frame.is_empty()
        return PriceAnswer(found, ask, why_empty(con, found.chips, ask) if none else None)


def cost(
    asked: Mapping[str, Any], *, api: bool = False, limit: int = 10**9, table: bool = True
) -> CostRanking:
    """The ranking per token of every offer asked for, cheapest first, `limit` rows at most;
    its notes worded for a table, or for csv and json (not `table`)."""
    from chipcost.reads import cost_asked
    from chipcost.reads.cost import rank_cost

    voice = Voice(COST, api)
    checked = cost_asked.checked(asked, voice)
    question = cost_asked.question(checked, voice)
    with reading(checked["db"], asked.get("stale_days"), api=api) as (con, settings):
        ask = cost_asked.ranking(con, checked, voice, limit=limit, stale_days=settings.stale_days)
        return rank_cost(con, ask, question, table=table)


def compare(asked: Mapping[str, Any], *, api: bool = False) -> CompareResult:
    """Chip A against chip B on every pricing model both have an offer on."""
    from chipcost.reads import cost_asked
    from chipcost.reads.compare import compare as compare_chips
    from chipcost.reads.cost_asked import baseline_chip

    voice = Voice(COMPARE, api)
    a = baseline_chip(asked["chip_a"], "chip_a" if api else "chip A")
    b = baseline_chip(asked["chip_b"], "chip_b" if api else "chip B")
    checked = cost_asked.checked({**asked, "baseline": b, "all_offers": True}, voice)
    with reading(checked["db"], asked.get("stale_days"), api=api) as (con, settings):
        limit, stale_days = MAX_LIMIT, settings.stale_days
        ask = cost_asked.ranking(con, checked, voice, limit=limit, stale_days=stale_days)
        return compare_chips(con, ask, a, b)


@dataclass(frozen=True)
class HistoryAnswer:
    found: HistoryResult
    empty: str | None = None  # why nothing matched (the command line's; None from Python)
    # Of several chips asked for, why each without a row has none (the command line's).
    missing: dict[str, str] | None = None
    provisional: str | None = None  # days converted at an earlier rate than their own (_later)


def history(asked: Mapping[str, Any], *, api: bool = False) -> HistoryAnswer:
    """Each chip's cheapest price per pricing model per day, in the currency asked for (no
    discounts: which offer was cheapest on a day is the list prices' answer)."""
    from chipcost.reads.history import HistoryAsk, find_history, why_no_history

    ask = HistoryAsk.of(asked, api=api)
    with reading(asked["db"], asked.get("stale_days"), api=api) as (con, settings):
        mine = for_read(con, asked["currency"], list_prices=True, voice=_voice(api))
        found = find_history(con, ask, stale_days=settings.stale_days, mine=mine)
        if api:
            return HistoryAnswer(found)
        empty = why_no_history(con, ask, found.chips) if found.frame.is_empty() else None
        shown = set() if empty else set(found.frame["chip"].unique().to_list())
        missing = {
            c: why_no_history(con, ask, [c]) for c in found.chips if not empty and c not in shown
        }
        return HistoryAnswer(found, empty, missing, _later(con, found.frame))


@dataclass(frozen=True)
class IndexAnswer:
    frame: pl.DataFrame
    mine: YourPrices  # the currency it is stated in
    cut: str = ""  # an `until` past the newest day, cut to it (the command line's note)
    # The freshness of every source with current prices: the index rests on them all (the
    # command line's; None from Python).
    freshness: Freshness | None = None
    # the constituents left out of some days for want of a rate, each run of days in its own
    # currency (chipcost.reads.price_index.index_left_out)
    left_out: tuple[dict[str, object], ...] = ()
    empty: str | None = None  # why no row is (the command line's; Python's NoMatch says it)
    provisional: str | None = None  # days converted at an earlier rate than their own (_later)


def _later(con, frame: pl.DataFrame) -> str | None:
    """What says that the euro prices of some of `frame`'s days (of its chips and pricing
    models) are converted at an earlier day's rate, their own not yet loaded, and will be
    restated once it is (chipcost.warehouse.fx.provisional); None when none is."""
    from chipcost.warehouse.fx import provisional

    if frame.is_empty():
        return None
    found = provisional(
        con,
        frame["day"].min(),
        frame["day"].max(),
        frame["pricing_model"].unique().to_list(),
        frame["chip"].unique().to_list(),
    )
    return found.said() if found else None


def index(asked: Mapping[str, Any], *, api: bool = False) -> IndexAnswer:
    """The daily price index rows asked for; from Python, none raises NoMatch saying why."""
    from chipcost.core.errors import NoMatch
    from chipcost.pipeline.clock import until_within
    from chipcost.reads.price_index import IndexAsk, find_index, index_left_out, why_no_index
    from chipcost.warehouse.freshness import freshness

    ask = IndexAsk.of(asked, api=api)
    with reading(asked["db"], asked.get("stale_days"), api=api) as (con, settings):
        mine = for_read(
            con, asked["currency"], list_prices=True, voice=_voice(api)
        )  # the currency only
        ask = replace(ask, rates=mine.rates, stale_days=settings.stale_days)
        frame = find_index(con, ask)
        empty = why_no_index(con, ask) if frame.is_empty() else None
        if empty and api:
            raise NoMatch(empty)
        # the constituents left out of its days for want of a rate, each named in its own
        # currency with those days
        left = tuple(index_left_out(con, ask))
        if api:
            return IndexAnswer(frame, mine, left_out=left)
        cut = until_within(con, ask.until, ask.voice)[1]
        fresh = freshness(con, None, stale_days=settings.stale_days, left=left)
        return IndexAnswer(frame, mine, cut, fresh, left, empty, _later(con, frame))


def sql(asked: Mapping[str, Any], *, api: bool = False) -> pl.DataFrame:
    """An ad hoc read-only query (one SELECT, or an EXPLAIN of one) under the read limits, as a
    frame (types polars holds)."""
    from chipcost.warehouse.readonly import run_readonly

    if not isinstance(asked["query"], str):
        raise UsageError(f"query={asked['query']!r}: give the query as text (SELECT ...)")
    settings = _settings(asked["db"], asked.get("stale_days"), api)
    return run_readonly(
        settings.warehouse, asked["query"], wait=settings.read_wait, limits=settings.read_limits
    )


def sql_rows(asked: Mapping[str, Any], *, max_rows: int | None = None) -> QueryResult:
    """The same query's rows as Python values, every DuckDB type included, up to `max_rows`
    and the row bounds, with the warehouse's freshness read in the same open: what the
    command line prints."""
    from chipcost.warehouse.readonly import read_rows

    settings = _settings(asked["db"], asked.get("stale_days"), api=False)
    return read_rows(
        settings.warehouse,
        asked["query"],
        wait=settings.read_wait,
        stale_days=settings.stale_days,
        limits=settings.read_limits,
        max_rows=max_rows,
    )


def prices_held(db: str | Path | None, *, api: bool = False) -> None:
    """Refuse a warehouse that holds no current price yet (NoMatch: exit 1), before anything
    is written of it (the price explorer)."""
    from chipcost.core.errors import NoMatch
    from chipcost.reads.price_notes import NO_PRICES_YET
    from chipcost.warehouse.prices import holds_current_prices

    with reading(db, api=api) as (con, _):
        if not holds_current_prices(con):
            raise NoMatch(NO_PRICES_YET)


def sources(
    db: str | Path | None, stale_days: int | None = None, *, runs: bool = False, api: bool = False
) -> pl.DataFrame:
    """Every registered source with its last successful run, age and staleness; with `runs`
    the warehouse's runs instead, newest first. Before the first collection (no warehouse
    file, none named) the registered sources alone."""
    from chipcost.reads.sources import registered_sources, run_table, source_table

    settings = _settings(db, stale_days, api)
    if not runs and db is None and not settings.is_lake and not settings.db_path.exists():
        return registered_sources()
    with _opened(settings) as (con, settings):
        return run_table(con) if runs else source_table(con, stale_days=settings.stale_days)
