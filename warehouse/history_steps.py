"""The steps of a load that write price_history from the staged observations of a run: a
changed price closes its row, an unchanged one is seen again, an offer no longer listed is
withdrawn, a new one opens a row. warehouse/load.py runs them for a run as it comes,
warehouse/restate.py for the runs it loads again."""

from __future__ import annotations

import duckdb
import polars as pl

from chipcost.core.frames import ArrowStream
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.vocabulary import HISTORY_KEY, OFFER_KEY
from chipcost.warehouse.bound import execute
from chipcost.warehouse.db import scalar

# Prices are stored to 10 decimals by AWS; smaller differences are float noise, not changes.
PRICE_EPSILON = 1e-9

_KEY_MATCH = " AND ".join(f"h.{c} = s.{c}" for c in HISTORY_KEY)
# What a refused row names of the offer it keeps open (core/record.py Reject).
REFUSED_KEY = ("sku", *OFFER_KEY)
# A price is its amount and its currency: 2.80 EUR then 2.80 USD is a change (every read
# converts each row at its own currency's rate), so the open row is closed and a new one opened.
_SAME_PRICE = (
    f"abs(h.price_per_hour - s.price_per_hour) <= {PRICE_EPSILON} "
    f"AND abs(coalesce(h.upfront, 0) - coalesce(s.upfront, 0)) <= {PRICE_EPSILON} "
    "AND h.currency = s.currency"
)


def _count(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> int:
    return int(scalar(con, sql, params) or 0)


def _close_changed(con: duckdb.DuckDBPyConnection) -> int:
    """Close open rows whose price this run saw change (only for newer observations)."""
    return _count(
        con,
        f"""
        UPDATE price_history h SET valid_to = s.observed_at, end_reason = 'changed'
        FROM staged s
        WHERE h.valid_to IS NULL AND {_KEY_MATCH}
          AND s.observed_at > h.last_seen_at AND NOT ({_SAME_PRICE})
        """,
    )


def _refresh_catalog_fields(con: duckdb.DuckDBPyConnection) -> None:
    """Catalog fields of an unchanged price (chip, sku, host specs) follow the newest sighting.

    Only rows where they differ are touched: rewriting four text columns of every open row
    each day made this the slowest step of a 50,000-offer load (docs/performance.md).
    """
    con.execute(
        f"""
        UPDATE price_history h SET
            chip = s.chip, chip_count = s.chip_count, sku = s.sku, source_url = s.source_url,
            vcpus = s.vcpus, ram_gb = s.ram_gb, disk_gb = s.disk_gb
        FROM staged s
        WHERE h.valid_to IS NULL AND {_KEY_MATCH}
          AND s.observed_at > h.last_seen_at AND {_SAME_PRICE}
          AND (h.chip <> s.chip OR h.chip_count <> s.chip_count OR h.sku <> s.sku
               OR h.source_url <> s.source_url OR h.vcpus IS DISTINCT FROM s.vcpus
               OR h.ram_gb IS DISTINCT FROM s.ram_gb OR h.disk_gb IS DISTINCT FROM s.disk_gb)
        """
    )


def _extend_unchanged(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Same price seen again: move last_seen_at on."""
    execute(
        con,
        f"""
        UPDATE price_history h SET last_seen_at = s.observed_at, last_run_id = ?
        FROM staged s
        WHERE h.valid_to IS NULL AND {_KEY_MATCH}
          AND s.observed_at > h.last_seen_at AND {_SAME_PRICE}
        """,
        [run_id],
    )


def _close_withdrawn(con: duckdb.DuckDBPyConnection, run: RunResult) -> int:
    """Offers a fully successful source no longer lists are closed as withdrawn; one whose
    row was seen but refused (by the validator: its key; by the parser: the offer or the sku
    its reject names) is not."""
    ok = [s for s in run.sources if s.status == OK and s.observed_at is not None]
    if not ok:
        return 0
    # Built column-wise: a frame of one dict per key cost 0.1 s a day at 50,000 offers.
    keys = [(s.source, *key) for s in ok for key in s.seen_keys]
    columns = list(zip(*keys, strict=True)) if keys else [[] for _ in HISTORY_KEY]
    seen = pl.DataFrame(dict(zip(HISTORY_KEY, columns, strict=True)), schema=_key_schema())
    sources = pl.DataFrame(
        {"source": [s.source for s in ok], "observed_at": [s.observed_at for s in ok]},
        schema={"source": pl.String, "observed_at": pl.Datetime("us", "UTC")},
    )
    refused = _refused_offers(ok)
    con.register("seen_keys", ArrowStream(seen))
    con.register("ok_sources", ArrowStream(sources))
    con.register("refused_offers", ArrowStream(refused))
    try:
        key_match = " AND ".join(f"h.{c} = k.{c}" for c in HISTORY_KEY)
        return _count(
            con,
            f"""
            UPDATE price_history h SET valid_to = o.observed_at, end_reason = 'withdrawn'
            FROM ok_sources o
            WHERE h.valid_to IS NULL AND h.source = o.source AND h.last_seen_at < o.observed_at
              AND NOT EXISTS (SELECT 1 FROM seen_keys k WHERE {key_match})
              {"".join(_not_kept_open(shape) for shape in refused["shape"].unique().sort())}
            """,
        )
    finally:
        con.unregister("seen_keys")
        con.unregister("ok_sources")
        con.unregister("refused_offers")


def _not_kept_open(shape: int) -> str:
    """No refused row of this shape (the fields it names) keeps the open offer h open: none
    agrees with h on those fields. An equality anti-join a shape, which DuckDB runs as a hash
    join; one match of `r.c IS NULL OR r.c = h.c` for every field compared each open offer
    with each refused row (docs/performance.md)."""
    named = "".join(f" AND r.{c} = h.{c}" for i, c in enumerate(REFUSED_KEY) if shape >> i & 1)
    return (
        "AND NOT EXISTS (SELECT 1 FROM refused_offers r "
        f"WHERE r.shape = {shape} AND r.source = h.source{named})\n"
    )


def _refused_offers(sources: list[SourceResult]) -> pl.DataFrame:
    """Per refused row of each source, what its reject names: its sku and the fields of its
    offer's key it knows, None for the others, and its shape, which of them it names (bit i:
    REFUSED_KEY[i]; a few shapes a source). A field it does not name matches any value; a
    reject naming nothing keeps nothing open."""
    rows = {
        (s.source, r.sku or None, *(r.offer.get(name) for name in OFFER_KEY))
        for s in sources
        for r in s.rejects
        if r.sku or r.offer
    }
    names = ("source", *REFUSED_KEY)
    columns = list(zip(*rows, strict=True)) if rows else [[] for _ in names]
    refused = pl.DataFrame(
        dict(zip(names, columns, strict=True)), schema=dict.fromkeys(names, pl.String())
    )
    named = (pl.col(c).is_not_null().cast(pl.Int32) * (1 << i) for i, c in enumerate(REFUSED_KEY))
    return refused.with_columns(shape=pl.sum_horizontal(named))


def _key_schema() -> dict[str, pl.DataType]:
    return {c: pl.String() for c in HISTORY_KEY}


def _insert_new(con: duckdb.DuckDBPyConnection, run_id: str) -> int:
    """Open a row for every offer with no open row, unless history already covers that time."""
    return _count(
        con,
        f"""
        INSERT INTO price_history
            SELECT provider, source, region, zone, instance_type, pricing_model, term, payment,
                   plan, chip, chip_count, price_per_hour, upfront, currency, sku, source_url,
                   observed_at, NULL, NULL, observed_at, ?, ?, payload_ref,
                   vcpus, ram_gb, disk_gb
            FROM staged s
            WHERE NOT EXISTS (
                SELECT 1 FROM price_history h
                WHERE {_KEY_MATCH} AND (h.valid_to IS NULL OR h.last_seen_at >= s.observed_at)
            )
        """,
        [run_id, run_id],
    )


# The rows of one row group of a DuckDB file, the unit a scan reads or skips.
ROW_GROUP = 122_880


def far_behind(open_rows: int) -> int:
    """How many rows before the newest an open row may lie before keep_open_rows_last moves
    it: max(4 row groups, 3 x the open rows)."""
    return max(4 * ROW_GROUP, 3 * open_rows)


def keep_open_rows_last(con: duckdb.DuckDBPyConnection) -> int:
    """Move price_history's open rows that lie far behind its newest rows to its end, in the
    caller's transaction: the same rows inserted again, the old ones deleted. Returns how many
    moved.

    Every read of the current prices reads the open rows, and a file keeps rows in the order
    they were written: an offer whose price has not moved for years has its open row among
    those years' closed rows, and a read of the current prices fetches every column of nearly
    every row group (ten years of 50,000 offers a day written in the order rows opened held
    them in 86 of 98). Far behind is more than max(4 row groups, 3 x the open rows) before
    the newest row, so that a move is rare (at 50,000 offers and about 3,300 new rows a day,
    the rows moved come back to the edge after some 130 days) and moves few rows (the first
    on that ten-year file moved 14,828 in 0.8 s of CPU). For a file warehouse
    (warehouse/load.py): a lake needs no move, since DuckLake writes an updated row anew and
    each load updates every open row it sees (`last_seen_at`), so its open rows are in the
    newest load's files (docs/warehouse.md).

    Run it before the transaction adds rows: DuckDB numbers the rows a transaction adds from
    36,028,797,018,960,000 (about 2**55) until it commits, so after them every open row of
    the file would be behind."""
    newest, open_rows = con.execute(
        "SELECT max(rowid), count(*) FILTER (WHERE valid_to IS NULL) FROM price_history"
    ).fetchone()  # type: ignore[misc]
    edge = (newest or 0) - far_behind(open_rows)
    if edge <= 0:
        return 0
    behind = f"FROM price_history WHERE valid_to IS NULL AND rowid < {int(edge)}"
    moved = _count(con, f"INSERT INTO price_history SELECT * {behind}")
    if moved:  # the rows inserted have row ids past `edge`
        con.execute(f"DELETE {behind}").fetchall()
    return moved
