"""Prices in another currency, converted in the query: each price at the ECB reference rate of
its own day (fx_rates, migration 080), the one conversion every read of prices uses.

A price's rate is the latest the ECB published on or before the price's day, at most
MAX_RATE_AGE_DAYS earlier (the ECB publishes on working days: a Sunday's price gets Friday's
rate), crossed through the euro: units of the currency per euro / US dollars per euro. A price
with no such rate comes back with no rate (`usd_rate` NULL), never unconverted under another
currency's name: the reader says which day lacks one (chipcost.pipeline.your_prices).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import duckdb

from chipcost.warehouse.bound import execute, relation

MAX_RATE_AGE_DAYS = 7
# Every column of a read that is money (US dollars in the warehouse): whichever of them a
# query has is converted, and your discounts apply to the same (chipcost.pipeline.your_prices).
MONEY = ("price_per_chip_hour", "price_per_hour", "upfront", "usd_per_million_tokens")
# The list price kept beside a converted or discounted price, in US dollars.
LIST_PRICE = ("price_per_chip_hour", "list_price_per_chip_hour_usd")
# Columns a converted read adds after its own: the currency, the rate used, the rate's day.
RATE_COLUMNS = ("currency", "usd_rate", "rate_day")
# The parameter every converted query binds: the currency's ISO code.
CURRENCY_PARAM = "fx_currency"

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


def _rate(on: str, alias: str) -> tuple[str, str, str]:
    """(join, rate, rate's day) of the rate in force on day `on` (SQL), as `alias`: the latest
    published on or before that day, NULL when that is more than MAX_RATE_AGE_DAYS before it."""
    day = f"CAST({on} AS DATE)"
    fresh = f"{day} - {alias}.day <= {MAX_RATE_AGE_DAYS}"
    return (
        f"ASOF LEFT JOIN fx_per_usd {alias} ON {day} >= {alias}.day",
        f"CASE WHEN {fresh} THEN {alias}.usd_rate END",
        # With no rate in force: the day that lacks one, for the reader to name (the read is
        # refused then, chipcost.pipeline.your_prices).
        f"CASE WHEN {fresh} THEN {alias}.day ELSE {day} END",
    )


def _converted(sql: str, day: str, columns: str, joins: Sequence[str] = ()) -> str:
    """`sql` with `columns` (of `q`, its rows; `r`, each row's rate) in place of its own, its
    order kept, then RATE_COLUMNS."""
    join, rate, rate_day = _rate(f"q.{day}", "r")
    return f"""
        WITH fx_per_usd AS ({_PER_USD}),
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
    a millionth once, after your discounts, chipcost.pipeline.your_prices); the US dollars
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
