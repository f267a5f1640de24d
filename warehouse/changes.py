"""Read queries behind the price-drift report: changes, daily trends, coverage of a period."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.warehouse.bound import relation
from chipcost.warehouse.db import view_part
from chipcost.warehouse.fx import USD_PER_EUR
from chipcost.warehouse.prices import ESTIMATE, SAMPLE, marked_on, marks_of

_KEY = ", ".join(HISTORY_KEY)

_EVENTS = """
WITH first_success AS (
    -- Offers first seen in a source's first successful run are the start of its history,
    -- not offers the provider added: the report lists them apart.
    SELECT source, min(observed_at) AS first_ok FROM source_runs WHERE status = 'ok'
    GROUP BY source
),
events AS (
    SELECT
        p.changed_at, p.change, p.chip, p.provider, p.region, p.zone, p.instance_type,
        p.pricing_model, p.term, p.payment, p.plan, p.source, p.chip_count,
        p.old_price_per_hour, p.new_price_per_hour,
        per_chip_hour(p.old_price_per_hour, p.chip_count) AS old_price_per_chip_hour,
        per_chip_hour(p.new_price_per_hour, p.chip_count) AS new_price_per_chip_hour,
        p.change_pct,
        coalesce(p.change = 'new' AND p.changed_at <= f.first_ok, FALSE) AS history_start,
        p.payload_ref, p.stated_currency
    FROM price_changes p LEFT JOIN first_success f USING (source)
    WHERE p.changed_at >= $start AND p.changed_at < $end
)
"""
_IN_ORDER = f"ORDER BY changed_at, chip, {_KEY}"
# The kinds of event the report tells apart (a new offer of a source's first run is the start
# of its history, not news).
NEW = "change = 'new' AND NOT history_start"
WITHDRAWN = "change = 'withdrawn'"

_COUNTS = f"""{_EVENTS}
SELECT count(*),
    count(*) FILTER (WHERE {NEW}),
    count(*) FILTER (WHERE {WITHDRAWN}),
    count(*) FILTER (WHERE change = 'changed'),
    count(*) FILTER (WHERE history_start)
FROM events
"""


@functools.cache
def _moves() -> str:
    """The weekly moves' query: the rows of price_history it needs, read once (`chosen`), for
    the changes of the period (views/parts/history_changes.sql, price_changes' body) and for
    the sparklines (views/parts/history_in_usd.sql, price_history_usd's), each rule written
    in from its one file. Read through the two views, the history was read four times (the
    changes' rows, the rows before them, the sparklines' two ranges), and a lake decodes the
    offer key's text columns of each (docs/performance.md)."""
    return f"""
WITH usd_per_eur AS ({USD_PER_EUR}),
chosen AS MATERIALIZED (
    -- The rows the period and its sparklines need: those closed in the trend window or the
    -- period, whichever begins first, and the open rows opened since the period's start (an
    -- offer that moved in it opened its open row at that move or later). Each change of the
    -- period is among them, and so is the row before it (closed at the change). Each half is
    -- a range of valid_to or valid_from, which DuckDB skips whole row groups by; "open or
    -- closed in the window" read every row of the history (0.26 s to 0.17 s of DuckDB's CPU
    -- on ten years of 50,000 offers a day).
    SELECT * FROM price_history
    WHERE valid_to >= least($trend_start, $start) AND valid_from < $end
    UNION ALL
    SELECT * FROM price_history
    WHERE valid_to IS NULL AND valid_from >= $start AND valid_from < $end
),
events AS (
    SELECT * FROM ({view_part("history_changes", history="chosen")})
    WHERE change = 'changed' AND changed_at >= $start AND changed_at < $end
),
moves AS (
    -- Net move per offer over the period: the price before its first change, after its last.
    SELECT {_KEY},
        arg_max(chip, changed_at) AS chip,
        arg_max(chip_count, changed_at) AS chip_count,
        arg_min(old_price_per_hour, changed_at) AS old_price_per_hour,
        arg_max(new_price_per_hour, changed_at) AS new_price_per_hour,
        -- The extremes the price reached in the period: a move out and back nets to 0%.
        max(new_price_per_hour) AS high_price_per_hour,
        min(new_price_per_hour) AS low_price_per_hour,
        -- When each was first reached: a price back where it began is said with its range
        -- and the days of its extremes, not as a 0% move.
        arg_max(changed_at, [new_price_per_hour, -epoch(changed_at)]) AS high_at,
        arg_min(changed_at, [new_price_per_hour, epoch(changed_at)]) AS low_at,
        count(*) AS changes,
        max(changed_at) AS changed_at
    FROM events GROUP BY {_KEY}
),
days AS (
    SELECT unnest(range($trend_start::TIMESTAMPTZ, $end::TIMESTAMPTZ, INTERVAL 1 DAY))
        + INTERVAL 1 DAY AS day_end
),
numbered AS MATERIALIZED (
    -- An integer per moved offer: grouping the day points by one number instead of the
    -- nine text columns of the offer key halved this query on three years of history.
    SELECT *, row_number() OVER () AS offer_no FROM moves
),
trend_days AS (
    -- The trend's points: the price in force at the end of each day from trend_start to end.
    SELECT epoch_us($trend_start::TIMESTAMPTZ) AS first_us,
        ceil((epoch_us($end::TIMESTAMPTZ) - epoch_us($trend_start::TIMESTAMPTZ)) / 86400e6)::BIGINT
            AS days
),
spans AS (
    -- The moved offers' rows of `chosen`, in US dollars, joined before anything else (the
    -- other join order expanded every row of years of history, docs/performance.md), each
    -- with the first and last day whose end it is in force at: no point before the offer
    -- existed, none in a gap.
    SELECT m.offer_no, per_chip_hour(h.price_per_hour, h.chip_count) AS price,
        greatest(0, floor((epoch_us(h.valid_from) - d.first_us) / 86400e6))::BIGINT AS first_day,
        CASE WHEN h.valid_to IS NULL THEN d.days - 1
            ELSE least(d.days, floor((epoch_us(h.valid_to) - d.first_us) / 86400e6)::BIGINT) - 1
        END AS last_day
    FROM numbered m
    JOIN ({view_part("history_in_usd", history="chosen")}) h USING ({_KEY})
    CROSS JOIN trend_days d
),
trends AS (
    -- Each span's price once for each of its days, the spans in time order: ordering a few
    -- spans an offer, not a point a day (a third of this query on a year of history); the
    -- spans gathered as they come and each offer's list sorted by its first day, where an
    -- aggregate ordered by it buffered and sorted every span's list of days (0.35 s of CPU
    -- to 0.18 s on a year of 50,000 offers).
    SELECT offer_no,
        flatten(list_transform(
            list_sort(list({{'first_day': first_day, 'price': price,
                'days': last_day - first_day + 1}})),
            span -> repeat([span.price], span.days))) AS trend
    FROM spans
    WHERE last_day >= first_day
    GROUP BY offer_no
),
stated AS (
    -- The moved offers with a row of the window (their changes' and their sparkline's) stated
    -- in another currency than US dollars, 'EUR' for Seeweb's, OVHcloud's, Scaleway's: the
    -- moves whose days a later run may restate at their own day's rate (reports/data.py asks
    -- which are provisional), read from `chosen` where the report scanned the history once
    -- more. Those rows alone are joined: every row of `chosen` by its nine text columns took
    -- as long as that scan (0.07 s on ten years).
    SELECT m.offer_no, string_agg(DISTINCT h.currency, ',' ORDER BY h.currency)
        AS stated_currency
    FROM numbered m JOIN (SELECT * FROM chosen WHERE currency <> 'USD') h USING ({_KEY})
    GROUP BY m.offer_no
)
SELECT
    m.chip, {", ".join(f"m.{c}" for c in HISTORY_KEY)}, m.chip_count, m.changes, m.changed_at,
    m.old_price_per_hour, m.new_price_per_hour, m.high_price_per_hour, m.low_price_per_hour,
    m.high_at, m.low_at,
    per_chip_hour(m.old_price_per_hour, m.chip_count) AS old_price_per_chip_hour,
    per_chip_hour(m.new_price_per_hour, m.chip_count) AS new_price_per_chip_hour,
    per_chip_hour(m.high_price_per_hour, m.chip_count) AS high_price_per_chip_hour,
    per_chip_hour(m.low_price_per_hour, m.chip_count) AS low_price_per_chip_hour,
    per_chip_hour(m.new_price_per_hour - m.old_price_per_hour, m.chip_count)
        AS change_per_chip_hour,
    round(100 * (m.new_price_per_hour - m.old_price_per_hour) / m.old_price_per_hour, 2)
        AS change_pct,
    -- One price is not a line: no sparkline rather than a dot that looks like a chart.
    CASE WHEN len(t.trend) >= 2 THEN t.trend END AS trend,
    coalesce(s.stated_currency, 'USD') AS stated_currency
FROM numbered m LEFT JOIN trends t USING (offer_no) LEFT JOIN stated s USING (offer_no)
ORDER BY abs(change_pct) DESC, m.chip, {", ".join(f"m.{c}" for c in HISTORY_KEY)}
"""


# Whether a row of price_history (`p`) of those the condition after it keeps rests on the
# bundled sample: its payload is of a sample run, warehouse.prices SAMPLE's rule (the CSV's
# `sample` column, the reads' mark), written as one lookup of the sample runs, not one a row.
_SAMPLE_ROWS = """SELECT coalesce(bool_or(split_part(p.payload_ref, '/', 1) IN (
        SELECT archive_run FROM runs WHERE sample)), FALSE)
    FROM price_history p WHERE"""

_COVERAGE = f"""
SELECT
    (SELECT min(valid_from) FROM price_history) AS history_start,
    (SELECT max(observed_at) FROM observations) AS newest_observation,
    count(*) FILTER (WHERE observed_at >= $start AND observed_at < $end) AS runs_in_period,
    count(DISTINCT observed_at::DATE) FILTER (
        WHERE observed_at >= $start AND observed_at < $end AND status <> 'failed'
    ) AS days_in_period,
    -- What the period shows rests on the sample: a sample run of the period loaded prices, or
    -- a price of its changes is the sample's (a new, changed or withdrawn price, or the one a
    -- change moved from: a row opened or closed in the period), or one of the prices "Cheapest
    -- now" chooses among (in force at the end, seen since $fresh). Not "any run before the
    -- end was the sample": a week of live runs after `chipcost demo` read as sample data.
    coalesce(bool_or(sample) FILTER (
        WHERE observed_at >= $start AND observed_at < $end AND status <> 'failed'
    ), FALSE)
    OR ({_SAMPLE_ROWS} (p.valid_from >= $start AND p.valid_from < $end)
        OR (p.valid_to >= $start AND p.valid_to < $end))
    OR ({_SAMPLE_ROWS} p.valid_from < $end AND (p.valid_to IS NULL OR p.valid_to >= $end)
        AND p.last_seen_at >= $fresh AND p.chip <> 'unknown' AND p.chip_count > 0)
        AS sample,
    -- The current prices (cost per token's and the head-to-head answers') are the sample's.
    ({_SAMPLE_ROWS} p.valid_to IS NULL) AS sample_current
FROM runs
"""


@dataclass(frozen=True)
class Coverage:
    """How much history the warehouse holds for a period."""

    history_start: datetime | None
    newest_observation: datetime | None
    runs_in_period: int
    days_in_period: int
    # What the period shows (its changes, the prices "Cheapest now" chooses among) rests on
    # the bundled sample (docs/reports.md "Sample data").
    sample: bool
    # A current price (the open rows cost per token is computed on) is the sample's.
    sample_current: bool = False


def newest_run(con: duckdb.DuckDBPyConnection) -> datetime | None:
    """When the newest collection run fetched, or tried to (None before the first run).

    Reports end there by default rather than at the newest price, so that sources failing
    since their last success show up as stale instead of moving the period back.
    """
    rows = con.execute("SELECT max(observed_at) FROM runs").fetchall()
    return rows[0][0] if rows else None


def coverage(
    con: duckdb.DuckDBPyConnection, start: datetime, end: datetime, fresh: datetime | None = None
) -> Coverage:
    """History start, newest observation, runs and days of data in [start, end), and whether
    the sample shows: in the period, among the prices in force at `end` seen since `fresh`
    (the end itself when not given), and among the current prices."""
    params = {"start": start, "end": end, "fresh": end if fresh is None else fresh}
    row = relation(con, _COVERAGE, params).fetchall()[0]
    return Coverage(row[0], row[1], int(row[2]), int(row[3]), bool(row[4]), bool(row[5]))


def _marked(kept: str) -> str:
    """The events the query `kept` keeps, with what the new price (a withdrawal: the old) rests
    on where it is an estimate and whether it is the bundled sample's, looked up for those rows
    only: the lookups read the observations, which counting the events does not need. After
    them, as `prices` marks a price: why a spot price is doubtful (`spot_doubt`, not below its
    offer's on-demand price; price_marks, as marks_of reads them) and the currency its
    provider states it in (`stated_currency`: a euro price is in US dollars at its day's ECB
    rate), of its row of the history, the one the event opened (a withdrawal: closed), as
    price_changes gives it. Not by joining the history back on the event's time: that join's
    condition picks valid_from or valid_to by the event's kind, which no hash join can take,
    and DuckDB compared every event with every row (minutes on ten years of history)."""
    marks = f"{ESTIMATE} AS estimate, {SAMPLE} AS sample"
    return f"""{_EVENTS}, kept AS ({kept})
SELECT p.* EXCLUDE (stated_currency), {marks}, m.spot_doubt, p.stated_currency
FROM kept p
LEFT JOIN ({marks_of("kept")}) m ON {marked_on("p")}
{_IN_ORDER}"""


@dataclass(frozen=True)
class EventCounts:
    """How many events of each kind a period holds, counted in DuckDB."""

    events: int  # every new, changed and withdrawn event
    new: int  # offers a source listed for the first time (not in its first run)
    withdrawn: int
    changed: int  # price changes (an offer may change more than once)
    first_seen: int  # offers first seen in their source's first run: the start of its history


def change_events(
    con: duckdb.DuckDBPyConnection,
    start: datetime,
    end: datetime,
    where: str = "TRUE",
    first: int | None = None,
) -> pl.DataFrame:
    """The new, changed and withdrawn events in [start, end) (those of `where`: NEW,
    WITHDRAWN; the `first` of them only where given), in time order, with per-chip prices,
    what the price rests on where it is an estimate (`estimate`, else None) and whether it is
    the bundled sample's (`sample`)."""
    limit = "" if first is None else f" LIMIT {int(first)}"
    kept = f"SELECT * FROM events WHERE {where} {_IN_ORDER}{limit}"
    return frame_of(relation(con, _marked(kept), {"start": start, "end": end}))


def event_counts(con: duckdb.DuckDBPyConnection, start: datetime, end: datetime) -> EventCounts:
    """The events in [start, end) counted by kind, none of them read out."""
    row = con.execute(_COUNTS, {"start": start, "end": end}).fetchall()[0]
    return EventCounts(*(int(n) for n in row))


def write_change_events(
    con: duckdb.DuckDBPyConnection, start: datetime, end: datetime, path: Path
) -> None:
    """Every event of change_events in [start, end), in its order, written by DuckDB to the
    Parquet file `path`: read back a batch at a time, a period of many offers is never held
    whole (the report's CSV of every change)."""
    quoted = str(path).replace("'", "''")
    query = _marked("SELECT * FROM events")
    con.execute(f"COPY ({query}) TO '{quoted}' (FORMAT parquet)", {"start": start, "end": end})


def price_moves(
    con: duckdb.DuckDBPyConnection, start: datetime, end: datetime, trend_start: datetime
) -> pl.DataFrame:
    """Offers whose price changed in [start, end): net move, the highest and lowest price the
    period reached (per hour and per chip-hour) and when each was first reached (`high_at`,
    `low_at`), the daily per-chip price from trend_start to end as a list (NULL with fewer
    than two days) and the currency its provider states the offer's prices of those days in
    (`stated_currency`: 'EUR' where one of them is in euros, else 'USD'), largest move
    first."""
    params = {"start": start, "end": end, "trend_start": trend_start}
    return frame_of(relation(con, _moves(), params))
