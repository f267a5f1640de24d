"""Loading one run into the warehouse: one transaction, history rows only when a price changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb
import polars as pl

from chipcost import __version__
from chipcost.record import OFFER_KEY, records_frame
from chipcost.runs import OK, RunResult
from warehouse.db import scalar

HISTORY_KEY = ("source", *OFFER_KEY)
# Prices are stored to 10 decimals by AWS; smaller differences are float noise, not changes.
PRICE_EPSILON = 1e-9

_KEY_MATCH = " AND ".join(f"h.{c} = s.{c}" for c in HISTORY_KEY)
_SAME_PRICE = (
    f"abs(h.price_per_hour - s.price_per_hour) <= {PRICE_EPSILON} "
    f"AND abs(coalesce(h.upfront, 0) - coalesce(s.upfront, 0)) <= {PRICE_EPSILON}"
)


@dataclass(frozen=True)
class LoadSummary:
    records: int
    rejects: int
    new: int
    changed: int
    withdrawn: int

    @property
    def history_changes(self) -> int:
        return self.new + self.changed + self.withdrawn


def load_run(con: duckdb.DuckDBPyConnection, run: RunResult) -> LoadSummary:
    """Write a run's records, rejects and history in one transaction (all or nothing)."""
    records = [r for s in run.sources for r in s.records]
    staged = records_frame(records).with_columns(pl.lit(run.run_id).alias("run_id"))
    con.execute("BEGIN TRANSACTION")
    try:
        con.register("staged_frame", staged)
        con.execute("CREATE OR REPLACE TEMP TABLE staged AS SELECT * FROM staged_frame")
        con.unregister("staged_frame")
        rejects = _insert_rejects(con, run)
        con.execute(
            "INSERT INTO observations SELECT run_id, observed_at, provider, source, region, zone,"
            " instance_type, chip, chip_count, pricing_model, term, payment, plan,"
            " price_per_hour, upfront, currency, sku, source_url, payload_ref, extra FROM staged"
        )
        changed = _close_changed(con)
        _extend_unchanged(con, run.run_id)
        withdrawn = _close_withdrawn(con, run)
        new = _insert_new(con, run.run_id)
        summary = LoadSummary(len(records), rejects, new - changed, changed, withdrawn)
        _insert_run(con, run, summary)
        con.execute("DROP TABLE staged")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return summary


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


def _extend_unchanged(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Same price seen again: move last_seen_at on; catalog fields follow the newest sighting."""
    con.execute(
        f"""
        UPDATE price_history h SET
            last_seen_at = s.observed_at, last_run_id = ?,
            chip = s.chip, chip_count = s.chip_count, sku = s.sku, source_url = s.source_url
        FROM staged s
        WHERE h.valid_to IS NULL AND {_KEY_MATCH}
          AND s.observed_at > h.last_seen_at AND {_SAME_PRICE}
        """,
        [run_id],
    )


def _close_withdrawn(con: duckdb.DuckDBPyConnection, run: RunResult) -> int:
    """Offers a fully successful source no longer lists are closed as withdrawn."""
    total = 0
    for source in run.sources:
        if source.status != OK or source.observed_at is None:
            continue
        seen = pl.DataFrame(
            [dict(zip(OFFER_KEY, key, strict=True)) for key in source.seen_keys],
            schema={c: pl.String for c in OFFER_KEY},
        )
        con.register("seen_keys", seen)
        key_match = " AND ".join(f"h.{c} = k.{c}" for c in OFFER_KEY)
        total += _count(
            con,
            f"""
                            UPDATE price_history h SET valid_to = ?, end_reason = 'withdrawn'
                WHERE h.valid_to IS NULL AND h.source = ? AND h.last_seen_at < ?
                  AND NOT EXISTS (SELECT 1 FROM seen_keys k WHERE {key_match})
            """,
            [source.observed_at, source.source, source.observed_at],
        )
        con.unregister("seen_keys")
    return total


def _insert_new(con: duckdb.DuckDBPyConnection, run_id: str) -> int:
    """Open a row for every offer with no open row, unless history already covers that time."""
    return _count(
        con,
        f"""
                    INSERT INTO price_history
            SELECT provider, source, region, zone, instance_type, pricing_model, term, payment,
                   plan, chip, chip_count, price_per_hour, upfront, currency, sku, source_url,
                   observed_at, NULL, NULL, observed_at, ?, ?, payload_ref
            FROM staged s
            WHERE NOT EXISTS (
                SELECT 1 FROM price_history h
                WHERE {_KEY_MATCH} AND (h.valid_to IS NULL OR h.last_seen_at >= s.observed_at)
            )
        """,
        [run_id, run_id],
    )


def _insert_rejects(con: duckdb.DuckDBPyConnection, run: RunResult) -> int:
    rows = [
        [
            run.run_id,
            s.source,
            s.observed_at or run.observed_at,
            r.reason,
            r.sku,
            r.payload_ref,
            r.row_json(),
        ]
        for s in run.sources
        for r in s.rejects
    ]
    if rows:
        con.executemany("INSERT INTO rejects VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def _insert_run(con: duckdb.DuckDBPyConnection, run: RunResult, summary: LoadSummary) -> None:
    con.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run.run_id,
            run.started_at,
            datetime.now(UTC),
            run.observed_at,
            run.mode,
            run.archive_run,
            run.sample,
            run.status,
            summary.records,
            summary.rejects,
            summary.history_changes,
            __version__,
        ],
    )
    con.executemany(
        "INSERT INTO source_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            [
                run.run_id,
                s.source,
                s.provider,
                s.status,
                s.message,
                len(s.records),
                len(s.rejects),
                s.payloads,
                round(s.seconds, 3),
                s.observed_at,
                run.archive_run,
                s.payload_digest,
                s.notes,
            ]
            for s in run.sources
        ],
    )


def loaded_sources(con: duckdb.DuckDBPyConnection, archive_run: str) -> dict[str, str]:
    """Sources already loaded successfully from an archived run: source -> payload digest."""
    rows = con.execute(
        "SELECT source, payload_digest FROM source_runs WHERE archive_run = ? AND status = ?",
        [archive_run, OK],
    ).fetchall()
    return {source: digest for source, digest in rows}
