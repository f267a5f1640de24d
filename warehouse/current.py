"""The prices a run's new records moved far from: each such offer's current price, and how many
of each source's offers were compared, one query."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import duckdb
import polars as pl

from chipcost.core.frames import ArrowStream
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.warehouse.bound import execute

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class CurrentPrice:
    """An offer's open price_history row: its price and when a run last saw it, and how far
    the run's record moved from it (`factor`: the record's price per chip over this one's)."""

    price_per_hour: float
    chip_count: float
    last_seen_at: datetime
    factor: float


@dataclass(frozen=True)
class Moved:
    """The offers of a run that moved far: (source, *offer key) -> its current price; and, per
    source with such an offer, how many of its records had a current price to compare with."""

    prices: dict[tuple[str, ...], CurrentPrice] = field(default_factory=dict)
    compared: dict[str, int] = field(default_factory=dict)


def moved_prices(con: duckdb.DuckDBPyConnection, records: pl.DataFrame, factor: float) -> Moved:
    """Each offer of `records` (a records frame) whose price per chip moved more than `factor`
    up or down since a run last saw it, with its current price; and how many offers of its
    source were compared (a whole table that moved is told from a few offers that did).

    Only observations newer than the current price count. Compared in the warehouse: the
    run's few thousand prices are not brought into Python to find a handful.
    """
    if records.is_empty():
        return Moved()
    keys = HISTORY_KEY
    con.register(
        "jump_candidates",
        ArrowStream(records.select(*keys, "price_per_hour", "chip_count", "observed_at")),
    )
    try:
        rows = execute(
            con,
            f"""
            WITH paired AS (
                SELECT {", ".join(f"h.{k}" for k in keys)}, h.price_per_hour, h.chip_count,
                    h.last_seen_at,
                    per_chip_hour(s.price_per_hour, s.chip_count) AS new_per_chip,
                    per_chip_hour(h.price_per_hour, h.chip_count) AS old_per_chip,
                    count(*) OVER (PARTITION BY h.source) AS compared
                FROM jump_candidates s JOIN price_history h USING ({", ".join(keys)})
                WHERE h.valid_to IS NULL AND s.observed_at > h.last_seen_at
            )
            SELECT {", ".join(keys)}, price_per_hour, chip_count, epoch_us(last_seen_at),
                new_per_chip / old_per_chip, compared
            FROM paired
            WHERE NOT (new_per_chip BETWEEN old_per_chip / ? AND old_per_chip * ?)
            """,
            [factor, factor],
        ).fetchall()
    finally:
        con.unregister("jump_candidates")
    width = len(keys)
    prices = {
        tuple(row[:width]): CurrentPrice(
            row[width],
            row[width + 1],
            _EPOCH + timedelta(microseconds=row[width + 2]),
            row[width + 3],
        )
        for row in rows
    }
    return Moved(prices, {row[0]: row[width + 4] for row in rows})


def currencies_changed(
    con: duckdb.DuckDBPyConnection, records: pl.DataFrame
) -> dict[str, tuple[int, str, str, datetime]]:
    """Per source, its offers whose records state another currency than their open price:
    (how many, the currency held, the one now stated, the oldest last sighting held). A
    provider that moves its prices into another currency moves them all by the rate, each
    within the jump factor: said once, as the change it is."""
    if records.is_empty():
        return {}
    keys = HISTORY_KEY
    con.register(
        "currency_candidates", ArrowStream(records.select(*keys, "currency", "observed_at"))
    )
    try:
        rows = execute(
            con,
            f"""
            SELECT h.source, count(*), min(h.currency), min(s.currency),
                epoch_us(min(h.last_seen_at))
            FROM currency_candidates s JOIN price_history h USING ({", ".join(keys)})
            WHERE h.valid_to IS NULL AND s.observed_at > h.last_seen_at
                AND s.currency <> h.currency
            GROUP BY h.source
            """,
        ).fetchall()
    finally:
        con.unregister("currency_candidates")
    return {
        source: (count, old, new, _EPOCH + timedelta(microseconds=since))
        for source, count, old, new, since in rows
    }
