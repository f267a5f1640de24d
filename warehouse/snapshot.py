"""Read queries for one moment of a report: cheapest prices, cost per token, source health."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.vocabulary import OFFER_KEY, bucket_sql
from chipcost.transform.cost import bytes_per_parameter
from chipcost.warehouse.bound import execute, relation
from chipcost.warehouse.fx import USD_PER_EUR, in_currency
from chipcost.warehouse.reader import in_working_memory

# Prices in force at $at, from offers some source still saw after $fresh: an offer whose
# source stopped running long ago is not "cheapest now" (the health table names the source).
# A euro price is in US dollars at the rate in force on $rate_day (at_rate_day: the day `at`
# ends), the rate `chipcost history` and the period's changes convert that day's prices at,
# not the rate of the day each was last seen (price_history_usd's): a price seen after the
# period is not worth a later day's dollars in the period's report. A price with no such
# rate is left out, as the view leaves it out (views/parts/history_in_usd.sql).
_AS_OF = f"""
WITH usd_per_eur AS ({USD_PER_EUR}),
held AS (
    SELECT h.* REPLACE (
        CASE WHEN h.currency = 'EUR' THEN h.price_per_hour * r.usd ELSE h.price_per_hour END
            AS price_per_hour
    )
    FROM price_history h
    LEFT JOIN usd_per_eur r ON r.on_day = CASE WHEN h.currency = 'EUR' THEN $rate_day END
    WHERE h.valid_from < $at AND (h.valid_to IS NULL OR h.valid_to >= $at)
      AND h.last_seen_at >= $fresh AND h.chip_count > 0
      AND (h.currency = 'USD' OR r.usd IS NOT NULL)
)
SELECT
    chip, provider, region, zone, instance_type, pricing_model, term, payment, plan, source,
    chip_count, price_per_hour, per_chip_hour(price_per_hour, chip_count) AS price_per_chip_hour,
    last_seen_at,
    {bucket_sql()} AS bucket
FROM held
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
    -- Runs skipped in the period (no credentials: the source is not set up to be collected),
    -- and its last failure there, when and why: a week of 6 of 7 ok whose last run succeeded
    -- still names the run that failed.
    count(*) FILTER (WHERE observed_at >= $start AND status = 'skipped') AS skipped_runs,
    max(observed_at) FILTER (WHERE observed_at >= $start AND status = 'failed')
        AS last_failed_at,
    arg_max(message, observed_at) FILTER (WHERE observed_at >= $start AND status = 'failed')
        AS last_failure,
    coalesce(max(observed_at) FILTER (WHERE status = 'ok') < $stale_before, TRUE) AS stale
FROM runs_of
GROUP BY source
ORDER BY stale DESC, source
"""

# An offer whose instance cannot hold the model (fits False; unknown counts as holding it, as
# in chipcost.transform.cost_fit): ranked after those that can.
CANNOT_HOLD = pl.col("fits").eq(False).fill_null(False)

# The columns the cost-per-token table shows.
COST_COLUMNS = (
    "chip",
    "workload",
    "model",
    "usd_per_million_tokens",
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


def at_rate_day(at: datetime) -> date:
    """The UTC day whose rate converts the prices in force at `at` (a period's end, midnight
    after its last day): the day that moment ends, the last day the prices were in force."""
    return (at.astimezone(UTC) - timedelta(microseconds=1)).date()


def _as_of(at: datetime, fresh: datetime, rate_day: date | None = None) -> dict[str, object]:
    """_AS_OF's parameters: euro prices at the rate of `rate_day`, else of the day `at` ends."""
    return {"at": at, "fresh": fresh, "rate_day": rate_day or at_rate_day(at)}


def priced_at(
    con: duckdb.DuckDBPyConnection, at: datetime, fresh: datetime, currency: str | None = None
) -> pl.DataFrame:
    """Every recognised offer's per-chip price in force at `at` (what cheapest_by_model picks
    from), for a reader that changes prices before choosing (your discounts); in `currency`
    when given at the rate of the day `at` ends (at_rate_day, chipcost.warehouse.fx), as the
    US dollars are."""
    sql = f"WITH priced AS ({_AS_OF}) SELECT *, $rate_day AS fx_day FROM priced "
    sql += "WHERE chip <> 'unknown'"
    sql, params = in_currency(con, sql, _as_of(at, fresh), currency, day="fx_day", drop=("fx_day",))
    return frame_of(relation(con, sql, params)).drop("fx_day", strict=False)


# The order cheapest_by_model breaks ties in, for the same choice made outside SQL.
CHEAPEST_ORDER = (
    "price_per_chip_hour", "provider", "region", "zone", "instance_type", "payment", "plan",
    "source",
)  # fmt: skip


def cheapest_by_model(
    con: duckdb.DuckDBPyConnection, at: datetime, fresh: datetime, rate_day: date | None = None
) -> pl.DataFrame:
    """Per chip and pricing bucket (on_demand, commit_1yr, commit_3yr, commit_other, spot,
    capacity_block), the cheapest per-chip hourly price in force at `at`, a euro price at the
    rate of `rate_day` (None: of the day `at` ends, at_rate_day)."""
    return frame_of(relation(con, _CHEAPEST, _as_of(at, fresh, rate_day)))


def source_disagreements(
    con: duckdb.DuckDBPyConnection, at: datetime, fresh: datetime, threshold_pct: float
) -> pl.DataFrame:
    """Offers priced by two or more sources at `at`, with their spread; `disagrees` marks
    those whose highest price is more than threshold_pct above the lowest."""
    params = {**_as_of(at, fresh), "threshold": threshold_pct}
    return frame_of(relation(con, _DISAGREEMENTS, params))


def source_health(
    con: duckdb.DuckDBPyConnection, start: datetime, end: datetime, stale_before: datetime
) -> pl.DataFrame:
    """Per source: last success before `end`, runs (ok, skipped), rows loaded and rejected in
    [start, end), the last failure there (when, its message), and whether it is stale (no
    success since stale_before)."""
    params = {"start": start, "end": end, "stale_before": stale_before}
    return frame_of(relation(con, _HEALTH, params))


def relation_columns(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    """Columns of a table or view, empty when it does not exist."""
    rows = execute(
        con,
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position",
        [name],
    ).fetchall()
    return [r[0] for r in rows]


def cheapest_cost_per_token(con: duckdb.DuckDBPyConnection) -> pl.DataFrame | None:
    """Per chip, workload and model, the cheapest cost per million tokens of an offer whose
    instance holds the model (the rule of `chipcost cost`: chipcost.transform.cost), or the
    cheapest of all when none does; within each workload and model, the chips whose offers
    hold it come first. Each row adds memory_needed_gb, instance_memory_gb, fits and
    instances_needed (None when the model's parameter count or the chip's memory is
    unknown). None when the warehouse has no cost_per_token view."""
    fitted = cost_offers(con, cheapest_only=True)
    return None if fitted is None else cheapest_costs(fitted)


# What decides whether an offer's instance holds the model (_with_fit): the chip (its
# memory), the model (its parameters), the workload, the figure's precision and the chips
# per instance. Among the offers alike in these, only the cheapest can be chosen.
_HOLDS_ALIKE = ("chip", "workload", "model", "precision", "chip_count")


# Of the offers alike in all but the price (_HOLDS_ALIKE: one figure per chip, model and
# workload, so the chip and its count), the cheapest per chip-hour has the cheapest cost per
# token: the offers are cut to those before they meet every model's figure, so the rows
# DuckDB ranks are the chips' cheapest, not every offer times every model.
_CHEAPEST_PRICE = """(k.chip, k.chip_count, k.price_per_chip_hour) IN (
    SELECT (chip, chip_count, min(price_per_chip_hour)) FROM per_chip_prices
    WHERE price_per_chip_hour > 0 GROUP BY chip, chip_count)"""


def cost_offers(
    con: duckdb.DuckDBPyConnection,
    currency: str | None = None,
    rate_at: date | None = None,
    *,
    cheapest_only: bool = False,
) -> pl.DataFrame | None:
    """Every cost_per_token row with its fit (what cheapest_cost_per_token chooses from);
    None when the warehouse has no cost_per_token view. In `currency` at the rate of the day
    `rate_at` when given (chipcost.warehouse.fx), no list price kept. `cheapest_only` (list
    prices, unchanged after the read): of the offers that hold the model alike (the same
    chip, model, workload, precision and chips per instance), the cheapest only, ties kept,
    out of the tens of thousands of rows (every model) one of which cheapest_costs chooses."""
    if not relation_columns(con, "cost_per_token"):
        return None
    partition = ", ".join(f"k.{c}" for c in _HOLDS_ALIKE)
    only = (
        f"AND {_CHEAPEST_PRICE} "
        f"QUALIFY rank() OVER (PARTITION BY {partition} ORDER BY k.usd_per_million_tokens) = 1"
        if cheapest_only
        else ""
    )
    sql = f"""
        SELECT {", ".join(f"k.{c}" for c in COST_COLUMNS)}, k.zone, k.chip_count, k.precision,
            c.memory_gb AS chip_memory_gb, m.parameters, $rate_at::DATE AS fx_day,
            k.throughput_scenario
        FROM cost_per_token k
        LEFT JOIN chips c ON c.chip = k.chip
        LEFT JOIN models m ON m.model = k.model
        WHERE k.usd_per_million_tokens IS NOT NULL
        {only}
    """
    sql, params = in_currency(
        con, sql, {"rate_at": rate_at}, currency, day="fx_day", list_price=False,
        drop=("fx_day",),
    )  # fmt: skip
    if cheapest_only:  # every offer read to keep a few: in bounded memory (reader.CUT_MEMORY)
        rows = in_working_memory(con, lambda: frame_of(relation(con, sql, params)))
    else:
        rows = frame_of(relation(con, sql, params))
    rows = rows.drop("fx_day", strict=False)
    return _with_fit(rows).with_columns(CANNOT_HOLD.alias("cannot"))


def cheapest_costs(fitted: pl.DataFrame) -> pl.DataFrame:
    """Per chip, workload and model, the cheapest offer that holds the model (cost_offers'
    rows, whatever their prices were made into)."""
    # Ties (one price in several regions, one figure from several sources) broken by every
    # column shown: the same warehouse always gives the same report.
    order = ["cannot", *[c for c in COST_COLUMNS if c not in _PER], "zone"]
    # Sizes of one offer at one price (TPU slices): the smallest that holds the model, or the
    # largest when none does, as `chipcost cost` shows (chipcost.transform.cost_fit).
    order.insert(order.index("instance_type"), "size")
    size = pl.when(CANNOT_HOLD).then(-pl.col("instance_memory_gb")).otherwise("instance_memory_gb")
    fitted = fitted.with_columns(size=size)
    chosen = fitted.sort(order, nulls_last=False).group_by(_PER, maintain_order=True).first()
    # the same cost for two models (one figure for both) in the order of their names
    return chosen.sort("chip", "workload", "cannot", "usd_per_million_tokens", "model").select(
        *COST_COLUMNS, "zone", "memory_needed_gb", "instance_memory_gb", "fits", "instances_needed",
        # what `cost` words the figure's basis and range by (transform/verdict.py figure_kind,
        # figure_range), after the columns above
        "precision", "parameters", "throughput_scenario",
    )  # fmt: skip


_PER = ["chip", "workload", "model"]


def _with_fit(rows: pl.DataFrame) -> pl.DataFrame:
    """Rows with workload, precision, parameters, chip_memory_gb and chip_count, given
    memory_needed_gb (by the rule of chipcost.transform.cost), instance_memory_gb (the chips'
    memory together), fits and instances_needed (how many such instances hold the model):
    chipcost.transform.cost_fit.with_fit's columns, for every model at once in polars."""
    pairs = rows.select("workload", pl.col("precision").cast(pl.String)).unique()
    per_parameter = pairs.with_columns(
        bytes_per_parameter=pl.Series(
            [bytes_per_parameter(w, p) for w, p in pairs.iter_rows()], dtype=pl.Float64
        )
    )
    frame = rows.with_columns(pl.col("precision").cast(pl.String)).join(
        per_parameter, on=["workload", "precision"], how="left", nulls_equal=True
    )
    need = pl.col("parameters") * pl.col("bytes_per_parameter") / 1e9
    have = pl.col("chip_memory_gb") * pl.col("chip_count")
    frame = frame.with_columns(memory_needed_gb=need, instance_memory_gb=have)
    need, have = pl.col("memory_needed_gb"), pl.col("instance_memory_gb")
    return frame.drop("bytes_per_parameter").with_columns(
        fits=need <= have,
        instances_needed=pl.when(have > 0).then((need / have).ceil().cast(pl.Int64)),
    )
