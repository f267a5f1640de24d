"""Restating the price history of some sources from a moment on, from the facts that remain.

price_history is what loading the runs in the order they were observed makes of them. Its
rows that began before the moment are that already (no run after it could change them but
by its own observations), so only the rest is made again: each offer's row in force just
before the moment is cut back to its last sighting before it, and the remaining runs from
the moment on are loaded again, in order, from their observations, through the load's own
steps (warehouse/load.py). Nothing older than the moment is read, so this holds also where
the observations older than the retention window are gone.

The sources to restate are in the temp table restated_sources.
"""

from __future__ import annotations

import json
from datetime import datetime

import duckdb

from chipcost.core.commands import rebuilt
from chipcost.core.errors import ChipcostError
from chipcost.core.record import Reject
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.warehouse.bound import execute
from chipcost.warehouse.history_steps import (
    _close_changed,
    _close_withdrawn,
    _extend_unchanged,
    _insert_new,
    _refresh_catalog_fields,
)

_KEY = ", ".join(HISTORY_KEY)
_MATCH = " AND ".join(f"h.{c} = o.{c}" for c in HISTORY_KEY)
_RESTATED = "h.source IN (SELECT source FROM restated_sources)"
# The row of an offer in force at the moment $since: begun before it, not ended before it.
_IN_FORCE = (
    f"{_RESTATED} AND h.valid_from < $since AND (h.valid_to IS NULL OR h.valid_to >= $since)"
)
# Catalog fields follow an unchanged price's newest sighting (history_steps: its refresh step).
_CATALOG = ("chip", "chip_count", "sku", "source_url", "vcpus", "ram_gb", "disk_gb")


def restate_since(con: duckdb.DuckDBPyConnection, since: datetime) -> None:
    """Restate the history of restated_sources from `since` on (inside the caller's
    transaction), and each restated run's count of history changes."""
    runs = _runs_since(con, since)
    _check_observations_kept(con, since)
    execute(
        con,
        "CREATE OR REPLACE TEMP TABLE changes_before AS " + _CHANGES_BY_RUN,
        {"since": since},
    )
    _cut_back(con, since)
    for run_id in runs:
        _load_again(con, run_id)
    execute(
        con,
        "CREATE OR REPLACE TEMP TABLE changes_after AS " + _CHANGES_BY_RUN,
        {"since": since},
    )
    con.execute(
        """
        UPDATE runs SET history_changes = runs.history_changes + d.n
        FROM (
            SELECT run_id, coalesce(a.n, 0) - coalesce(b.n, 0) AS n
            FROM changes_after a FULL JOIN changes_before b USING (run_id)
        ) d
        WHERE runs.run_id = d.run_id AND d.n <> 0
        """
    )
    con.execute("DROP TABLE changes_after")
    con.execute("DROP TABLE changes_before")
    con.execute("DROP TABLE IF EXISTS staged")


# A run's history changes (LoadSummary.history_changes) among the restated sources: the rows
# it opened (new offers and changed prices) and the offers it closed as withdrawn.
_CHANGES_BY_RUN = """
SELECT run_id, count(*) AS n FROM (
    SELECT h.first_run_id AS run_id FROM price_history h
    WHERE h.source IN (SELECT source FROM restated_sources) AND h.valid_from >= $since
    UNION ALL
    SELECT s.run_id FROM price_history h JOIN source_runs s
        ON s.source = h.source AND s.observed_at = h.valid_to
    WHERE h.source IN (SELECT source FROM restated_sources) AND h.end_reason = 'withdrawn'
      AND h.valid_to >= $since
) GROUP BY run_id
"""


def _runs_since(con: duckdb.DuckDBPyConnection, since: datetime) -> list[str]:
    """The remaining runs from `since` on that loaded a restated source, in load order."""
    rows = execute(
        con,
        """
        SELECT r.run_id FROM runs r
        WHERE r.observed_at >= $since AND EXISTS (
            SELECT 1 FROM source_runs s WHERE s.run_id = r.run_id AND s.status = 'ok'
              AND s.source IN (SELECT source FROM restated_sources)
        )
        ORDER BY r.observed_at, r.finished_at, r.run_id
        """,
        {"since": since},
    ).fetchall()
    return [run_id for (run_id,) in rows]


def lost_observations(con: duckdb.DuckDBPyConnection, since: datetime) -> tuple[datetime, int]:
    """(the oldest, how many) of the runs from `since` on that loaded a restated source and
    whose observations of it the retention window has taken: (None, 0) when none has."""
    return execute(
        con,
        """
        SELECT min(s.observed_at), count(DISTINCT s.run_id) FROM source_runs s
        JOIN runs r USING (run_id)
        WHERE r.observed_at >= $since AND s.status = 'ok' AND s.records > 0
          AND s.source IN (SELECT source FROM restated_sources)
          AND NOT EXISTS (
              SELECT 1 FROM observations o WHERE o.run_id = s.run_id AND o.source = s.source
          )
        """,
        {"since": since},
    ).fetchall()[0]


def _check_observations_kept(con: duckdb.DuckDBPyConnection, since: datetime) -> None:
    """Refuse (before anything changes) when a run to load again has lost its observations
    to the retention window: its prices are then only in the archive."""
    lost = lost_observations(con, since)
    if lost[1]:
        raise ChipcostError(
            f"the history after this run cannot be restated from the warehouse: {lost[1]:,} "
            f"later {'run' if lost[1] == 1 else 'runs'}, from {lost[0]:%Y-%m-%d %H:%M} UTC, "
            f"{'is' if lost[1] == 1 else 'are'} older than the observations "
            "it keeps (CHIPCOST_OBSERVATIONS_DAYS); nothing was changed. Replay the archive "
            f"without this run into a new warehouse (`{rebuilt('ARCHIVE', 'NEW.duckdb')}`, its "
            "directory moved out first)"
        )


def _cut_back(con: duckdb.DuckDBPyConnection, since: datetime) -> None:
    """Rows that began from `since` on go; each row in force at `since` is open again as of
    its last sighting before it (and that sighting's catalog fields)."""
    params = {"since": since}
    execute(
        con, f"DELETE FROM price_history h WHERE {_RESTATED} AND h.valid_from >= $since", params
    )
    # Its last sighting: the newest observation of it before `since`; where those are gone
    # (older than the window), the newest successful run of its source before `since`.
    key = ", ".join(f"h.{c}" for c in HISTORY_KEY)
    last = ", ".join(f"arg_max_null(o.{c}, o.observed_at) AS o_{c}" for c in _CATALOG)
    execute(
        con,
        f"""
        CREATE OR REPLACE TEMP TABLE last_sighting AS
        WITH in_force AS (
            SELECT * FROM price_history h WHERE {_IN_FORCE} AND h.last_seen_at >= $since
        ),
        observed AS (
            SELECT {key}, max(o.observed_at) AS seen_at,
                arg_max(o.run_id, o.observed_at) AS seen_run, {last}
            FROM in_force h JOIN observations o
                ON {_MATCH} AND o.observed_at >= h.valid_from AND o.observed_at < $since
            GROUP BY ALL
        ),
        ran AS (
            SELECT {key}, max(s.observed_at) AS seen_at,
                arg_max(s.run_id, s.observed_at) AS seen_run
            FROM in_force h JOIN source_runs s
                ON s.source = h.source AND s.status = 'ok'
                AND s.observed_at >= h.valid_from AND s.observed_at < $since
            GROUP BY ALL
        )
        SELECT {key},
            coalesce(o.seen_at, s.seen_at, h.valid_from) AS seen_at,
            coalesce(o.seen_run, s.seen_run, h.first_run_id) AS seen_run,
            o.seen_at IS NOT NULL AS observed,
            {", ".join(f"o.o_{c}" for c in _CATALOG)}
        FROM in_force h LEFT JOIN observed o USING ({_KEY}) LEFT JOIN ran s USING ({_KEY})
        """,
        params,
    )
    match = " AND ".join(f"h.{c} = l.{c}" for c in HISTORY_KEY)
    catalog = ", ".join(f"{c} = CASE WHEN l.observed THEN l.o_{c} ELSE h.{c} END" for c in _CATALOG)
    execute(
        con,
        f"""
        UPDATE price_history h SET last_seen_at = l.seen_at, last_run_id = l.seen_run, {catalog}
        FROM last_sighting l WHERE {match} AND {_IN_FORCE}
        """,
        params,
    )
    con.execute("DROP TABLE last_sighting")
    execute(
        con,
        f"UPDATE price_history h SET valid_to = NULL, end_reason = NULL WHERE {_IN_FORCE}",
        params,
    )


def _load_again(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """One remaining run's observations of the restated sources, loaded again."""
    execute(
        con,
        "CREATE OR REPLACE TEMP TABLE staged AS SELECT o.* FROM observations o WHERE "
        "o.run_id = ? AND o.source IN (SELECT source FROM restated_sources)",
        [run_id],
    )
    _close_changed(con)
    _refresh_catalog_fields(con)
    _extend_unchanged(con, run_id)
    _close_withdrawn(con, _sightings(con, run_id))
    _insert_new(con, run_id)


def _sightings(con: duckdb.DuckDBPyConnection, run_id: str) -> RunResult:
    """What the withdrawal step needs of a stored run: its successful restated sources, the
    keys each listed (observations) and the sku and offer each refused row named (rejects)."""
    rows = execute(
        con,
        "SELECT source, provider, observed_at FROM source_runs WHERE run_id = ? AND status = ? "
        "AND source IN (SELECT source FROM restated_sources)",
        [run_id, OK],
    ).fetchall()
    sources = []
    for source, provider, observed_at in rows:
        seen = execute(
            con,
            f"SELECT {', '.join(HISTORY_KEY[1:])} FROM observations WHERE run_id = ? "
            "AND source = ?",
            [run_id, source],
        ).fetchall()
        refused = execute(
            con,
            "SELECT DISTINCT sku, offer FROM rejects WHERE run_id = ? AND source = ? "
            "AND (sku <> '' OR offer IS NOT NULL)",
            [run_id, source],
        ).fetchall()
        sources.append(
            SourceResult(
                source=source,
                provider=provider,
                status=OK,
                observed_at=observed_at,
                seen_keys={tuple(key) for key in seen},
                rejects=[
                    Reject(source, "", None, sku, offer=json.loads(offer) if offer else {})
                    for sku, offer in refused
                ],
            )
        )
    moment = datetime.min
    return RunResult(run_id, moment, moment, "replay", "", False, sources)
