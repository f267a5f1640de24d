"""Which prices the report shows are estimates (no public page gives them), looked up for the
rows it shows, by the rule every read marks them by (chipcost.warehouse.prices ESTIMATE)."""

from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.warehouse.bound import relation
from chipcost.warehouse.prices import ESTIMATE

# Each shown row, numbered, with the moment its price was in force at; the history row of
# its offer in force then (valid_from <= at < valid_to) is the price it shows.
_SHOWN = ", ".join(f"unnest(${c}) AS {c}" for c in (*HISTORY_KEY, "at"))
_ESTIMATES = f"""
WITH shown AS (SELECT unnest(range(len($at))) AS row_no, {_SHOWN})
SELECT s.row_no, {ESTIMATE} AS estimate
FROM shown s JOIN price_history p USING ({", ".join(HISTORY_KEY)})
WHERE p.valid_from <= s.at AND (p.valid_to IS NULL OR p.valid_to > s.at)
"""


def with_estimates(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, at: str) -> pl.DataFrame:
    """`frame` (rows of offers, HISTORY_KEY's columns) with `estimate`: what the price of each
    row rests on where it is an estimate, else None; `at` names the column of the moment each
    row's price was in force (a move's last change, a current price's last sighting)."""
    wanted = [*HISTORY_KEY, at]
    if frame.is_empty() or any(c not in frame.columns for c in wanted):
        return frame.with_columns(estimate=pl.lit(None, dtype=pl.String))
    params: dict[str, list] = {c: frame[c].to_list() for c in HISTORY_KEY}
    params["at"] = [_aware(t) for t in frame[at].to_list()]
    found = frame_of(relation(con, _ESTIMATES, params))
    marks: list[str | None] = [None] * frame.height
    for row_no, estimate in found.iter_rows():
        marks[row_no] = marks[row_no] or estimate
    return frame.with_columns(estimate=pl.Series(marks, dtype=pl.String))


def _aware(moment: datetime) -> datetime:
    """A moment as DuckDB compares it to the history's TIMESTAMPTZ (polars may drop its zone)."""
    from datetime import UTC

    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
