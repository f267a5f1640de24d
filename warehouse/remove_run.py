"""Taking one run out of the warehouse: its rows go, and the history of its sources is
restated from the removed run's time on (warehouse/restate.py).

The way out of a run that should never have loaded (one stamped ahead of the clock, whose
prices stood until a day to come and hid every real run's change). Afterwards the warehouse
holds what loading the remaining runs in order would have made of it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

import duckdb

from chipcost.archive import parse_stamp, run_stamp
from chipcost.core.commands import RUNS
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.warehouse import lake
from chipcost.warehouse.bound import execute
from chipcost.warehouse.db import checkpoint, rollback
from chipcost.warehouse.load import LAKE_LOAD_ATTEMPTS, _claim
from chipcost.warehouse.restate import restate_since

_KEY = ", ".join(HISTORY_KEY)


# The runs, newest first: what `chipcost sources --runs` lists, with the id remove-run takes.
RUNS_QUERY = (
    "SELECT run_id, archive_run, observed_at, mode, status, sample, records, rejects, "
    "history_changes FROM runs ORDER BY observed_at DESC, started_at DESC"
)


def run_named(con: duckdb.DuckDBPyConnection, given: str) -> str:
    """The run `given` names: its full id (runs.run_id, `2026-11-25T205912Z-fa76c9`), or its
    whole stamp (its archive run, as `collect` prints it, or the id without its suffix) when
    one run alone has it, as `sources --runs` lists them. Anything else (a year, a day, a
    stamp cut short) names no run and is refused saying what is taken: removing a run is not
    undone, so a part of a name is never taken for the whole."""
    name = given.strip()
    found = execute(
        con,
        "SELECT run_id FROM runs WHERE run_id = $name OR archive_run = $name "
        "OR ($stamp AND starts_with(run_id, $name || '-') "
        "AND NOT contains(run_id[length($name) + 2:], '-')) "
        "ORDER BY run_id = $name DESC, observed_at DESC",
        {"name": name, "stamp": _is_stamp(name)},
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
        f"run {given!r} is not in the warehouse: remove-run takes a run's full id "
        f"(2026-11-25T205912Z-fa76c9) or its whole stamp (2026-11-25T205912Z), as `{RUNS}` "
        "lists its runs and their ids"
    )


def _is_stamp(name: str) -> bool:
    """Whether `name` is a whole run stamp (2026-11-25T205912Z), written as chipcost writes one."""
    try:
        return run_stamp(parse_stamp(name)) == name
    except ValueError:
        return False


def remove_run(con: duckdb.DuckDBPyConnection, run_id: str) -> int:
    """Delete run `run_id` (an id, or the stamp `collect` printed: run_named) and restate
    price_history where it could have written; the number of offers whose history rows it
    had opened, extended or closed. One transaction: all of
    it or nothing. On a lake, a commit that conflicts with another writer's (a collect loading
    meanwhile) is rerun from the start on the new snapshot, as a load is."""
    run_id = run_named(con, run_id)
    if not lake.is_lake(con):
        return _remove_once(con, run_id)
    for attempt in range(1, LAKE_LOAD_ATTEMPTS + 1):
        try:
            return _remove_once(con, run_id)
        except duckdb.Error as exc:
            if not lake.is_conflict(exc):
                raise
            if attempt == LAKE_LOAD_ATTEMPTS:
                raise ChipcostError(
                    f"run {run_id} was not removed: other writers changed the warehouse "
                    f"{attempt} times while its history was restated (nothing was changed); "
                    f"run `chipcost remove-run {run_id}` again when the collect has finished"
                ) from None
            time.sleep(0.1 * attempt)
    raise AssertionError("unreachable")


def _remove_once(con: duckdb.DuckDBPyConnection, run_id: str) -> int:
    con.execute("BEGIN TRANSACTION")
    try:
        _claim(con)  # a load at the same time on a lake conflicts with this, not interleaves
        run_named(con, run_id)  # still there on this snapshot (not removed meanwhile)
        touched = _touched(con, run_id)
        _sources_of(con, run_id)
        since = _since(con, run_id)
        _remove_rates(con, run_id)
        for table in ("observations", "price_marks", "rejects", "source_runs", "runs"):
            execute(con, f"DELETE FROM {table} WHERE run_id = ?", [run_id])
        if since is not None:
            restate_since(con, since)
        con.execute("DROP TABLE restated_sources")
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    checkpoint(con)
    return touched


@dataclass(frozen=True)
class RemovalPreview:
    """What remove_run would change, read without changing anything (remove-run --dry-run)."""

    run_id: str
    archive_run: str
    observed_at: datetime
    source_runs: list[tuple[str, str]]  # (source, status), by source
    observations: int
    rejects: int
    offers: int  # whose history rows the run opened, extended or closed
    history_opened: int  # price_history rows the run opened: removed, or made again
    history_restated: int  # rows of its sources from the restated moment on, those included
    later_runs: int  # runs after that moment whose prices are loaded again
    since: datetime | None  # the moment the history is restated from; None: nothing loaded


def removal_preview(con: duckdb.DuckDBPyConnection, run_id: str) -> RemovalPreview:
    """What removing run `run_id` would take out and restate, counted in reads alone (temp
    tables only, which a read-only connection keeps in memory): the file is left as it is."""
    run_id = run_named(con, run_id)
    _sources_of(con, run_id)
    since = _since(con, run_id)
    [(archive_run, observed_at)] = execute(
        con, "SELECT archive_run, observed_at FROM runs WHERE run_id = ?", [run_id]
    ).fetchall()
    sources = execute(
        con, "SELECT source, status FROM source_runs WHERE run_id = ? ORDER BY source", [run_id]
    ).fetchall()

    def count(sql: str, **params: object) -> int:
        named = {"run": run_id, **params}
        used = {k: v for k, v in named.items() if f"${k}" in sql}
        return int(execute(con, sql, used).fetchall()[0][0])

    restated = count(
        f"SELECT count(*) FROM price_history h WHERE {_RESTATED_FROM}", since=since
    ) if since is not None else 0  # fmt: skip
    later = count(
        "SELECT count(*) FROM runs r WHERE r.run_id <> $run AND r.observed_at >= $since AND "
        "EXISTS (SELECT 1 FROM source_runs s WHERE s.run_id = r.run_id AND s.status = 'ok' "
        "AND s.source IN (SELECT source FROM restated_sources))",
        since=since,
    ) if since is not None else 0  # fmt: skip
    preview = RemovalPreview(
        run_id=run_id,
        archive_run=archive_run,
        observed_at=observed_at,
        source_runs=[(str(a), str(b)) for a, b in sources],
        observations=count("SELECT count(*) FROM observations WHERE run_id = $run"),
        rejects=count("SELECT count(*) FROM rejects WHERE run_id = $run"),
        offers=_touched(con, run_id),
        history_opened=count("SELECT count(*) FROM price_history WHERE first_run_id = $run"),
        history_restated=restated,
        later_runs=later,
        since=since,
    )
    con.execute("DROP TABLE restated_sources")
    return preview


# The rows restate_since cuts back or makes again: a restated source's rows in force at the
# moment or begun after it (warehouse/restate.py).
_RESTATED_FROM = (
    "h.source IN (SELECT source FROM restated_sources) AND (h.valid_from >= $since "
    "OR h.valid_to IS NULL OR h.valid_to >= $since)"
)


# The ECB's file the ecb-rates source fetches (extract/ecb_rates.py) holds the last 90 days: a
# later run's file holds a removed run's rate for a day within them, and a replay without the
# removed run reads it there.
RATE_FILE_SOURCE = "ecb-rates"
RATE_FILE_DAYS = 90


def _remove_rates(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Take out the reference rates the run's sources loaded (each row names its payload, under
    the run's archive directory), so a run stamped ahead leaves none in force; then put back,
    under the first later run of the same source whose file holds its day, each rate that
    run's file gave too (it added nothing then, the rate being known): what a replay of the
    archive without the run loads. The ecb-rates file holds the 90 days before its run; the
    ECB daily file an earlier version of a euro source archived beside its listing (seeweb,
    ovhcloud, scaleway: extract/_rates.py) holds one day, known here by the rates of it the
    run loaded: a later daily file listing the removed day at the same rates loaded none of
    them, so the warehouse does not say it holds the day, and that day is not put back."""
    execute(
        con,
        "CREATE OR REPLACE TEMP TABLE removed_rates AS SELECT f.*, r.archive_run, r.observed_at "
        "AS run_observed_at FROM fx_rates f, runs r WHERE r.run_id = ? AND f.source IN "
        "(SELECT source FROM restated_sources) "
        "AND starts_with(f.payload_ref, r.archive_run || '/')",
        [run_id],
    )
    con.execute(
        "DELETE FROM fx_rates f WHERE EXISTS (SELECT 1 FROM removed_rates r WHERE "
        "r.payload_ref = f.payload_ref AND r.day = f.day AND r.currency = f.currency)"
    )
    execute(
        con,
        f"""
        INSERT INTO fx_rates (day, currency, per_eur, source, observed_at, payload_ref)
        WITH later AS (
            SELECT s.source, s.archive_run, s.observed_at
            FROM source_runs s, (SELECT DISTINCT run_observed_at FROM removed_rates) m
            WHERE s.status = 'ok' AND s.run_id <> $run AND s.observed_at > m.run_observed_at
        ),
        holders AS (
            -- the 90-day file of ecb-rates' first later run, where the day is within it
            SELECT r.source, r.day, r.currency, n.observed_at,
                n.archive_run || substr(r.payload_ref, length(r.archive_run) + 1) AS payload_ref
            FROM removed_rates r JOIN (
                SELECT source, arg_min(archive_run, observed_at) AS archive_run,
                    min(observed_at) AS observed_at
                FROM later GROUP BY source
            ) n ON n.source = r.source
            WHERE r.source = $rate_file AND r.day >= CAST(n.observed_at AS DATE) - {RATE_FILE_DAYS}
            UNION ALL
            -- another source's file: a later run's that loaded a rate of the day
            SELECT r.source, r.day, r.currency, f.observed_at, f.payload_ref
            FROM removed_rates r
            JOIN later l ON l.source = r.source
            JOIN (SELECT DISTINCT source, day, observed_at, payload_ref FROM fx_rates) f
                ON f.source = r.source AND f.day = r.day
                AND starts_with(f.payload_ref, l.archive_run || '/')
            WHERE r.source <> $rate_file
        )
        SELECT r.day, r.currency, r.per_eur, r.source, h.observed_at, h.payload_ref
        FROM removed_rates r JOIN (
            SELECT source, day, currency, min(observed_at) AS observed_at,
                arg_min(payload_ref, (observed_at, payload_ref)) AS payload_ref
            FROM holders GROUP BY source, day, currency
        ) h ON h.source = r.source AND h.day = r.day AND h.currency = r.currency
        WHERE NOT EXISTS (
            SELECT 1 FROM fx_rates f WHERE f.day = r.day AND f.currency = r.currency
        )
        """,
        {"run": run_id, "rate_file": RATE_FILE_SOURCE},
    )
    con.execute("DROP TABLE removed_rates")


def _touched(con: duckdb.DuckDBPyConnection, run_id: str) -> int:
    """The offers whose history the run opened, extended or closed."""
    return int(
        execute(
            con,
            f"""
            SELECT count(*) FROM (
                SELECT DISTINCT {_KEY} FROM price_history h
                WHERE h.first_run_id = $1 OR h.last_run_id = $1 OR EXISTS (
                    SELECT 1 FROM source_runs s
                    WHERE s.run_id = $1 AND s.source = h.source AND h.valid_to = s.observed_at
                )
            )
            """,
            [run_id],
        ).fetchall()[0][0]
    )


def _sources_of(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """The sources whose history the run could have changed (temp table restated_sources):
    those that loaded (a failed or skipped source changed nothing). No other source's offers
    are in its rows or its withdrawals."""
    execute(
        con,
        """
        CREATE OR REPLACE TEMP TABLE restated_sources AS
        SELECT source FROM source_runs WHERE run_id = $1 AND status = 'ok'
        UNION SELECT source FROM price_history WHERE first_run_id = $1 OR last_run_id = $1
        """,
        [run_id],
    )


def _since(con: duckdb.DuckDBPyConnection, run_id: str):
    """The moment from which the history of those sources is restated: the removed run's
    earliest observation, or an earlier one of a run loaded after it (a run replayed late, or
    the real runs after one stamped ahead: their prices were loaded on a history that held
    the removed run's, and could not rewrite it). None when no source of it loaded."""
    if not con.execute("SELECT 1 FROM restated_sources").fetchall():
        return None
    return execute(
        con,
        """
        WITH removed AS (SELECT finished_at FROM runs WHERE run_id = $1),
        later AS (
            SELECT run_id FROM runs, removed r
            WHERE runs.run_id = $1 OR runs.finished_at > r.finished_at
        )
        SELECT least(
            (SELECT observed_at FROM runs WHERE run_id = $1),
            (SELECT min(observed_at) FROM source_runs
             WHERE run_id IN (SELECT run_id FROM later)
               AND source IN (SELECT source FROM restated_sources)),
            (SELECT min(observed_at) FROM observations WHERE run_id = $1),
            (SELECT min(valid_from) FROM price_history WHERE first_run_id = $1)
        )
        """,
        [run_id],
    ).fetchall()[0][0]
