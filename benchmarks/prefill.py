"""Years of price history written in bulk, so the real loader can then run on top of it.

The scale benchmark loads every day through warehouse.load.load_run by default. On a busy
machine three years of that takes hours; `--prefill-days N` writes the first N days here
instead (the same offers and change rates, one INSERT), then loads the remaining days
through the real path. The rows are the ones the loader would have written; the file
layout is tidier (one bulk insert, no daily updates), so file-size figures come from runs
without prefill (docs/performance.md).
"""

from __future__ import annotations

import math
import random

import duckdb
import polars as pl

from benchmarks import synthetic
from chipcost.core.version import __version__

HISTORY_COLUMNS = (
    "provider source region zone instance_type pricing_model term payment plan chip chip_count "
    "price_per_hour upfront currency sku source_url valid_from valid_to end_reason last_seen_at "
    "first_run_id last_run_id payload_ref"
).split()


def _gap(rng: random.Random, rate: float) -> int:
    """Days until an offer's next price change (geometric with the daily change rate)."""
    if rate <= 0:
        return 10**9
    return max(1, math.ceil(math.log(1.0 - rng.random()) / math.log(1.0 - rate)))


def _offer_rows(offer: synthetic.Offer, days: int, rng: random.Random) -> list[tuple]:
    source, provider, region, zone, instance, model, term, payment, plan = offer.key
    rows, day = [], 0
    while True:
        end = day + _gap(rng, offer.change_rate)
        closed = end < days
        stamp = synthetic.day_at(day).strftime("%Y-%m-%dT%H%M%SZ")
        rows.append(
            (provider, source, region, zone, instance, model, term, payment, plan, offer.chip,
             offer.chip_count, offer.price, None, "USD", f"sku-{instance}",
             "https://example.invalid/prices", synthetic.day_at(day),
             synthetic.day_at(end) if closed else None, "changed" if closed else None,
             synthetic.day_at(min(end, days) - 1), f"{stamp}-bench",
             f"{synthetic.day_at(min(end, days) - 1):%Y-%m-%dT%H%M%SZ}-bench",
             f"{stamp}/{source}/0001.json.gz")
        )  # fmt: skip
        if not closed:
            return rows
        step = rng.uniform(-0.12, 0.12) if model == "spot" else rng.uniform(-0.2, 0.1)
        offer.price = round(max(0.05, offer.price * (1 + step)), 4)
        day = end


def prefill(con: duckdb.DuckDBPyConnection, offers: list[synthetic.Offer], days: int) -> int:
    """Write `days` of history for `offers` (prices moved on in place); history rows written."""
    rng = random.Random(5)
    rows = [row for offer in offers for row in _offer_rows(offer, days, rng)]
    rows.sort(key=lambda row: row[16])  # valid_from order, as daily loads would append them
    frame = pl.DataFrame(rows, schema=HISTORY_COLUMNS, orient="row", infer_schema_length=None)
    runs = pl.DataFrame(
        {
            "run_id": [f"{synthetic.day_at(d):%Y-%m-%dT%H%M%SZ}-bench" for d in range(days)],
            "observed_at": [synthetic.day_at(d) for d in range(days)],
        }
    )
    con.register("prefill_history", frame)
    con.register("prefill_runs", runs)
    con.execute("BEGIN TRANSACTION")
    con.execute(
        f"INSERT INTO price_history ({', '.join(HISTORY_COLUMNS)}) "
        f"SELECT {', '.join(HISTORY_COLUMNS)} FROM prefill_history"
    )
    con.execute(
        "INSERT INTO runs SELECT run_id, observed_at, observed_at + INTERVAL 1 MINUTE,"
        " observed_at, 'live', strftime(observed_at, '%Y-%m-%dT%H%M%SZ'), true, 'ok', ?, 0, 0, ?"
        " FROM prefill_runs",
        [len(offers), __version__],
    )
    con.execute(
        "INSERT INTO source_runs SELECT r.run_id, s.source, s.provider, 'ok', 'prefilled', 0, 0,"
        " 1, 0.0, r.observed_at, strftime(r.observed_at, '%Y-%m-%dT%H%M%SZ'), '', []"
        " FROM prefill_runs r, (SELECT DISTINCT source, provider FROM prefill_history) s"
    )
    con.execute("COMMIT")
    con.unregister("prefill_history")
    con.unregister("prefill_runs")
    con.execute("CHECKPOINT")
    return len(rows)
