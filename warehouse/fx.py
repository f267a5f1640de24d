"""Prices in another currency, converted in the query: each price at the ECB reference rate of
its own day (fx_rates, migration 080), the one conversion every read of prices uses.

A price's rate is the latest the ECB published on or before the price's day, at most
MAX_RATE_AGE_DAYS earlier (the ECB publishes on working days: a Sunday's price gets Friday's
rate), crossed through the euro: units of the currency per euro / US dollars per euro. A price
with no such rate comes back with no rate (`usd_rate` NULL), never unconverted under another
currency's name: the reader says which day lacks one (chipcost.reads.your_prices).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import NamedTuple

import duckdb

from chipcost.core.commands import RATES
from chipcost.warehouse.bound import execute, relation
from chipcost.warehouse.where import Where

MAX_RATE_AGE_DAYS = 7
# Every column of a read that is money (US dollars in the warehouse): whichever of them a
# query has is converted, and your discounts apply to the same (chipcost.reads.your_prices).
MONEY = ("price_per_chip_hour", "price_per_hour", "upfront", "usd_per_million_tokens")
# The list price kept beside a converted or discounted price, in US dollars.
LIST_PRICE = ("price_per_chip_hour", "list_price_per_chip_hour_usd")
# Columns a converted read adds after its own: the currency, the rate used, the rate's day.
RATE_COLUMNS = ("currency", "usd_rate", "rate_day")
# The parameter every converted query binds: the currency's ISO code.
CURRENCY_PARAM = "fx_currency"


def in_force(rates: str) -> str:
    """`rates` (a query of one rate a `day`) as the rate in force on each day: a row per day
    (`on_day`) with the rate's own `day` and columns, from its day to the day before the next
    rate, at most MAX_RATE_AGE_DAYS after its own. Joined on `on_day = <a price's day>`, it
    gives the latest rate published on or before that day and no row where that is older than
    MAX_RATE_AGE_DAYS: the one rule of which rate converts a day's price.

    An equality join, not an ASOF join: DuckDB 1.5's ASOF join, streamed on one thread, can
    wait forever where a plan holds two of them (per_chip_prices, a union of current_prices'
    rows: `chipcost sql "FROM per_chip_prices"` on a year of history with one DuckDB thread,
    as a one-core machine has)."""
    after = MAX_RATE_AGE_DAYS + 1
    return f"""
        SELECT unnest(range(day, least(next_day, day + {after}), INTERVAL 1 DAY))::DATE
            AS on_day, * EXCLUDE (next_day)
        FROM (SELECT *, lead(day) OVER (ORDER BY day) AS next_day FROM ({rates}))
    """


# US dollars per euro in force on each day (`on_day`, in_force), from the rates the ECB
# published, each as last observed (a later file that corrected a day's rate is kept beside the
# earlier one, and the correction is used): what a euro price is worth in the dollars every
# read stands on. The one definition: the views write it in (`{{usd_per_eur}}`,
# warehouse/db.py views), the daily reads use it here (chipcost.warehouse.history).
USD_PER_EUR = in_force("""
    SELECT day, arg_max(per_eur, (observed_at, payload_ref)) AS usd
    FROM fx_rates WHERE currency = 'USD' GROUP BY day
""")

# Each day's rate of each currency as last observed: a later file that corrected a day's rate
# is kept beside the earlier one (warehouse/load.py, KEPT_FACTS), and the correction is used
# (two files fetched at one moment: the later payload, whose name begins with its run stamp).
_LATEST = """
    SELECT day, currency, arg_max(per_eur, (observed_at, payload_ref)) AS per_eur,
           arg_max(payload_ref, (observed_at, payload_ref)) AS payload_ref,
           count(DISTINCT per_eur) > 1 AS corrected
    FROM fx_rates GROUP BY day, currency
"""

# Units of the currency asked for per US dollar, for every day the ECB gave both its rate and
# the dollar's against the euro; `corrected` when a later file changed either of the two.
_PER_USD = f"""
    WITH latest AS ({_LATEST})
    SELECT c.day, c.per_eur / u.per_eur AS usd_rate, c.payload_ref,
           c.corrected OR u.corrected AS corrected
    FROM latest c JOIN latest u ON u.day = c.day AND u.currency = 'USD'
    WHERE c.currency = ${CURRENCY_PARAM}
"""


def currencies(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every currency with at least one rate, alphabetically."""
    return [
        r[0] for r in con.execute("SELECT DISTINCT currency FROM fx_rates ORDER BY 1").fetchall()
    ]


def per_usd(con: duckdb.DuckDBPyConnection, currency: str) -> list[tuple[date, float, str, bool]]:
    """(day, units of `currency` per US dollar, payload, corrected) for every day it has a
    rate, oldest first: what the notes under a converted read say about the rates."""
    return [
        (day, float(rate), str(ref), bool(corrected))
        for day, rate, ref, corrected in execute(
            con, f"SELECT * FROM ({_PER_USD}) ORDER BY day", {CURRENCY_PARAM: currency}
        ).fetchall()
    ]


def newest_per_usd(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[date, float]]:
    """Each currency's newest rate: {currency: (its day, units per US dollar)}, US dollars
    themselves included (1.0) wherever the ECB gave the dollar's rate; alphabetically."""
    sql = f"""
        WITH latest AS ({_LATEST})
        SELECT c.currency, arg_max(c.day, c.day), arg_max(c.per_eur / u.per_eur, c.day)
        FROM latest c JOIN latest u ON u.day = c.day AND u.currency = 'USD'
        GROUP BY c.currency ORDER BY c.currency
    """
    return {currency: (day, float(rate)) for currency, day, rate in con.execute(sql).fetchall()}


# The ECB publishes a working day's rates about 16:00 CET: a run before then (06:00 UTC) has
# the day before's newest, and converts the day's prices at it.
ECB_PUBLISHES = "about 16:00 CET"


class Provisional(NamedTuple):
    """Days whose euro prices a read converted at an earlier day's rate, that day's own not
    yet loaded: `days` (oldest first) and the rate's day (`rate_day`, the newest loaded)."""

    days: tuple[date, ...]
    rate_day: date

    def said(self) -> str:
        """'the euro prices of 2026-11-18 are provisional: at the ECB rate of 2026-11-17, ...':
        why, and what makes them final."""
        one = len(self.days) == 1
        days = f"{self.days[0]}" if one else f"{self.days[0]} to {self.days[-1]}"
        return (
            f"the euro prices of {days} are provisional: at the ECB rate of {self.rate_day}, "
            "the newest loaded, as the next working day's is not yet (the ECB publishes "
            f"a working day's rate {ECB_PUBLISHES}, after a morning's run); made again once a "
            f"later run has loaded it (`{RATES}`), the figures are final"
        )


def _easter(year: int) -> date:
    """Easter Sunday of `year` in the Gregorian calendar (the anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    day_of = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 19 * day_of) // 433
    month = (h + day_of - 7 * m + 90) // 25
    return date(year, month, (h + day_of - 7 * m + 33 * month + 19) % 32)


def target_closed(day: date) -> bool:
    """Whether `day` is a TARGET closing day, on which the ECB publishes no reference rate
    (its words: rates "usually updated at around 16:00 CET every working day, except on
    TARGET closing days"): Saturday, Sunday, 1 January, Good Friday, Easter Monday, 1 May, 25
    and 26 December. Such a day's prices are at the working day's before it for good."""
    if day.weekday() >= 5 or (day.month, day.day) in {(1, 1), (5, 1), (12, 25), (12, 26)}:
        return True
    easter = _easter(day.year)
    return day in {easter - timedelta(days=2), easter + timedelta(days=1)}


def provisional(
    con: duckdb.DuckDBPyConnection,
    since: date,
    until: date,
    pricing_models: Sequence[str] | None = None,
    chips: Sequence[str] | None = None,
) -> Provisional | None:
    """The days from `since` to `until` (never past the history's newest) on which a price in
    euros (of `pricing_models` and `chips`, None: any) was in force and is converted at the
    newest US dollar rate loaded though a working day (not a TARGET closing day:
    target_closed) has come since that rate's: that working day's rate may still be published
    and loaded, and a read made then restates those days' prices. Which rate converts a day is
    in_force's rule, unchanged: this says where it is not yet final. None when there is no such
    day (each day has its own rate, a weekend's or a holiday's is the working day's before it
    for good, or no euro price was in force)."""
    newest = execute(con, "SELECT max(day) FROM fx_rates WHERE currency = 'USD'").fetchall()
    rate_day = newest[0][0] if newest else None
    if rate_day is None:
        return None
    # Past MAX_RATE_AGE_DAYS a day has no rate at all: its prices are left out and said so.
    last = min(until, rate_day + timedelta(days=MAX_RATE_AGE_DAYS))
    after = [rate_day + timedelta(days=n) for n in range(1, (last - rate_day).days + 1)]
    first_working = next((d for d in after if not target_closed(d)), None)
    days = [d for d in after if first_working and first_working <= d and d >= since]
    if not days:
        return None
    where = Where()
    where.any_of("pricing_model", pricing_models)
    where.any_of("chip", chips)
    held = execute(
        con,
        f"""
        SELECT d.day FROM (SELECT unnest($days::DATE[]) AS day) d
        WHERE d.day <= (SELECT least(max(last_seen_at), now())::DATE FROM price_history)
          AND EXISTS (
            SELECT 1 FROM price_history
            WHERE currency = 'EUR' AND chip_count > 0 AND {where.sql()}
              AND valid_from < d.day + INTERVAL 1 DAY
              AND (valid_to IS NULL OR valid_to >= d.day + INTERVAL 1 DAY))
        ORDER BY 1
        """,
        {**where.params, "days": days},
    ).fetchall()
    return Provisional(tuple(r[0] for r in held), rate_day) if held else None


def _rate(on: str, alias: str) -> tuple[str, str, str]:
    """(join, rate, rate's day) of the rate in force on day `on` (SQL), as `alias`: the latest
    published on or before that day, NULL when that is more than MAX_RATE_AGE_DAYS before it
    (in_force)."""
    day = f"CAST({on} AS DATE)"
    return (
        f"LEFT JOIN fx_per_usd {alias} ON {alias}.on_day = {day}",
        f"{alias}.usd_rate",
        # With no rate in force: the day that lacks one, for the reader to name (the read is
        # refused then, chipcost.reads.your_prices).
        f"coalesce({alias}.day, {day})",
    )


def _converted(sql: str, day: str, columns: str, joins: Sequence[str] = ()) -> str:
    """`sql` with `columns` (of `q`, its rows; `r`, each row's rate) in place of its own, its
    order kept, then RATE_COLUMNS."""
    join, rate, rate_day = _rate(f"q.{day}", "r")
    return f"""
        WITH fx_per_usd AS ({in_force(_PER_USD)}),
        q AS (SELECT *, row_number() OVER () AS fx_n FROM ({sql}))
        SELECT {columns},
            ${CURRENCY_PARAM} AS currency, {rate} AS usd_rate, {rate_day} AS rate_day
        FROM q {join} {" ".join(joins)}
        ORDER BY q.fx_n
    """


def in_currency(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    params: dict[str, object] | None,
    currency: str | None,
    *,
    day: str,
    list_price: bool = True,
    drop: Sequence[str] = (),
) -> tuple[str, dict[str, object]]:
    """`sql` (a query, its order kept) and its parameters, with its MONEY columns in
    `currency` at the rate of each row's `day` column (not rounded: the reader rounds them to
    a millionth once, after your discounts, chipcost.reads.your_prices); the US dollars
    of LIST_PRICE kept beside it (`list_price`); then RATE_COLUMNS. `drop` leaves out columns
    the query carried only to be converted. None: `sql` as it is, in US dollars."""
    if not currency:
        return sql, dict(params or {})
    columns = relation(con, sql, params).columns  # bound, not run
    rate = _rate(f"q.{day}", "r")[1]
    converted = ", ".join(f"q.{m} * {rate} AS {m}" for m in MONEY if m in columns)
    kept = f", q.{LIST_PRICE[0]} AS {LIST_PRICE[1]}" if list_price else ""
    hidden = ", ".join(["fx_n", *drop])
    select = f"q.* EXCLUDE ({hidden})" + (f" REPLACE ({converted})" if converted else "") + kept
    return _converted(sql, day, select), {**(params or {}), CURRENCY_PARAM: currency}


def index_in_currency(sql: str, params: dict[str, object], currency: str) -> tuple[str, dict]:
    """The index (`sql`: day, level, change_1d/7d/30d, ...) in the currency bound as
    $fx_currency: each day's level at that day's rate, and each change between the two days'
    converted levels ((1 + change) x rate now / rate then - 1), so that a move of the rate
    moves the index as it moves what the chip-hour costs in that money; a change whose earlier
    day has no rate is NULL."""
    now = _rate("q.day", "r")[1]
    joins, changes = [], []
    for back in (1, 7, 30):
        join, then, _ = _rate(f"q.day - {back}", f"r{back}")
        joins.append(join)
        column = f"change_{back}d"
        changes.append(f"(1 + q.{column}) * {now} / {then} - 1 AS {column}")
    columns = f"q.* EXCLUDE (fx_n) REPLACE (q.level * {now} AS level, {', '.join(changes)})"
    return _converted(sql, "day", columns, joins), {**params, CURRENCY_PARAM: currency}


# A price in euros is worth the dollars of the rate in force on the day it was last seen: the
# join of a row `h` of price_history to a row `r` of USD_PER_EUR, which a row in another
# currency matches to no rate. One equality, so that DuckDB hashes it: `h.currency = 'EUR' AND
# r.on_day = ...` in a LEFT JOIN's condition was joined by a nested loop, every price row
# against every day of rates (7.6 ms to 1.5 ms for the sample's open rows). The one
# definition: the view price_history_usd writes it in (`{{rated_on_its_day}}`,
# warehouse/db.py views), UNRATED_ROWS uses it here.
RATED_ON_ITS_DAY = "r.on_day = CASE WHEN h.currency = 'EUR' THEN CAST(h.last_seen_at AS DATE) END"


# The prices price_history_usd leaves out for want of a rate: price_history's rows in another
# currency than US dollars that no US dollars per euro in force on their day converts (as the
# view price_history_usd joins them, RATED_ON_ITS_DAY; which rate is in force is in_force's
# rule alone). Every read that says what it left out asks this, with its own conditions on
# `h`'s rows: they are the scan's, where matching every row of the view by its key read the
# whole history (3.6 s of a ten-year `prices --chip`).
UNRATED_ROWS = f"""
    SELECT h.* FROM price_history h
    LEFT JOIN ({USD_PER_EUR}) r ON {RATED_ON_ITS_DAY}
    WHERE h.currency <> 'USD' AND r.usd IS NULL
"""


class Unrated(NamedTuple):
    """Prices a read left out for want of a rate: how many, whose, in which currencies, the
    newest day among them that has no rate, and their chips."""

    count: int
    providers: tuple[str, ...]
    currencies: tuple[str, ...]
    latest_day: date | None
    chips: tuple[str, ...] = ()

    def said(self) -> str:
        """What was left out, why, and the command that fetches the rates ("" for nothing)."""
        if not self.count:
            return ""
        one = self.count == 1
        day = f" (the latest {self.latest_day})" if self.latest_day and not one else ""
        return (
            f"{self.count} {'price' if one else 'prices'} in {', '.join(self.currencies)} of "
            f"{', '.join(self.providers)} left out: no ECB rate within {MAX_RATE_AGE_DAYS} days "
            f"of {'its' if one else 'their'} day"
            f"{f' ({self.latest_day})' if one and self.latest_day else day} converts "
            f"{'it' if one else 'them'} to US dollars; `{RATES}` fetches the rates"
        )


NONE_UNRATED = Unrated(0, (), (), None, ())


def unrated_of(rows: Sequence[dict[str, object]]) -> Unrated:
    """What `rows` (unrated_offers', or the days a daily read left a price out of,
    chipcost.warehouse.history.unrated_days) come to: how many, whose, in which currencies,
    the newest day among them, their chips."""
    if not rows:
        return NONE_UNRATED
    days = [r["day"] for r in rows if isinstance(r["day"], date)]
    return Unrated(
        len(rows),
        tuple(sorted({str(r["provider"]) for r in rows})),
        tuple(sorted({str(r["currency"]) for r in rows})),
        max(days, default=None),
        tuple(sorted({str(r["chip"]) for r in rows})),
    )


def unrated(
    con: duckdb.DuckDBPyConnection,
    *,
    current: bool = True,
    chips: Sequence[str] | None = None,
    providers: Sequence[str] | None = None,
    since: date | None = None,
) -> Unrated:
    """The prices (current ones, or every span of the history that held on or after `since`)
    of `chips` and `providers` (None: any) that no rate converts to US dollars."""
    where = Where()
    if current:
        where.conditions.append("valid_to IS NULL")
    if since is not None:
        where.add("(valid_to IS NULL OR valid_to >= {})", since)
    where.any_of("chip", chips)
    where.any_of("provider", providers)
    row = execute(
        con,
        f"""
        SELECT count(*), list(DISTINCT provider ORDER BY provider),
               list(DISTINCT currency ORDER BY currency), max(CAST(last_seen_at AS DATE)),
               list(DISTINCT chip ORDER BY chip)
        FROM ({UNRATED_ROWS}) WHERE {where.sql()}
        """,
        where.params,
    ).fetchone()
    count, names, currencies, day, chipped = row if row else (0, [], [], None, [])
    return Unrated(
        int(count), tuple(names or ()), tuple(currencies or ()), day, tuple(chipped or ())
    )


def unrated_offers(
    con: duckdb.DuckDBPyConnection,
    *,
    chips: Sequence[str] | None = None,
    providers: Sequence[str] | None = None,
    regions: Sequence[str] | None = None,
    pricing_models: Sequence[str] | None = None,
    instances: Sequence[str] | None = None,
    current: bool = True,
    since: date | None = None,
) -> list[dict[str, object]]:
    """The current prices (or, not `current`, every span of the history that held on or
    after `since`) of `chips`, `providers`, `regions`, `pricing_models` and `instances`
    (None: any) no rate converts to US dollars, each in its own currency per chip-hour with
    the day it was last seen (and, of the history, `first_day`, the day its span began): what
    a read shows apart, kept and marked, rather than leave out."""
    where = Where()
    where.conditions.append("chip_count > 0")
    if current:
        where.conditions.append("valid_to IS NULL")
    if since is not None:
        where.add("(valid_to IS NULL OR valid_to >= {})", since)
    where.any_of("chip", chips)
    where.any_of("provider", providers)
    where.places(regions)
    where.pricing(pricing_models)
    where.any_of("instance_type", instances)
    first_day = "" if current else ", CAST(valid_from AS DATE) AS first_day"
    cursor = execute(
        con,
        f"""
        SELECT provider, region, zone, instance_type, chip, chip_count, pricing_model, term,
               per_chip_hour(price_per_hour, chip_count) AS price_per_chip_hour, currency,
               CAST(last_seen_at AS DATE) AS day{first_day}
        FROM ({UNRATED_ROWS}) WHERE {where.sql()}
        ORDER BY chip, price_per_chip_hour, provider, region, instance_type, day
        """,
        where.params,
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def unrated_values(con: duckdb.DuckDBPyConnection, column: str) -> list[str]:
    """The distinct values of a column among the current prices left out for want of a rate:
    a provider whose every price is in euros is known, not unknown, when its rate is missing."""
    rows = con.execute(
        f"SELECT DISTINCT {column} FROM ({UNRATED_ROWS}) WHERE valid_to IS NULL ORDER BY 1"
    ).fetchall()
    return [str(r[0]) for r in rows]
