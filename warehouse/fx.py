"""Reading the ECB's reference rates (fx_rates, migration 080): a currency's units per euro
by day, and which currencies the warehouse has rates for."""

from __future__ import annotations

from datetime import date

import duckdb

from chipcost.warehouse.literals import literal


def currencies(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every currency with at least one rate, alphabetically."""
    return [
        r[0] for r in con.execute("SELECT DISTINCT currency FROM fx_rates ORDER BY 1").fetchall()
    ]


def per_usd(con: duckdb.DuckDBPyConnection, currency: str) -> list[tuple[date, float, str]]:
    """(day, units of `currency` per US dollar, payload) for every day the ECB gave both the
    currency's and the dollar's rate against the euro, oldest first."""
    return [
        (day, float(rate), str(ref))
        for day, rate, ref in con.execute(
            f"""
            SELECT c.day, c.per_eur / u.per_eur, c.payload_ref
            FROM fx_rates c JOIN fx_rates u ON u.day = c.day AND u.currency = 'USD'
            WHERE c.currency = {literal(currency)}
            ORDER BY c.day
            """
        ).fetchall()
    ]
