"""Read queries behind the price explorer: every current offer with its chip's memory, and
the throughput figure chosen for each chip, model and workload."""

from __future__ import annotations

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.transform.cost import memory_needed_gb
from chipcost.warehouse.bound import relation
from chipcost.warehouse.fx import in_currency
from chipcost.warehouse.prices import SAMPLE, SPOT_BUCKET_JOIN, marked_on, marks_of

# Spot rows summarised per region (plan 'region_cheapest') repeat a zone's offer: left out.
# What a price rests on (an estimate) and a spot price's doubt (not below on demand) are its
# payload's marks, as `prices` reads them (marks_of).
_OFFERS = f"""
WITH offered AS (
    SELECT
        p.chip, c.memory_gb, p.provider, p.region, p.zone, p.instance_type, p.chip_count,
        p.vcpus, p.ram_gb, p.disk_gb,
        p.pricing_model, p.term, p.payment, p.plan,
        p.price_per_chip_hour, p.price_per_hour, p.upfront, p.source, p.valid_from,
        p.last_seen_at, si.interruption, {SAMPLE} AS sample, p.payload_ref, p.stated_currency
    FROM per_chip_prices p LEFT JOIN chips c USING (chip)
    {SPOT_BUCKET_JOIN}
    WHERE p.plan <> 'region_cheapest' AND p.chip <> 'unknown'
),
marks AS ({marks_of("offered")})
SELECT q.* EXCLUDE (payload_ref), m.estimate, m.spot_doubt
FROM offered q LEFT JOIN marks m ON {marked_on("q")}
ORDER BY q.chip, q.price_per_chip_hour, q.provider, q.region, q.zone, q.instance_type,
    q.pricing_model, q.term, q.payment, q.plan, q.source
"""

_THROUGHPUT = """
SELECT t.chip, t.model, t.workload, t.tokens_per_second_per_chip, t.kind, t.source,
    t.precision, t.scenario, m.parameters
FROM throughput_ranked t LEFT JOIN models m USING (model)
WHERE t.chosen
ORDER BY t.model, t.workload, t.chip
"""


def current_offers(con: duckdb.DuckDBPyConnection, currency: str | None = None) -> pl.DataFrame:
    """Every current per-chip offer of a known chip, with the chip's memory (GB), what its
    price rests on where it is an estimate and whether it is the bundled sample's; in
    `currency` at the rate of the day each was last seen when given (chipcost.warehouse.fx)."""
    sql, params = in_currency(con, _OFFERS, None, currency, day="last_seen_at")
    return frame_of(relation(con, sql, params or None))


def chosen_throughput(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per chip, model and workload, the tokens/s per chip the choice rule picked,
    memory_needed_gb: what an instance must hold for the model at the figure's precision
    (chipcost.transform.cost; None when the model's parameter count is unknown), and a derived
    figure's range_low and range_high, the tokens/s its derivation's error measured out of
    sample allows (chipcost.transform.verdict.figure_range, as cost and compare give it; None
    for any other figure, or where its error is unknown)."""
    from chipcost.transform.verdict import figure_range

    rows = frame_of(con.sql(_THROUGHPUT))
    needed, low, high = [], [], []
    for row in rows.iter_rows(named=True):
        parameters = row["parameters"]
        needed.append(
            None
            if parameters is None
            else memory_needed_gb(parameters, row["workload"], row["precision"])
        )
        found = figure_range(row, parameters) or (None, None)
        low.append(found[0])
        high.append(found[1])
    return rows.drop("precision", "scenario", "parameters").with_columns(
        memory_needed_gb=pl.Series(needed, dtype=pl.Float64),
        range_low=pl.Series(low, dtype=pl.Float64),
        range_high=pl.Series(high, dtype=pl.Float64),
    )
