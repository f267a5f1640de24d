"""Loading one run into the warehouse: one transaction, history rows only when a price changes."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import duckdb
import polars as pl

from chipcost.core.frames import ArrowStream, records_frame
from chipcost.core.record import RECORD_COLUMNS
from chipcost.core.runs import ALREADY_LOADED, OK, LoadSummary, RunResult
from chipcost.core.settings import DEFAULT_OBSERVATIONS_DAYS
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.warehouse import lake
from chipcost.warehouse.db import checkpoint, rollback, scalar
from chipcost.warehouse.insert import insert_rows
from chipcost.warehouse.run_rows import insert_attempt, insert_rejects, insert_run

# Prices are stored to 10 decimals by AWS; smaller differences are float noise, not changes.
PRICE_EPSILON = 1e-9

_KEY_MATCH = " AND ".join(f"h.{c} = s.{c}" for c in HISTORY_KEY)
# A price is its amount and its currency: 2.80 EUR then 2.80 USD is a change (every read
# converts each row at its own currency's rate), so the open row is closed and a new one opened.
_SAME_PRICE = (
    f"abs(h.price_per_hour - s.price_per_hour) <= {PRICE_EPSILON} "
    f"AND abs(coalesce(h.upfront, 0) - coalesce(s.upfront, 0)) <= {PRICE_EPSILON} "
    "AND h.currency = s.currency"
)
_OBSERVATION_COLUMNS = ", ".join(["run_id", *(name for name, _ in RECORD_COLUMNS)])


# A lake load whose commit conflicts with another writer's (both changed price_history) is
# rerun from the start on the new snapshot, this many times at most.
LAKE_LOAD_ATTEMPTS = 8


def load_run(
    con: duckdb.DuckDBPyConnection,
    run: RunResult,
    *,
    observations_days: int | None = DEFAULT_OBSERVATIONS_DAYS,
    checkpointed: bool = True,
) -> LoadSummary:
    """Write a run's records, rejects and history in one transaction (all or nothing).

    Observations older than `observations_days` before the newest one are pruned in the
    same transaction (None keeps them all); price_history and rejects are never pruned.
    A checkpoint follows the commit, so the run is in the file, not only in the WAL;
    `checkpointed=False` leaves that to the caller (a replay checkpoints once at its end).
    """
    if not lake.is_lake(con):
        return _load_once(con, run, observations_days, checkpointed)
    for attempt in range(1, LAKE_LOAD_ATTEMPTS + 1):
        try:
            return _load_once(con, run, observations_days, checkpointed)
        except duckdb.Error as exc:
            if attempt == LAKE_LOAD_ATTEMPTS or not lake.is_conflict(exc):
                raise
            time.sleep(0.1 * attempt)
    raise AssertionError("unreachable")


def _load_once(
    con: duckdb.DuckDBPyConnection,
    run: RunResult,
    observations_days: int | None,
    checkpointed: bool,
) -> LoadSummary:
    con.execute("BEGIN TRANSACTION")
    try:
        _claim(con)
        if not _unloaded(con, run):
            insert_attempt(con, run)  # another writer loaded all of it meanwhile
            con.execute("COMMIT")
            return LoadSummary(0, 0, 0, 0, 0)
        frames = [s.records_frame() for s in run.sources]
        staged = pl.concat(frames) if frames else records_frame([])
        staged = staged.with_columns(pl.lit(run.run_id).alias("run_id"))
        con.register("staged_frame", ArrowStream(staged))
        con.execute("CREATE OR REPLACE TEMP TABLE staged AS SELECT * FROM staged_frame")
        con.unregister("staged_frame")
        cutoff = _retention_cutoff(con, run, observations_days)
        rejects = insert_rejects(con, run)
        _insert_observations(con, cutoff)
        changed = _close_changed(con)
        _refresh_catalog_fields(con)
        _extend_unchanged(con, run.run_id)
        withdrawn = _close_withdrawn(con, run)
        new = _insert_new(con, run.run_id)
        _load_facts(con, run)
        pruned = _prune_observations(con, cutoff)
        summary = LoadSummary(staged.height, rejects, new - changed, changed, withdrawn, pruned)
        insert_run(con, run, summary)
        con.execute("DROP TABLE staged")
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    if checkpointed:
        checkpoint(con)
    return summary


# The reference tables sources may fill beside prices (ParseResult.facts), each with the key
# a later row replaces an earlier one by (migration 080).
FACT_KEYS = {
    "fx_rates": ("day", "currency"),
    "spot_interruptions": ("region", "instance_type", "os"),
}


# Reference tables whose rows are observations, never rewritten: a later file's different
# value for a key is added beside the earlier one (with its payload), and reads take the one
# observed last (warehouse/fx.py); the same value again adds nothing.
KEPT_FACTS = {"fx_rates": "per_eur"}


def _load_facts(con: duckdb.DuckDBPyConnection, run: RunResult) -> int:
    """Each successful source's reference rows, replacing the rows they have the key of."""
    loaded = 0
    for source in run.sources:
        if source.status != OK:
            continue
        for table, rows in sorted(source.facts.items()):
            if table not in FACT_KEYS:
                raise ValueError(f"{source.source}: no reference table {table!r} to load into")
            loaded += _replace_facts(con, table, FACT_KEYS[table], rows)
    return loaded


def _replace_facts(
    con: duckdb.DuckDBPyConnection, table: str, key: tuple[str, ...], rows: list[dict]
) -> int:
    if not rows:
        return 0
    # One row per key: a later row of the run (a later payload) wins.
    latest = {tuple(row[k] for k in key): row for row in rows}
    columns = list(rows[0])
    con.execute(f"CREATE OR REPLACE TEMP TABLE staged_facts AS SELECT * FROM {table} LIMIT 0")
    try:
        insert_rows(
            con, "staged_facts", columns, [[r.get(c) for c in columns] for r in latest.values()]
        )
        listed = ", ".join(columns)
        if (value := KEPT_FACTS.get(table)) is not None:
            keys = ", ".join(key)
            con.execute(
                f"""
                INSERT INTO {table} ({listed}) SELECT {", ".join(f"s.{c}" for c in columns)}
                FROM staged_facts s LEFT JOIN (
                    SELECT {keys}, arg_max({value}, (observed_at, payload_ref)) AS last FROM {table}
                    GROUP BY ALL
                ) t USING ({keys})
                WHERE t.last IS NULL OR t.last <> s.{value}
                """
            )
            return len(latest)
        match = " AND ".join(f"t.{k} = s.{k}" for k in key)
        con.execute(
            f"DELETE FROM {table} t WHERE EXISTS (SELECT 1 FROM staged_facts s WHERE {match})"
        )
        con.execute(f"INSERT INTO {table} ({listed}) SELECT {listed} FROM staged_facts")
    finally:
        con.execute("DROP TABLE IF EXISTS staged_facts")
    return len(latest)


def _claim(con: duckdb.DuckDBPyConnection) -> None:
    """Rewrite the row every load rewrites (migration 050): on a lake, two loads at once then
    conflict, and the later is rerun from the start on a snapshot holding the other's rows."""
    con.execute("UPDATE load_claim SET claimed_at = now()")


def _unloaded(con: duckdb.DuckDBPyConnection, run: RunResult) -> bool:
    """Whether the run has anything left to load, its sources already loaded from the same
    archived run with the same payloads (by another collect at the same time, seen in this
    transaction's snapshot) marked so and emptied. A source found loaded before the load
    began was marked by the collect and has no records."""
    loaded = loaded_sources(con, run.archive_run) if run.archive_run else {}
    for source in run.sources:
        if (
            source.status == OK
            and source.payload_digest
            and (loaded.get(source.source) == source.payload_digest)
        ):
            source.status = ALREADY_LOADED
            source.message = "already loaded from this archive by another collect: nothing to do"
            source.records, source.rejects, source.seen_keys = [], [], set()
            source.refused_skus = set()
    return any(s.status != ALREADY_LOADED for s in run.sources)


def _count(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> int:
    return int(scalar(con, sql, params) or 0)


def _retention_cutoff(
    con: duckdb.DuckDBPyConnection, run: RunResult, days: int | None
) -> datetime | None:
    """Observations before this moment are pruned: `days` before the newest observation.

    Measured from the newest observation, not the clock, so replaying an old archive into a
    new file keeps the last `days` of that archive; but never from a moment ahead of the
    clock, so a run dated in the future cannot prune the observations of every real one.
    """
    if days is None:
        return None
    newest = scalar(con, "SELECT greatest(max(observed_at), ?) FROM staged", [run.observed_at])
    stored = scalar(con, "SELECT max(observed_at) FROM observations")
    if stored is not None and stored > newest:
        newest = stored
    newest = min(newest, datetime.now(UTC))
    return newest - timedelta(days=days)


def _insert_observations(con: duckdb.DuckDBPyConnection, cutoff: datetime | None) -> None:
    # A record already outside the window (an old archive replayed late) is not written
    # only to be pruned: its prices still reach price_history below.
    where, params = ("WHERE observed_at >= ?", [cutoff]) if cutoff else ("", [])
    con.execute(
        f"INSERT INTO observations SELECT {_OBSERVATION_COLUMNS} FROM staged {where}", params
    )


def _prune_observations(con: duckdb.DuckDBPyConnection, cutoff: datetime | None) -> int:
    if cutoff is None:
        return 0
    return _count(con, "DELETE FROM observations WHERE observed_at < ?", [cutoff])


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
    con.execute(
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
    row was seen but refused (by the validator: its key; by the parser: its sku) is not."""
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
    refused = [(s.source, sku) for s in ok for sku in s.refused_skus]
    refused_frame = pl.DataFrame(
        {"source": [r[0] for r in refused], "sku": [r[1] for r in refused]},
        schema={"source": pl.String, "sku": pl.String},
    )
    con.register("seen_keys", ArrowStream(seen))
    con.register("ok_sources", ArrowStream(sources))
    con.register("refused_skus", ArrowStream(refused_frame))
    try:
        key_match = " AND ".join(f"h.{c} = k.{c}" for c in HISTORY_KEY)
        return _count(
            con,
            f"""
            UPDATE price_history h SET valid_to = o.observed_at, end_reason = 'withdrawn'
            FROM ok_sources o
            WHERE h.valid_to IS NULL AND h.source = o.source AND h.last_seen_at < o.observed_at
              AND NOT EXISTS (SELECT 1 FROM seen_keys k WHERE {key_match})
              AND NOT EXISTS (
                  SELECT 1 FROM refused_skus r WHERE r.source = h.source AND r.sku = h.sku
              )
            """,
        )
    finally:
        con.unregister("seen_keys")
        con.unregister("ok_sources")
        con.unregister("refused_skus")


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


def loaded_sources(con: duckdb.DuckDBPyConnection, archive_run: str) -> dict[str, str]:
    """Sources already loaded successfully from an archived run: source -> payload digest."""
    rows = con.execute(
        "SELECT source, payload_digest FROM source_runs WHERE archive_run = ? AND status = ?",
        [archive_run, OK],
    ).fetchall()
    return {source: digest for source, digest in rows}
