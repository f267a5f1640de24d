"""The prices a run's new records are compared with: each offer's current price, one query."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import duckdb

from chipcost.core.record import OFFER_KEY

_COLUMNS = ("source", *OFFER_KEY, "price_per_hour", "chip_count", "last_seen_at")


@dataclass(frozen=True)
class CurrentPrice:
    """An offer's open price_history row: its price and when a run last saw it."""

    price_per_hour: float
    chip_count: float
    last_seen_at: datetime


def current_prices(
    con: duckdb.DuckDBPyConnection, sources: list[str]
) -> dict[tuple[str, ...], CurrentPrice]:
    """(source, *offer key) -> current price, for every open offer of these sources."""
    if not sources:
        return {}
    marks = ", ".join("?" for _ in sources)
    rows = con.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM current_prices WHERE source IN ({marks})",
        list(sources),
    ).fetchall()
    width = len(OFFER_KEY) + 1
    return {tuple(row[:width]): CurrentPrice(*row[width:]) for row in rows}
