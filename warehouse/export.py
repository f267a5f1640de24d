"""The whole price history as rows, for exports (chipcost.reads.export)."""

from __future__ import annotations

from datetime import date

import duckdb

from chipcost.core.vocabulary import OFFER_KEY
from chipcost.warehouse.db import dict_rows
from chipcost.warehouse.prices import ESTIMATE, SAMPLE, marked_on, marks_of
from chipcost.warehouse.where import Where


def history_rows(
    con: duckdb.DuckDBPyConnection, since: date | None = None, chips: list[str] | None = None
) -> list[dict[str, object]]:
    """Every price_history row (a price and the span it held: valid_from, valid_to NULL while
    it holds), with its per-chip price, in the currency its provider states it in (a span of
    days has no one exchange rate), what it rests on where it is an estimate (`estimate`),
    whether it is the bundled sample's (`sample`) and why a spot price is doubtful, not below
    its offer's on-demand price (`spot_doubt`, None where it is not); since: only prices that
    still held on or after it."""
    where = Where()
    if since is not None:
        where.add("(valid_to IS NULL OR valid_to >= {})", since)
    where.any_of("chip", chips)
    return dict_rows(
        con,
        f"""
        WITH held AS (
        SELECT provider, region, zone, instance_type, chip, chip_count, pricing_model, term,
               payment, plan, price_per_hour,
               per_chip_hour(price_per_hour, chip_count) AS price_per_chip_hour, upfront,
               currency, currency AS stated_currency, sku, source, valid_from, valid_to,
               end_reason, payload_ref,
               {ESTIMATE} AS estimate, {SAMPLE} AS sample
        FROM price_history p
        WHERE {where.sql()}
        ),
        marks AS ({marks_of("held")})
        SELECT h.*, m.spot_doubt
        FROM held h LEFT JOIN marks m ON {marked_on("h")}
        ORDER BY {", ".join(f"h.{c}" for c in OFFER_KEY)}, h.valid_from
        """,
        where.params,
    )
