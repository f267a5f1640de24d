"""Taking one run out of the warehouse: its rows go, and the history it touched is restated
from the observations that remain, through the load's own steps (warehouse/load.py).

The way out of a run that should never have loaded (one stamped ahead of the clock, whose
prices stood until a day to come and hid every real run's change).
"""

from __future__ import annotations

from datetime import datetime

import duckdb

from chipcost.core.errors import UsageError
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.warehouse.db import checkpoint, rollback
from chipcost.warehouse.load import (
    HISTORY_KEY,
    _close_changed,
    _close_withdrawn,
    _extend_unchanged,
    _insert_new,
    _refresh_catalog_fields,
)

_KEY = ", ".join(HISTORY_KEY)
_MATCH = " AND ".join(f"h.{c} = k.{c}" for c in HISTORY_KEY)


# The runs, newest first: what `chipcost sources --runs` lists, with the id remove-run takes.
RUNS_QUERY = (
    "SELECT run_id, archive_run, observed_at, mode, status, sample, records, rejects, "
    "history_changes FROM runs ORDER BY observed_at DESC, started_at DESC"
)


def run_named(con: duckdb.DuckDBPyConnection, given: str) -> str:
    """The run `given` names: its id (runs.run_id, `2026-11-25T205912Z-fa76c9`), or the stamp
    `collect` prints for it (its archive run, or the id without its suffix) when one run
    alone has it. Anything else is refused with the runs it could mean."""
    name = given.strip()
    found = con.execute(
        "SELECT run_id FROM runs WHERE run_id = $name OR archive_run = $name "
        "OR starts_with(run_id, $name || '-') ORDER BY run_id = $name DESC, observed_at DESC",
        {"name": name},
    ).fetchall()
    ids = [row[0] for row in found]
    if ids and (ids[0] == name or len(ids) == 1):
        return ids[0]
    if ids:
        raise UsageError(
            f"run {given!r} could be any of {len(ids)} runs: {', '.join(ids[:5])}"
            f"{' ...' if len(ids) > 5 else ''}; give one of these ids"
        )
    raise UsageError(
        f"run {given!r} is not in the warehouse: `chipcost sources --runs` lists its runs "
        "and their ids"
    )


def remove_run(con: duckdb.DuckDBPyConnection, run_id: str) -> int:
    """Delete run `run_id` (an id, or the stamp `collect` printed: run_named) and restate
    price_history where it wrote; the number of history rows it had opened, extended or
    closed. One transaction: all of it or nothing."""
    run_id = run_named(con, run_id)
    con.execute("BEGIN TRANSACTION")
    try:
        touched = _mark_touched(con, run_id)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE removed_sources AS "
            "SELECT source, observed_at FROM source_runs WHERE run_id = ?",
            [run_id],
        )
        # The reference rates the run's sources loaded (each row names its payload, under the
        # run's archive directory): a run stamped ahead must not leave its rates in force.
        con.execute(
            "DELETE FROM fx_rates WHERE source IN (SELECT source FROM removed_sources) AND "
            "starts_with(payload_ref, (SELECT archive_run FROM runs WHERE run_id = ?) || '/')",
            [run_id],
        )
        for table in ("observations", "rejects", "source_runs", "runs"):
            con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
        _undo(con, run_id)
        _restate(con)
        con.execute("DROP TABLE touched_keys")
        con.execute("DROP TABLE removed_sources")
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    checkpoint(con)
    return touched


def _mark_touched(con: duckdb.DuckDBPyConnection, run_id: str) -> int:
    """The history keys the run opened, extended or closed (temp table touched_keys)."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE touched_keys AS
        SELECT DISTINCT {_KEY} FROM price_history h
        WHERE h.first_run_id = $1 OR h.last_run_id = $1 OR EXISTS (
            SELECT 1 FROM source_runs s
            WHERE s.run_id = $1 AND s.source = h.source AND h.valid_to = s.observed_at
        )
        """,
        [run_id],
    )
    return int(con.execute("SELECT count(*) FROM touched_keys").fetchall()[0][0])


def _undo(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Rows it opened go; rows it extended or closed are reopened as of their first day, and
    `_restate` brings them on (or closes them) from the sightings that remain."""
    con.execute("DELETE FROM price_history WHERE first_run_id = ?", [run_id])
    con.execute(
        f"""
        UPDATE price_history h SET valid_to = NULL, end_reason = NULL,
            last_seen_at = h.valid_from, last_run_id = h.first_run_id
        FROM touched_keys k
        WHERE {_MATCH} AND (h.last_run_id = $1 OR h.valid_to IN (
            SELECT observed_at FROM removed_sources r WHERE r.source = h.source))
        """,
        [run_id],
    )


def _restate(con: duckdb.DuckDBPyConnection) -> None:
    """Each remaining run since the reopened rows' start (or the oldest observation kept), its
    observations of the touched keys loaded again in order: the changes and withdrawals the
    removed run hid. Runs older than the observations kept are not replayed: their sightings
    are gone, and a run without them would seem to list nothing."""
    since = con.execute(
        f"""
        SELECT min(h.last_seen_at) FROM price_history h JOIN touched_keys k ON {_MATCH}
        WHERE h.valid_to IS NULL
        """
    ).fetchall()[0][0]
    if since is None:
        return
    runs = con.execute(
        "SELECT run_id FROM runs WHERE observed_at >= ? AND run_id IN "
        "(SELECT run_id FROM observations) ORDER BY observed_at",
        [since],
    ).fetchall()
    for (run_id,) in runs:
        con.execute(
            f"""
            CREATE OR REPLACE TEMP TABLE staged AS
            SELECT o.* FROM observations o JOIN touched_keys k
                ON {_MATCH.replace("h.", "o.")} WHERE o.run_id = ?
            """,
            [run_id],
        )
        _close_changed(con)
        _refresh_catalog_fields(con)
        _extend_unchanged(con, run_id)
        _close_withdrawn(con, _sightings(con, run_id))
        _insert_new(con, run_id)
    con.execute("DROP TABLE IF EXISTS staged")


def _sightings(con: duckdb.DuckDBPyConnection, run_id: str) -> RunResult:
    """What the withdrawal step needs of a stored run: its successful sources, the touched
    keys each listed (observations) and the skus each refused (rejects)."""
    rows = con.execute(  # a source none of whose rows remain listed nothing we know of
        "SELECT source, provider, observed_at FROM source_runs s WHERE run_id = ? AND status = ? "
        "AND EXISTS (SELECT 1 FROM observations o WHERE o.run_id = s.run_id "
        "AND o.source = s.source)",
        [run_id, OK],
    ).fetchall()
    sources = []
    for source, provider, observed_at in rows:
        seen = con.execute(  # every key it listed, touched or not: none is withdrawn wrongly
            f"SELECT {', '.join(HISTORY_KEY[1:])} FROM observations WHERE run_id = ? "
            "AND source = ?",
            [run_id, source],
        ).fetchall()
        refused = con.execute(
            "SELECT DISTINCT sku FROM rejects WHERE run_id = ? AND source = ? AND sku <> ''",
            [run_id, source],
        ).fetchall()
        sources.append(
            SourceResult(
                source=source,
                provider=provider,
                status=OK,
                observed_at=observed_at,
                seen_keys={tuple(key) for key in seen},
                refused_skus={sku for (sku,) in refused},
            )
        )
    moment = datetime.min
    return RunResult(run_id, moment, moment, "replay", "", False, sources)
