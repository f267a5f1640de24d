"""Price history by day: each chip's cheapest per-chip price per pricing model per UTC day."""

from __future__ import annotations

from datetime import date, datetime

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.vocabulary import gpu_alone
from chipcost.warehouse.bound import relation
from chipcost.warehouse.db import dict_rows
from chipcost.warehouse.fx import USD_PER_EUR, in_currency
from chipcost.warehouse.prices import SAMPLE, marked_on, marks_of
from chipcost.warehouse.where import Where

# How the day's cheapest price is marked beyond HISTORY_COLUMNS' first ones: why a spot price
# is doubtful, not below its offer's on-demand price (None where it is not), and whether it is
# the GPU's alone, the host billed beside it (core/vocabulary.py gpu_alone). Last of all, after
# a converted read's columns (list price, currency, rate): the columns before keep their places.
HISTORY_MARKS = ("spot_doubt", "gpu_alone")
# Columns of daily_cheapest's frame, in order (a stable contract for the CLI and the API); a
# read in another currency has its columns (warehouse/fx.py in_currency) before HISTORY_MARKS.
HISTORY_COLUMNS = (
    "day",
    "chip",
    "pricing_model",
    "price_per_chip_hour",
    "provider",
    "region",
    "zone",
    "instance_type",
    "chip_count",
    "term",
    "payment",
    "plan",
    "source",
    "offers",
    # What the day's cheapest price rests on where it is an estimate (no price the provider
    # publishes), else None; whether it is the bundled sample's.
    "estimate",
    "sample",
    *HISTORY_MARKS,
)


# The newest day the history speaks for: its newest sighting, never a day that has not come
# (a run stamped ahead of the clock must not make reads expand days to it).
NEWEST_DAY = "least(max(last_seen_at), now())::DATE"


def newest_day(con: duckdb.DuckDBPyConnection) -> date | None:
    """The last day any read of the history expands to (NEWEST_DAY); None when it is empty."""
    return con.execute(f"SELECT {NEWEST_DAY} FROM price_history").fetchall()[0][0]


# A row's days, one row each: none where it ends before it begins (generate_series' list is
# empty then). Written out in each branch of `days`, not read from `spans` twice: a CTE read
# twice is kept whole, every column of every day of every row (1.0 s of CPU for H100-SXM's
# ten years), and a filter of from_day against to_day, both of `bounds`, was a nested loop
# over every row (0.8 s).
_EACH_DAY = "unnest(generate_series(from_day, to_day, INTERVAL 1 DAY))::DATE AS day"


# A history row is the price in force at the end of day d when it began before the day ended
# and had not ended by then: the same rule as the report's daily trends (warehouse/changes.py).
# Each row is expanded only over its own days, not joined against a calendar, so a filtered
# read of years of history touches only the rows it needs.
def in_force_days(
    *,
    where: str,
    since: str,
    until: str,
    columns: str = "h.* EXCLUDE (price_per_hour, upfront, currency)",
    lookback_days: int = 0,
) -> str:
    """The CTEs `bounds` (first_day, last_day: since/until as SQL, else the history's ends),
    `rows` (`columns` of price_history, price_per_chip_hour) and `days` (one row per day each
    price was in force, from `lookback_days` before first_day to last_day, which is never past
    NEWEST_DAY): the rule every daily read of the history shares (`chipcost history`, the
    price index). A day's price_per_chip_hour is in US dollars at that day's rate (USD_PER_EUR:
    a euro price held for a month is worth what each of its days' rates made it, not what the
    rate of its last sighting makes it); a day with no rate leaves the price out that day,
    and unrated_days says which."""
    newest = NEWEST_DAY
    return f"""
WITH bounds AS (
    SELECT
        coalesce({since}::DATE, min(valid_from)::DATE) AS first_day,
        least(coalesce({until}::DATE, {newest}), {newest}) AS last_day
    FROM price_history
),
-- not kept whole though both branches of `days` read it: each scans the history for its own
-- currency's rows (all three of the index's pricing models on ten years, 11 million rows:
-- 19 s of CPU, against 32 s writing them out once and reading them back)
rows AS NOT MATERIALIZED (
    SELECT {columns}, h.currency AS fx_currency,
        per_chip_hour(h.price_per_hour, h.chip_count) AS price_per_chip_hour,
        greatest(h.valid_from::DATE, b.first_day - INTERVAL {int(lookback_days)} DAY) AS from_day,
        least(coalesce((h.valid_to - INTERVAL 1 DAY)::DATE, b.last_day), b.last_day) AS to_day
    FROM price_history h, bounds b
    WHERE h.chip_count > 0 AND {where}
),
spans AS (SELECT {_EACH_DAY}, * FROM rows),
usd_per_eur AS ({USD_PER_EUR}),
days AS (
    SELECT {_EACH_DAY}, * EXCLUDE (fx_currency) FROM rows WHERE fx_currency = 'USD'
    UNION ALL BY NAME
    -- to a billionth: the product's float noise (2.9763999999999995) is no part of a price
    SELECT s.* EXCLUDE (fx_currency)
        REPLACE (round(s.price_per_chip_hour * r.usd, 9) AS price_per_chip_hour)
    FROM (SELECT * FROM spans WHERE fx_currency = 'EUR') s
    JOIN usd_per_eur r ON r.on_day = s.day
)
"""


# The day's cheapest offer, chosen once for all its columns (one arg_min of them together:
# an arg_min a column, each ordering by the tie key again, took 1.6 s of CPU against 0.6 s for
# H100-SXM's year of history on the one-year scale file, docs/performance.md). Its payload
# (what its estimate, spot doubt and sample flag are read from) is looked into for the days'
# rows only, after the cheapest is chosen.
_CHOSEN = (
    "provider", "region", "zone", "instance_type", "chip_count", "term", "payment", "plan",
    "source",
)  # fmt: skip
_DAILY = f"""
, daily AS (
SELECT day, chip, pricing_model, price_per_chip_hour,
    {", ".join(f"w.{c} AS {c}" for c in _CHOSEN)}, offers,
    w.payload_ref AS payload_ref
FROM (
    SELECT
        day, chip, pricing_model,
        min(price_per_chip_hour) AS price_per_chip_hour,
        arg_min(struct_pack({", ".join((*_CHOSEN, "payload_ref"))}), {{tie}}) AS w,
        count(*) AS offers
    FROM days
    GROUP BY day, chip, pricing_model
)
),
marks AS ({marks_of("daily")})
SELECT p.* EXCLUDE (payload_ref), m.estimate AS estimate, {SAMPLE} AS sample,
    m.spot_doubt AS spot_doubt
FROM daily p LEFT JOIN marks m ON {marked_on("p")}
ORDER BY chip, pricing_model, day
"""

# Ties on price are broken the same way every time, so a day's "where" does not flicker.
_TIE = "(price_per_chip_hour, provider, region, zone, instance_type, term, payment, plan, source)"


def daily_cheapest(
    con: duckdb.DuckDBPyConnection,
    chips: list[str] | None = None,
    providers: list[str] | None = None,
    regions: list[str] | None = None,
    models: list[str] | None = None,
    since: date | datetime | None = None,
    until: date | datetime | None = None,
    instances: list[str] | None = None,
    currency: str | None = None,
) -> pl.DataFrame:
    """The cheapest per-chip price of each chip, per pricing model, per UTC day.

    One row per (day, chip, pricing_model) with the price in force at the end of that day,
    where it was (provider, region, zone, instance, term, payment, plan, source) and how many
    offers were priced that day. Filters match case-insensitively; `since` and `until` are
    inclusive days (default: the first price in the warehouse, the day of the newest price
    seen). Each row is marked as `prices` marks its offer: an estimate's basis (`estimate`),
    the sample's (`sample`), a doubtful spot price (`spot_doubt`) and a price of the GPU alone
    (`gpu_alone`). Spot is per zone, so its cheapest zone is the day's spot price. In `currency` at
    each day's ECB rate when given (chipcost.warehouse.fx): which offer was cheapest on a day
    is the US dollars' answer.
    """
    where = _filters(chips, providers, regions, models, instances)
    days = in_force_days(
        where=where.sql(), since=where.bind(_day(since)), until=where.bind(_day(until))
    )
    sql, params = in_currency(
        con, days + _DAILY.format(tie=_TIE), where.params, currency, day="day"
    )
    frame = frame_of(relation(con, sql, params))
    alone: dict[tuple[str, str], bool] = {}  # by offer, not by each of its days
    for offer in frame.select("source", "instance_type").unique().iter_rows():
        alone[offer] = gpu_alone(*offer)
    frame = frame.with_columns(
        pl.Series(
            "gpu_alone",
            [alone[o] for o in zip(frame["source"], frame["instance_type"], strict=True)],
            dtype=pl.Boolean,
        )
    )
    first = HISTORY_COLUMNS[: -len(HISTORY_MARKS)]
    converted = (c for c in frame.columns if c not in HISTORY_COLUMNS)
    return frame.select(*first, *converted, *HISTORY_MARKS)


def _filters(
    chips: list[str] | None,
    providers: list[str] | None,
    regions: list[str] | None,
    models: list[str] | None,
    instances: list[str] | None,
) -> Where:
    """The conditions on price_history (as `h`) of a daily read's filters."""
    where = Where()
    where.any_of("h.chip", chips)
    where.any_of("h.provider", providers)
    where.places(regions, "h.")  # a region, or a zone as a row prints it
    where.pricing(models, "h.")
    where.any_of("h.instance_type", instances)
    return where


# What a price left out of a day for want of a rate is named by, and the span it belongs to.
_NAMED = "provider, region, zone, instance_type, chip, chip_count, pricing_model, term"
_SPAN = f"{_NAMED}, payment, plan, source, valid_from"

# The days in_force_days leaves a price out of for want of a rate (none within
# MAX_RATE_AGE_DAYS of the day), each run of consecutive days of one price one row, in its
# own currency: first_day and day (the last). A price whose rates stop for some days in the
# middle of its span is left out of those days alone, and they are what is said.
_UNRATED_DAYS = f"""
, unrated AS (
    SELECT s.* FROM (SELECT * FROM spans WHERE fx_currency <> 'USD') s
    ANTI JOIN usd_per_eur r ON r.on_day = s.day
),
runs AS (
    SELECT *, day - CAST(row_number() OVER (PARTITION BY {_SPAN} ORDER BY day) AS INTEGER)
        AS run
    FROM unrated
)
SELECT {_NAMED}, any_value(price_per_chip_hour) AS price_per_chip_hour,
    any_value(fx_currency) AS currency, min(day) AS first_day, max(day) AS day
FROM runs
GROUP BY {_SPAN}, run
ORDER BY chip, price_per_chip_hour, provider, region, instance_type, day
"""


def unrated_days(
    con: duckdb.DuckDBPyConnection,
    where: Where,
    since: date | None,
    until: date | None,
) -> list[dict[str, object]]:
    """The prices of price_history (as `h`) matching `where` that a daily read from `since`
    to `until` (None: the history's ends) leaves out of some of its days for want of a rate:
    one row per run of such days, as chipcost.warehouse.fx.unrated_offers gives a span (its
    `first_day` and last `day`), what the read names in their own currency."""
    days = in_force_days(
        where=f"{where.sql()} AND h.currency <> 'USD'",  # only a price in another currency
        since=where.bind(since),
        until=where.bind(until),
        columns=", ".join(f"h.{c}" for c in _SPAN.split(", ")),
    )
    return dict_rows(con, days + _UNRATED_DAYS, where.params)


def daily_unrated(
    con: duckdb.DuckDBPyConnection,
    chips: list[str] | None = None,
    providers: list[str] | None = None,
    regions: list[str] | None = None,
    models: list[str] | None = None,
    since: date | datetime | None = None,
    until: date | datetime | None = None,
    instances: list[str] | None = None,
) -> list[dict[str, object]]:
    """The days daily_cheapest, asked the same, leaves a price out of for want of a rate
    (unrated_days)."""
    where = _filters(chips, providers, regions, models, instances)
    return unrated_days(con, where, _day(since), _day(until))


def _day(value: date | datetime | None) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    return value


def history_values(con: duckdb.DuckDBPyConnection, column: str) -> list[str]:
    """Distinct values of a price_history column, now or ever (for 'did you mean' messages)."""
    if column not in ("chip", "provider", "region", "pricing_model", "instance_type"):
        raise ValueError(f"not a name column of price_history: {column!r}")
    rows = con.execute(f"SELECT DISTINCT {column} FROM price_history ORDER BY 1").fetchall()
    return [r[0] for r in rows]
