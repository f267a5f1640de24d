"""What `chipcost index` and `chipcost.index()` answer: the daily rental price index per chip
(warehouse/price_index.py holds the method; docs/price-index.md explains it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

import duckdb
import polars as pl

from chipcost.core.errors import ChipcostError, NoMatch
from chipcost.core.names import resolve_chip_names
from chipcost.pipeline.jumps import JUMP_FACTOR
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
    options: tuple[str, str, str] = ("--bucket ", "--since ", "--until ")


def _buckets(given: Sequence[str] | str | None, option: str) -> list[str]:
    names = [given] if isinstance(given, str) else list(given or [])
    found = [b.strip().lower() for name in names for b in name.split(",") if b.strip()]
    unknown = sorted(set(found) - set(BUCKETS))
    if unknown:
        raise ChipcostError(
            f"{option}{', '.join(unknown)}: not an index bucket; use {', '.join(BUCKETS)}"
        )
    return found or ["on_demand"]


def find_index(con: duckdb.DuckDBPyConnection, ask: IndexAsk) -> pl.DataFrame:
    """The index rows asked for: every day from since to until, or each chip's newest day."""
    bucket_option, since_option, until_option = ask.options
    if ask.since and ask.until and ask.since > ask.until:
        raise ChipcostError(f"{since_option}{ask.since} is after {until_option}{ask.until}")
    chips = resolve_chip_names(ask.chips) or None
    buckets = _buckets(ask.buckets, bucket_option)
    since = ask.since
    if since is None and not ask.latest:
        newest = con.execute("SELECT max(last_seen_at)::DATE FROM price_history").fetchall()[0][0]
        end = ask.until or newest
        since = end - timedelta(days=DEFAULT_DAYS - 1) if end else None
    frame = price_index(con, chips, buckets, since, ask.until, jump=JUMP_FACTOR)
    if ask.latest and not frame.is_empty():
        frame = frame.filter(pl.col("day") == pl.col("day").max().over("chip", "bucket"))
    if frame.is_empty():
        which = f" for {', '.join(chips)}" if chips else ""
        raise NoMatch(
            f"no index{which} ({', '.join(buckets)}) in the history"
            + (f" from {since}" if since else "")
            + (f" to {ask.until}" if ask.until else "")
            + ": run `chipcost collect` (or `chipcost backfill` for past years), or widen the days"
        )
    return frame
