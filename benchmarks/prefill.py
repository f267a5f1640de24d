"""Years of price history written in bulk, so the real loader can then run on top of it.

The scale benchmark loads every day through warehouse.load.load_run by default. Ten years
of that at 50,000 offers a day is more than a day of this machine; `--prefill-days N` writes
the first N days here instead (the same offers, change rates and churn, in bulk), then loads
the remaining days through the real path. The rows are the ones the loader would have
written, where it would have left them: by the day each was last written (_written_order).
In a file that is the day it opened unless it lay far behind the newest rows while still
open, when a load moved it to the end (warehouse/history_steps.py keep_open_rows_last; here
by the days those rows make at the prefill's mean rows a day); in a lake, the day it closed,
the open rows last. The file layout is tidier (one bulk
insert, no daily updates), so file-size figures come from runs without prefill
(docs/performance.md).

The rows are made a block of offers at a time and staged in the warehouse file, so memory
holds one block, not the years: ten years of 50,000 offers are about 12 million rows.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from datetime import timedelta

import duckdb
import polars as pl

from benchmarks import synthetic
from chipcost.core.frames import ArrowStream
from chipcost.core.version import __version__

HISTORY_COLUMNS = (
    "provider source region zone instance_type pricing_model term payment plan chip chip_count "
    "price_per_hour upfront currency sku source_url valid_from valid_to end_reason last_seen_at "
    "first_run_id last_run_id payload_ref"
).split()
# Offers whose rows are made and staged at once: about 240 rows each over ten years.
BLOCK = 2_000
# DuckDB's memory while it orders the staged rows into price_history (it spills beyond).
SORT_MEMORY = "2GB"


def _gap(rng: random.Random, rate: float) -> int:
    """Days until an offer's next event at daily probability `rate` (geometric)."""
    if rate <= 0:
        return 10**9
    return max(1, math.ceil(math.log(1.0 - rng.random()) / math.log(1.0 - rate)))


class _Days:
    """Each day's timestamp and run id, made once."""

    def __init__(self, days: int) -> None:
        self.at = [synthetic.day_at(d) for d in range(days + 1)]
        self.run = [f"{when:%Y-%m-%dT%H%M%SZ}-bench" for when in self.at]


def _offer_rows(
    offer: synthetic.Offer, days: int, rng: random.Random, when: _Days
) -> Iterator[tuple]:
    """The history rows of one offer's line over `days`, the offer moved on in place to the
    last day (its price changed, or its key that of the offer that took its place)."""
    day = 0
    while True:
        source, provider, region, zone, instance, model, term, payment, plan = offer.key
        change = day + _gap(rng, offer.change_rate)
        # An offer is withdrawn and another takes its place (synthetic.CHURN, as advance does).
        gone = day + _gap(rng, synthetic.CHURN)
        end = min(change, gone)
        closed = end < days
        reason = None if not closed else ("changed" if change <= gone else "withdrawn")
        last = min(end, days) - 1
        yield (
            provider, source, region, zone, instance, model, term, payment, plan, offer.chip,
            offer.chip_count, offer.price, None, synthetic.currency_of(source), f"sku-{instance}",
            "https://example.invalid/prices", when.at[day], when.at[end] if closed else None,
            reason, when.at[last], when.run[day], when.run[last],
            f"{when.run[day].removesuffix('-bench')}/{source}/0001.json.gz",
        )  # fmt: skip
        if not closed:
            return
        if reason == "changed":
            step = rng.uniform(-0.12, 0.12) if model == "spot" else rng.uniform(-0.2, 0.1)
            offer.price = round(max(0.05, offer.price * (1 + step)), 4)
        else:
            offer.key = (source, provider, region, zone, f"{instance}-r{rng.randrange(10**6)}",
                         model, term, payment, plan)  # fmt: skip
        day = end


def _stage(con: duckdb.DuckDBPyConnection, rows: list[tuple], schema: dict) -> None:
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    con.register("prefill_block", ArrowStream(frame))
    try:
        con.execute("INSERT INTO prefill_history SELECT * FROM prefill_block")
    finally:
        con.unregister("prefill_block")


def _schema(con: duckdb.DuckDBPyConnection) -> dict:
    """price_history's columns typed as polars types (text, numbers, UTC timestamps)."""
    types = {
        "VARCHAR": pl.String(),
        "DOUBLE": pl.Float64(),
        "TIMESTAMP WITH TIME ZONE": pl.Datetime("us", "UTC"),
    }
    described = {row[0]: row[1] for row in con.execute("DESCRIBE price_history").fetchall()}
    return {c: types[described[c]] for c in HISTORY_COLUMNS}


def _written_order(con: duckdb.DuckDBPyConnection, offers: int, days: int, when: _Days) -> str:
    """The ORDER BY of the staged rows as the daily loads would have left them: by the day,
    from the first, each was last written, then by valid_from. A file's load updates a row in
    place and moves an open row that lies far behind the newest (keep_open_rows_last), so a
    row open for longer than the days that many rows make is written again that many days
    after it opened, as often as it stays open. A lake writes an updated row anew (DuckLake
    deletes it and inserts it in a new data file), and each load updates every open row it
    sees (`last_seen_at`): a closed row lies with the load that closed it, the open rows with
    the newest load."""
    from chipcost.warehouse import lake
    from chipcost.warehouse.history_steps import far_behind

    if lake.is_lake(con):
        return "valid_to NULLS LAST, valid_from"
    rows = con.execute("SELECT count(*) FROM prefill_history").fetchone()[0]
    behind = far_behind(offers) / max(rows / days, 1.0)  # in days
    first, end = when.at[0].timestamp(), when.at[days].timestamp()
    opened = f"(epoch(valid_from) - {first}) / 86400"
    ended = f"(coalesce(epoch(valid_to), {end}) - {first}) / 86400"
    written = f"{opened} + greatest(0, ceil(({ended} - {opened}) / {behind}) - 1) * {behind}"
    return f"{written}, valid_from"


def prefill(con: duckdb.DuckDBPyConnection, offers: list[synthetic.Offer], days: int) -> int:
    """Write `days` of history for `offers` (moved on in place); history rows written."""
    rng = random.Random(5)
    when = _Days(days)
    schema = _schema(con)
    listed = ", ".join(HISTORY_COLUMNS)
    con.execute(f"CREATE TABLE prefill_history AS SELECT {listed} FROM price_history LIMIT 0")
    for start in range(0, len(offers), BLOCK):
        rows = [
            row
            for offer in offers[start : start + BLOCK]
            for row in _offer_rows(offer, days, rng, when)
        ]
        _stage(con, rows, schema)
    runs = pl.DataFrame({"run_id": when.run[:days], "observed_at": when.at[:days]})
    con.register("prefill_runs", ArrowStream(runs))
    limit = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    con.execute(f"SET memory_limit = '{SORT_MEMORY}'")
    con.execute("BEGIN TRANSACTION")
    con.execute(
        f"INSERT INTO price_history ({listed}) SELECT {listed} FROM prefill_history "
        f"ORDER BY {_written_order(con, len(offers), days, when)}"
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
    # The ECB's rates of every working day the prefilled runs saw (the first run's file goes
    # 90 days back), each as the run of the morning after observed it.
    rates = synthetic.rate_rows(
        when.at[0].date() - timedelta(days=synthetic.RATES_DAYS),
        when.at[days - 1].date() - timedelta(days=1),
    )
    con.register("prefill_rates", ArrowStream(pl.DataFrame(rates)))
    con.execute(
        "INSERT INTO fx_rates (day, currency, per_eur, source, observed_at, payload_ref) "
        "SELECT day, currency, per_eur, source, observed_at, payload_ref FROM prefill_rates"
    )
    con.unregister("prefill_rates")
    written = con.execute("SELECT count(*) FROM prefill_history").fetchone()[0]
    con.execute("DROP TABLE prefill_history")
    con.execute("COMMIT")
    con.execute(f"SET memory_limit = '{limit}'")
    con.unregister("prefill_runs")
    con.execute("CHECKPOINT")
    return written
