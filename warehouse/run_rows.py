"""The bookkeeping rows of a load: the run, each source's outcome, and every refused row.

Each text a reject or a note stores is bounded (chipcost.core.cut), whichever step made it:
a 60 MB field of an answer is kept as its first kilobyte and a marker of what was cut, never
as 60 MB of every run's rows; the payload stays whole in the archive (the reject's
payload_ref)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import duckdb

from chipcost.core.cut import NAME_CHARS, bounded, cut, row_json
from chipcost.core.runs import ALREADY_LOADED, LoadSummary, RunResult
from chipcost.core.version import __version__
from chipcost.warehouse.bound import execute
from chipcost.warehouse.insert import insert_rows

_REJECT_COLUMNS = (
    "run_id", "source", "observed_at", "reason", "sku", "payload_ref", "row_json", "offer"
)  # fmt: skip
_SOURCE_RUN_COLUMNS = (
    "run_id, source, provider, status, message, records, rejects, payloads, seconds,"
    " observed_at, archive_run, payload_digest, notes"
).split(", ")


def insert_rejects(con: duckdb.DuckDBPyConnection, run: RunResult) -> int:
    rows = [
        [
            run.run_id,
            s.source,
            s.observed_at or run.observed_at,
            r.reason,
            r.sku,
            cut(r.payload_ref, NAME_CHARS),
            row_json(r.row),
            json.dumps(r.offer, sort_keys=True) if r.offer else None,
        ]
        for s in run.sources
        for r in map(bounded, s.rejects)
    ]
    return insert_rows(con, "rejects", _REJECT_COLUMNS, rows)


def insert_run(con: duckdb.DuckDBPyConnection, run: RunResult, summary: LoadSummary) -> None:
    execute(
        con,
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
    insert_rows(
        con,
        "source_runs",
        _SOURCE_RUN_COLUMNS,
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
                [cut(note) for note in s.notes],
            ]
            # A source already loaded from this archived run said so in its own run: a row
            # here would make health report "already_loaded" as its latest word.
            for s in run.sources
            if s.status != ALREADY_LOADED
        ],
    )


def insert_attempt(con: duckdb.DuckDBPyConnection, run: RunResult) -> None:
    """A run that found everything already loaded: kept apart from `runs` (migration 010)."""
    execute(
        con,
        "INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run.run_id,
            run.started_at,
            datetime.now(UTC),
            run.mode,
            run.archive_run,
            ALREADY_LOADED,
            [s.source for s in run.sources],
            __version__,
        ],
    )
