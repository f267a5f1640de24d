"""What `chipcost sources` shows: every registered source and how fresh its prices are."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import polars as pl

from chipcost.core.commands import suggested
from chipcost.extract import registry
from chipcost.extract._formats import DRIFT
from chipcost.warehouse.freshness import latest_notes, source_freshness
from chipcost.warehouse.rejects import latest_rejects

SOURCE_SCHEMA = {
    "source": pl.String,
    "provider": pl.String,
    "description": pl.String,
    # What its provider has announced for retirement of what the source reads ("" if nothing).
    "retiring": pl.String,
    "collected": pl.Boolean,
    "last_success_at": pl.Datetime("us", "UTC"),
    "age_hours": pl.Float64,
    "stale": pl.Boolean,
    "sample": pl.Boolean,
    "last_status": pl.String,
    "last_attempt_at": pl.Datetime("us", "UTC"),
    # The run of its last success, and whether that run is dated ahead of the clock (a run
    # stamped in the future: `chipcost remove-run` takes it out).
    "last_success_run": pl.String,
    "ahead": pl.Boolean,
    # What its latest run found new, missing or changed in its payloads' format (the drift
    # notes of extract/_formats.py), one a line; "" when nothing.
    "format_drift": pl.String,
    # Its latest run's rows refused (source_runs.rejects), and what for, by kind
    # (warehouse/rejects.py: '43 rows refused: 30 for unit '1 Second' is not '1 Hour', ...').
    "rejects": pl.Int64,
    "refused": pl.String,
}


def run_table(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every run of the warehouse, newest first: its id (what `remove-run` takes), the archive
    run `collect` printed, when it observed, how it ran and what it loaded."""
    from chipcost.warehouse.db import dict_rows
    from chipcost.warehouse.remove_run import RUNS_QUERY

    return pl.DataFrame(dict_rows(con, RUNS_QUERY), schema=RUN_SCHEMA, orient="row")


def refused_rows_of(run_id: str, source: str | None = None) -> str:
    """The command that lists a run's refused rows (of one source), counted by reason."""
    which = f" AND source = '{source}'" if source else ""
    return suggested(
        "sql",
        f"\"SELECT source, reason, count(*) AS n FROM rejects WHERE run_id = '{run_id}'{which} "
        'GROUP BY ALL ORDER BY n DESC"',
    )


RUN_SCHEMA = {
    "run_id": pl.String,
    "archive_run": pl.String,
    "observed_at": pl.Datetime("us", "UTC"),
    "mode": pl.String,
    "status": pl.String,
    "sample": pl.Boolean,
    "records": pl.Int64,
    "rejects": pl.Int64,
    "history_changes": pl.Int64,
}


def registered_sources() -> pl.DataFrame:
    """The registered sources alone (no warehouse needed)."""
    return source_table(None, stale_days=0)


def source_table(
    con: duckdb.DuckDBPyConnection | None, *, stale_days: int, now: datetime | None = None
) -> pl.DataFrame:
    """One row per registered source (and any other source the warehouse has run), with its
    last successful run, its age in hours, whether it is stale, and its latest attempt."""
    now = now or datetime.now(UTC)
    fresh = source_freshness(con) if con is not None else {}
    drifted = latest_notes(con, DRIFT) if con is not None else {}
    refused = latest_rejects(con) if con is not None else {}
    rows = []
    known = registry()
    for name in [*known, *(s for s in fresh if s not in known)]:
        source, state = known.get(name), fresh.get(name)
        age = state.age(now) if state else None
        rows.append(
            {
                "source": name,
                "provider": source.provider if source else "",
                "description": source.description if source else "(no longer registered)",
                "retiring": source.retiring if source else "",
                "collected": source.collected if source else True,
                "last_success_at": state.last_ok_at if state else None,
                "age_hours": round(age.total_seconds() / 3600, 1) if age is not None else None,
                "stale": state.is_stale(now, stale_days) if con is not None and state else None,
                "sample": state.sample if state else None,
                "last_status": state.last_status if state else None,
                "last_attempt_at": state.last_attempt_at if state else None,
                "last_success_run": state.last_ok_run if state else None,
                "ahead": state.is_ahead(now) if state else None,
                "format_drift": "\n".join(drifted.get(name, [])),
                "rejects": refused[name][0] if name in refused else None,
                "refused": refused[name][1] if name in refused else "",
            }
        )
    if con is not None:
        # A source that never ran here is stale too: it has no price to show. One that is
        # never collected by design (crusoe) is not: no run would make it fresh.
        rows = [
            {**r, "stale": (True if r["stale"] is None else r["stale"]) and r["collected"]}
            for r in rows
        ]
    return pl.DataFrame(rows, schema=SOURCE_SCHEMA)
