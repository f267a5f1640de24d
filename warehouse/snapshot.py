"""Read queries for one moment of a report: cheapest prices, cost per token, source health."""

from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.record import OFFER_KEY

# Prices in force at $at, from offers some source still saw after $fresh: an offer whose
# source stopped running long ago is not "cheapest now" (the health table names the source).
_AS_OF = """
SELECT
    chip, provider, region, zone, instance_type, pricing_model, term, payment, plan, source,
    chip_count, price_per_hour, price_per_hour / chip_count AS price_per_chip_hour,
    last_seen_at,
    CASE
        WHEN pricing_model IN ('on_demand', 'spot', 'capacity_block') THEN pricing_model
        WHEN term IN ('1yr', '3yr') THEN 'commit_' || term
        ELSE 'commit_other'
    END AS bucket
FROM price_history
WHERE valid_from < $at AND (valid_to IS NULL OR valid_to >= $at)
  AND last_seen_at >= $fresh AND chip_count > 0
"""

# An unrecognised accelerator ('unknown') is no chip to rent by name: listed elsewhere, not here.
_CHEAPEST = f"""
WITH priced AS ({_AS_OF})
SELECT * FROM priced
WHERE chip <> 'unknown'
QUALIFY row_number() OVER (
    PARTITION BY chip, bucket
    ORDER BY price_per_chip_hour, provider, region, zone, instance_type, payment, plan, source
) = 1
ORDER BY chip, bucket
"""

_KEY = ", ".join(OFFER_KEY)
_DISAGREEMENTS = f"""
WITH priced AS ({_AS_OF}),
compared AS (
    SELECT {_KEY},
        any_value(chip) AS chip,
        count(DISTINCT source) AS sources,
        min(price_per_hour) AS low_price_per_hour,
        max(price_per_hour) AS high_price_per_hour,
        arg_min(source, price_per_hour) AS low_source,
        arg_max(source, price_per_hour) AS high_source,
        100 * (max(price_per_hour) - min(price_per_hour)) / min(price_per_hour) AS spread_pct
    FROM priced GROUP BY {_KEY}
    HAVING count(DISTINCT source) > 1
)
SELECT *, spread_pct > $threshold AS disagrees FROM compared
ORDER BY spread_pct DESC, chip, {_KEY}
"""

_HEALTH = """
WITH runs_of AS (
    SELECT sr.source, sr.provider, sr.status, sr.message, sr.records, sr.rejects,
        r.observed_at, r.sample
    FROM source_runs sr JOIN runs r USING (run_id)
    WHERE r.observed_at < $end
)
SELECT
    source,
    arg_max(provider, observed_at) AS provider,
    max(observed_at) FILTER (WHERE status = 'ok') AS last_success,
    arg_max(status, observed_at) AS last_status,
    arg_max(message, observed_at) AS last_message,
    count(*) FILTER (WHERE observed_at >= $start) AS runs,
    count(*) FILTER (WHERE observed_at >= $start AND status = 'ok') AS ok_runs,
    coalesce(sum(records) FILTER (WHERE observed_at >= $start AND status = 'ok'), 0)::BIGINT
        AS rows_loaded,
    coalesce(sum(rejects) FILTER (WHERE observed_at >= $start), 0)::BIGINT AS rows_rejected,
    coalesce(max(observed_at) FILTER (WHERE status = 'ok') < $stale_before, TRUE) AS stale
FROM runs_of
GROUP BY source
ORDER BY stale DESC, source
"""

# The columns the cost-per-token table shows, when the view has them (it is being enriched).
COST_COLUMNS = (
    "chip",
    "workload",
    "model",
    "cost_per_million_tokens",
    "provider",
    "region",
    "instance_type",
    "pricing_model",
    "term",
    "payment",
    "plan",
    "price_per_chip_hour",
    "tokens_per_second_per_chip",
    "throughput_kind",
    "throughput_source",
)
COST_REQUIRED = ("chip", "workload", "cost_per_million_tokens")


def cheapest_by_model(
    con: duckdb.DuckDBPyConnection, at: datetime, fresh: datetime
) -> pl.DataFrame:
    """Per chip and pricing bucket (on_demand, commit_1yr, commit_3yr, commit_other, spot,
    capacity_block), the cheapest per-chip hourly price in force at `at`."""
    return frame_of(con.sql(_CHEAPEST, params={"at": at, "fresh": fresh}))


def source_disagreements(
    con: duckdb.DuckDBPyConnection, at: datetime, fresh: datetime, threshold_pct: float
) -> pl.DataFrame:
    """Offers priced by two or more sources at `at`, with their spread; `disagrees` marks
    those whose highest price is more than threshold_pct above the lowest."""
    params = {"at": at, "fresh": fresh, "threshold": threshold_pct}
    return frame_of(con.sql(_DISAGREEMENTS, params=params))


def source_health(
    con: duckdb.DuckDBPyConnection, start: datetime, end: datetime, stale_before: datetime
) -> pl.DataFrame:
    """Per source: last success before `end`, runs, rows loaded and rejected in [start, end),
    and whether it is stale (no success since stale_before)."""
    params = {"start": start, "end": end, "stale_before": stale_before}
    return frame_of(con.sql(_HEALTH, params=params))


def relation_columns(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    """Columns of a table or view, empty when it does not exist."""
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position",
        [name],
    ).fetchall()
    return [r[0] for r in rows]


def cheapest_cost_per_token(con: duckdb.DuckDBPyConnection) -> pl.DataFrame | None:
    """Cheapest cost per million tokens per chip, workload and model from the cost_per_token
    view; None when the view is missing or lacks the columns to rank by."""
    present = relation_columns(con, "cost_per_token")
    if not all(c in present for c in COST_REQUIRED):
        return None
    columns = [c for c in COST_COLUMNS if c in present]
    group = [c for c in ("chip", "workload", "model") if c in present]
    # Ties (one price in several regions, one figure from several sources) broken by every
    # column shown: the same warehouse always gives the same report.
    order = [c for c in columns if c not in group] + [c for c in ("zone",) if c in present]
    sql = f"""
        SELECT {", ".join(columns)} FROM cost_per_token
        WHERE cost_per_million_tokens IS NOT NULL
        QUALIFY row_number() OVER (
            PARTITION BY {", ".join(group)} ORDER BY {", ".join(order)}
        ) = 1
        ORDER BY chip, workload, cost_per_million_tokens
    """
    return frame_of(con.sql(sql))
