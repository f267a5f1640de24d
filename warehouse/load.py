"""Loading one run into the warehouse: one transaction, history rows only when a price changes."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

import duckdb
import polars as pl

from chipcost.core.frames import ArrowStream, records_frame
from chipcost.core.record import RECORD_COLUMNS
from chipcost.core.runs import ALREADY_LOADED, FAILED, OK, LoadSummary, RunResult, SourceResult
from chipcost.core.settings import DEFAULT_OBSERVATIONS_DAYS
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.warehouse import lake
from chipcost.warehouse.bound import execute
from chipcost.warehouse.db import checkpoint, rollback, scalar
from chipcost.warehouse.history_steps import (
    _close_changed,
    _close_withdrawn,
    _count,
    _extend_unchanged,
    _insert_new,
    _refresh_catalog_fields,
    keep_open_rows_last,
)
from chipcost.warehouse.insert import insert_rows
from chipcost.warehouse.run_rows import insert_attempt, insert_rejects, insert_run

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
        if not lake.is_lake(con):  # first: the rows this transaction adds have no file row ids
            keep_open_rows_last(con)
        frames = [s.records_frame() for s in run.sources]
        staged = pl.concat(frames) if frames else records_frame([])
        staged = staged.with_columns(pl.lit(run.run_id).alias("run_id"))
        con.register("staged_frame", ArrowStream(staged))
        con.execute("CREATE OR REPLACE TEMP TABLE staged AS SELECT * FROM staged_frame")
        con.unregister("staged_frame")
        cutoff = _retention_cutoff(con, run, observations_days)
        rejects = insert_rejects(con, run)
        if late := _late_sources(con, run):
            summary = _load_late(con, run, late, staged.height, rejects)
        else:
            _insert_observations(con, cutoff)
            summary = _load_forward(con, run, run.sources, staged.height, rejects)
        _load_facts(con, run)
        summary = replace(summary, pruned=_prune_observations(con, cutoff))
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    if checkpointed:
        checkpoint(con)
    return summary


def _late_sources(con: duckdb.DuckDBPyConnection, run: RunResult) -> list[SourceResult]:
    """The run's successful sources of which a newer run is already loaded (an old archive
    replayed late, a backfill of versions older than the prices held)."""
    ok = [s for s in run.sources if s.status == OK and s.observed_at is not None]
    if not ok:
        return []
    newest = dict(
        execute(
            con,
            "SELECT source, max(observed_at) FROM source_runs WHERE status = ? "
            "AND list_contains(?, source) GROUP BY source",
            [OK, [s.source for s in ok]],
        ).fetchall()
    )
    return [s for s in ok if s.source in newest and newest[s.source] > s.observed_at]


def _load_late(
    con: duckdb.DuckDBPyConnection,
    run: RunResult,
    late: list[SourceResult],
    records: int,
    rejects: int,
) -> LoadSummary:
    """A run older than runs already loaded of its sources: the history of its sources is
    restated from its moment on, with it in its place among the runs (warehouse/restate.py),
    so that the order runs were loaded in does not matter. Where a later run's observations
    are gone (older than the retention window) that cannot be done: its sources then open no
    history row (history only moves forward), and their message says so."""
    from chipcost.warehouse.restate import lost_observations, restate_since

    ok = [s for s in run.sources if s.status == OK and s.observed_at is not None]
    since = min([run.observed_at, *(s.observed_at for s in ok if s.observed_at is not None)])
    _insert_observations(con, None)  # the restatement reads this run's from there
    execute(
        con,
        "CREATE OR REPLACE TEMP TABLE restated_sources AS SELECT unnest(?::VARCHAR[]) AS source",
        [[s.source for s in ok]],
    )
    priced = [s for s in late if s.records]  # a source of facts alone has no history
    if lost_observations(con, since)[1]:
        con.execute("DROP TABLE restated_sources")
        for source in priced:
            said = (
                f"older than {source.source} prices already loaded, and the observations of "
                "the runs after it are past the retention window: it opens no history row "
                "(history only moves forward); replay the whole archive into a new warehouse "
                "to have it in the history"
            )
            source.message += f"; {said}"
            source.notes.append(said)  # said by default, not only with --verbose
        late_names = [s.source for s in late]
        execute(con, "DELETE FROM staged WHERE list_contains(?, source)", [late_names])
        summary = _load_forward(con, run, [s for s in ok if s not in late], records, rejects)
    else:
        for source in priced:
            source.notes.append(
                f"older than {source.source} prices already loaded: the history from "
                f"{since:%Y-%m-%d %H:%M} UTC on was restated with it"
            )
        insert_run(con, run, LoadSummary(records, rejects, 0, 0, 0))
        restate_since(con, since)  # adds its history changes to the run's row
        con.execute("DROP TABLE restated_sources")
        summary = _late_summary(con, run, records, rejects)
    return summary


def _load_forward(
    con: duckdb.DuckDBPyConnection,
    run: RunResult,
    ok: list[SourceResult],
    records: int,
    rejects: int,
) -> LoadSummary:
    """The load's own steps for the run's sources in `ok` (staged holds theirs alone), and
    the run's row."""
    changed = _close_changed(con)
    _refresh_catalog_fields(con)
    _extend_unchanged(con, run.run_id)
    withdrawn = _close_withdrawn(con, replace(run, sources=ok))
    new = _insert_new(con, run.run_id)
    summary = LoadSummary(records, rejects, new - changed, changed, withdrawn)
    insert_run(con, run, summary)
    con.execute("DROP TABLE staged")
    return summary


def _late_summary(
    con: duckdb.DuckDBPyConnection, run: RunResult, records: int, rejects: int
) -> LoadSummary:
    """What a restated late run changed in the history, counted as a load counts it: the rows
    it opened (a changed price's among them) and the offers it closed as withdrawn."""
    key = " AND ".join(f"p.{c} = h.{c}" for c in HISTORY_KEY)
    opened, changed = execute(
        con,
        f"""
        SELECT count(*), count(*) FILTER (WHERE EXISTS (
            SELECT 1 FROM price_history p WHERE {key} AND p.valid_to = h.valid_from
              AND p.end_reason = 'changed'))
        FROM price_history h WHERE h.first_run_id = ?
        """,
        [run.run_id],
    ).fetchall()[0]
    withdrawn = _count(
        con,
        "SELECT count(*) FROM price_history h JOIN source_runs s ON s.source = h.source "
        "AND s.observed_at = h.valid_to WHERE s.run_id = ? AND h.end_reason = 'withdrawn'",
        [run.run_id],
    )
    return LoadSummary(records, rejects, opened - changed, changed, withdrawn)


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
        # a run loaded late never replaces what a newer one published
        con.execute(
            f"DELETE FROM staged_facts s WHERE EXISTS (SELECT 1 FROM {table} t WHERE {match} "
            "AND t.observed_at > s.observed_at)"
        )
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
    archived run (by another collect at the same time, seen in this transaction's snapshot)
    emptied: marked so when their payloads were the same, failed as a conflict when they were
    not (the first load stands). A source found loaded before the load began was marked by
    the collect and has no records."""
    # A spot backfill loads one archived fetch day by day, each day a load of its own (its
    # digest names the day, and the backfill skips a day already loaded): not a replay.
    replay = run.archive_run and run.mode != "backfill"
    loaded = loaded_sources(con, run.archive_run) if replay else {}
    for source in run.sources:
        first = loaded.get(source.source)
        if source.status != OK or not source.payload_digest or first is None:
            continue
        if first.digest == source.payload_digest:
            source.status = ALREADY_LOADED
            source.message = "already loaded from this archive by another collect: nothing to do"
        else:
            source.status = FAILED
            source.message = replay_conflict(
                source.source, run.archive_run, first, f"{source.payloads} payload(s)"
            )
        source.records, source.rejects, source.seen_keys, source.frame = [], [], set(), None
    return any(s.status != ALREADY_LOADED for s in run.sources)


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


# The staged records that carry a mark a read shows beside their price (an estimate's basis,
# a spot price's doubt), as price_marks' rows: kept beyond the observations window, as long
# as a price rests on their payload (migrations/103_price_marks.sql fills it by this rule).
MARKED_RECORDS = """
    SELECT run_id, source, region, instance_type, pricing_model, term, observed_at, payload_ref,
        nullif(json_extract_string(extra, '$.estimate'), ''),
        CASE WHEN pricing_model = 'spot'
            THEN json_extract_string(extra, '$.spot_not_below_on_demand') END
    FROM staged
    WHERE extra LIKE '%"estimate"%'
        OR (pricing_model = 'spot' AND extra LIKE '%spot_not_below_on_demand%')"""


def _insert_observations(con: duckdb.DuckDBPyConnection, cutoff: datetime | None) -> None:
    # A record already outside the window (an old archive replayed late) is not written
    # only to be pruned: its prices still reach price_history below, and its marks
    # price_marks.
    where, params = ("WHERE observed_at >= ?", [cutoff]) if cutoff else ("", [])
    execute(
        con, f"INSERT INTO observations SELECT {_OBSERVATION_COLUMNS} FROM staged {where}", params
    )
    con.execute(f"INSERT INTO price_marks {MARKED_RECORDS}")


def _prune_observations(con: duckdb.DuckDBPyConnection, cutoff: datetime | None) -> int:
    """The observations older than the window, and the marks past it no price rests on."""
    if cutoff is None:
        return 0
    if scalar(con, "SELECT count(*) FROM price_marks WHERE observed_at < ?", [cutoff]):
        # Kept while a price row rests on it as the reads match it (its payload and key):
        # NOT EXISTS, an anti join from the few marks (0.03 s on ten years of history), where
        # NOT IN hashed every history row's payload (0.9 s of CPU).
        execute(
            con,
            """DELETE FROM price_marks m WHERE m.observed_at < ? AND NOT EXISTS (
                SELECT 1 FROM price_history h
                WHERE h.payload_ref = m.payload_ref AND h.source = m.source
                    AND h.region = m.region AND h.instance_type = m.instance_type
                    AND h.pricing_model = m.pricing_model AND h.term = m.term)""",
            [cutoff],
        )
    return _count(con, "DELETE FROM observations WHERE observed_at < ?", [cutoff])


class LoadedFrom(NamedTuple):
    """A source loaded successfully from an archived run: the digest of its payloads then,
    and the run that loaded them."""

    digest: str
    run_id: str


def loaded_sources(con: duckdb.DuckDBPyConnection, archive_run: str) -> dict[str, LoadedFrom]:
    """Sources already loaded successfully from an archived run: source -> what loaded it.
    The first load stands (docs/archive.md): a replay of the run whose payloads differ is a
    conflict (replay_conflict), not a second load."""
    rows = execute(
        con,
        "SELECT source, arg_min(payload_digest, observed_at), arg_min(run_id, observed_at) "
        "FROM source_runs WHERE archive_run = ? AND status = ? GROUP BY source",
        [archive_run, OK],
    ).fetchall()
    return {source: LoadedFrom(digest, run_id) for source, digest, run_id in rows}


def replay_conflict(source: str, archive_run: str, loaded: LoadedFrom, payloads: str) -> str:
    """What a source says when an archived run it was loaded from is read again with other
    payloads: the first load stands, this one loads nothing."""
    return (
        f"{source}: conflict: archive run {archive_run} was loaded before (run "
        f"{loaded.run_id}) from other payloads than the {payloads} it now holds; the first "
        f"load stands and nothing of this one was loaded; to load these instead, `chipcost "
        f"remove-run {loaded.run_id}`, then replay the run"
    )


def is_replay_conflict(source: SourceResult) -> bool:
    """Whether a source failed as a replay_conflict: its payloads refused, the first load
    standing (the collection then fails, whatever else it loaded)."""
    return source.status == FAILED and source.conflict
