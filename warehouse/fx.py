"""Reading the ECB's reference rates (fx_rates, migration 080): a currency's units per euro
by day, and which currencies the warehouse has rates for."""

from __future__ import annotations

from datetime import date

import duckdb

from chipcost.warehouse.literals import literal

# Each day's rate of each currency as last observed: a later file that corrected a day's rate
# is kept beside the earlier one (warehouse/load.py, KEPT_FACTS), and the correction is used
# (two files fetched at one moment: the later payload, whose name begins with its run stamp).
_LATEST = """
    SELECT day, currency, arg_max(per_eur, (observed_at, payload_ref)) AS per_eur,
           arg_max(payload_ref, (observed_at, payload_ref)) AS payload_ref,
           count(DISTINCT per_eur) > 1 AS corrected
    FROM fx_rates GROUP BY day, currency
"""


def currencies(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every currency with at least one rate, alphabetically."""
    return [
        r[0] for r in con.execute("SELECT DISTINCT currency FROM fx_rates ORDER BY 1").fetchall()
    ]


def per_usd(con: duckdb.DuckDBPyConnection, currency: str) -> list[tuple[date, float, str, bool]]:
    """(day, units of `currency` per US dollar, payload, corrected) for every day the ECB gave
    both the currency's and the dollar's rate against the euro, oldest first: each rate as last
    observed, `corrected` when a later file changed either of the two."""
    return [
        (day, float(rate), str(ref), bool(corrected))
        for day, rate, ref, corrected in con.execute(
            f"""
            WITH latest AS ({_LATEST})
            SELECT c.day, c.per_eur / u.per_eur, c.payload_ref, c.corrected OR u.corrected
            FROM latest c JOIN latest u ON u.day = c.day AND u.currency = 'USD'
            WHERE c.currency = {literal(currency)}
            ORDER BY c.day
            """
        ).fetchall()
    ]
