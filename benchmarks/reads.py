"""The reads users wait for, timed on a warehouse: weekly drift, prices, cost per token."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import duckdb

from chipcost.core.frames import frame_of
from chipcost.warehouse.db import connect
from chipcost.warehouse.prices import per_chip_prices

# The weekly report's window and the length of its sparklines.
WEEK = timedelta(days=7)
TREND = timedelta(weeks=8)
TARGET_SECONDS = 0.5


def _timed(query: Callable[[], object], repeat: int = 5) -> tuple[int, float, float]:
    """Rows, seconds of the first run, median seconds of `repeat` more."""
    begin = time.perf_counter()
    result = query()
    cold = time.perf_counter() - begin
    warm = []
    for _ in range(repeat):
        begin = time.perf_counter()
        query()
        warm.append(time.perf_counter() - begin)
    return len(result), cold, statistics.median(warm)


def _cost_query(con: duckdb.DuckDBPyConnection) -> tuple[str, Callable[[], object]]:
    """`chipcost cost` for the model with the most throughput figures, else the raw view."""
    rows = con.execute(
        "SELECT model, workload FROM throughput GROUP BY ALL ORDER BY count(*) DESC LIMIT 1"
    ).fetchall()
    try:
        from chipcost.warehouse.cost_per_token import cost_rows
    except ImportError:
        cost_rows = None
    if not rows or cost_rows is None:
        return "cost_per_token (whole view)", lambda: frame_of(con.sql("FROM cost_per_token"))
    model, workload = rows[0]
    return f"chipcost cost --model {model} ({workload})", lambda: cost_rows(con, model, workload)


def time_reads(path: Path) -> list[tuple[str, int, float, float]]:
    """(label, rows, first run seconds, median warm seconds) of each read, read-only.

    The week is the one before the newest run, as the weekly report reads it.
    """
    from chipcost.warehouse import changes

    con = connect(path, read_only=True)
    try:
        newest: datetime = con.execute("SELECT max(observed_at) FROM runs").fetchall()[0][0]
        end = newest + timedelta(hours=1)
        start = end - WEEK
        cost_label, cost = _cost_query(con)
        reads: list[tuple[str, Callable[[], object]]] = [
            (
                "weekly drift: change events (7 days)",
                lambda: changes.change_events(con, start, end),
            ),
            (
                "weekly drift: moves with 8-week sparklines",
                lambda: changes.price_moves(con, start, end, end - TREND),
            ),
            ("chipcost prices (every current price)", lambda: per_chip_prices(con)),
            (
                "chipcost prices --chip H100-SXM",
                lambda: per_chip_prices(con, chips=["H100-SXM"]),
            ),
            (cost_label, cost),
            ("cost_per_token (whole view)", lambda: frame_of(con.sql("FROM cost_per_token"))),
        ]
        return [(label, *_timed(query)) for label, query in reads]
    finally:
        con.close()
