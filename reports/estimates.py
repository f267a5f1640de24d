"""Which prices the report shows are estimates (no public page gives them) or doubtful spot
prices (not below their offer's on-demand price), looked up for the rows it shows, by the rule
every read marks them by (chipcost.warehouse.prices marks_of), and which are the GPU's alone
(core.vocabulary.gpu_alone)."""

from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.vocabulary import HISTORY_KEY, gpu_alone
from chipcost.warehouse.bound import relation
from chipcost.warehouse.prices import marked_on, marks_of

# Each shown row, numbered, with the moment its price was in force at; the history row of
# its offer in force then (valid_from <= at < valid_to) is the price it shows.
_SHOWN = ", ".join(f"unnest(${c}) AS {c}" for c in (*HISTORY_KEY, "at"))
_ESTIMATES = f"""
WITH shown AS (SELECT unnest(range(len($at))) AS row_no, {_SHOWN}),
priced AS (
    SELECT s.row_no, p.*
    FROM shown s JOIN price_history p USING ({", ".join(HISTORY_KEY)})
    WHERE p.valid_from <= s.at AND (p.valid_to IS NULL OR p.valid_to > s.at)
)
SELECT p.row_no, nullif(m.estimate, '') AS estimate, m.spot_doubt
FROM priced p LEFT JOIN ({marks_of("priced")}) m ON {marked_on("p")}
"""


def with_estimates(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, at: str) -> pl.DataFrame:
    """`frame` (rows of offers, HISTORY_KEY's columns) with the marks of each row's price, as
    `prices` marks it: `estimate`, what it rests on where it is an estimate, `spot_doubt`,
    why a spot price is doubtful, each else None, and `gpu_alone`, whether it is the GPU's
    alone (its host billed beside it); `at` names the column of the moment each row's price
    was in force (a move's last change, a current price's last sighting)."""
    wanted = [*HISTORY_KEY, at]
    if frame.is_empty() or any(c not in frame.columns for c in wanted):
        return frame.with_columns(
            estimate=pl.lit(None, dtype=pl.String),
            spot_doubt=pl.lit(None, dtype=pl.String),
            gpu_alone=pl.lit(False),
        )
    params: dict[str, list] = {c: frame[c].to_list() for c in HISTORY_KEY}
    params["at"] = [_aware(t) for t in frame[at].to_list()]
    found = frame_of(relation(con, _ESTIMATES, params))
    estimates: list[str | None] = [None] * frame.height
    doubts: list[str | None] = [None] * frame.height
    for row_no, estimate, doubt in found.iter_rows():
        estimates[row_no] = estimates[row_no] or estimate
        doubts[row_no] = doubts[row_no] or doubt
    return with_gpu_alone(
        frame.with_columns(
            estimate=pl.Series(estimates, dtype=pl.String),
            spot_doubt=pl.Series(doubts, dtype=pl.String),
        )
    )


def with_gpu_alone(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` (rows of offers with their source and instance type) with `gpu_alone`: whether
    each row's price is the GPU's alone, its host billed beside it (core.vocabulary.gpu_alone),
    as `prices` says it."""
    rows = frame.select("source", "instance_type").iter_rows()
    return frame.with_columns(
        gpu_alone=pl.Series([gpu_alone(s, t) for s, t in rows], dtype=pl.Boolean)
    )


def _aware(moment: datetime) -> datetime:
    """A moment as DuckDB compares it to the history's TIMESTAMPTZ (polars may drop its zone)."""
    from datetime import UTC

    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
