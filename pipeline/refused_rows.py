"""What a run's refused rows say in its sources' notes: how many, grouped by kind, and the
offers that kept their earlier price because their rows were refused.

A source that refused rows is never "nothing to note": a layout change shows in its rejects
first (docs/operations.md), and the offers of rows refused keep a price the run did not see.
"""

from __future__ import annotations

import logging

import duckdb

from chipcost.core.runs import OK, SourceResult
from chipcost.extract._formats import DRIFT
from chipcost.warehouse.rejects import (
    is_refused_said,
    kept_offers,
    reason_kinds,
    refused_said,
)

log = logging.getLogger("chipcost.collect")


def note_refused(results: list[SourceResult]) -> None:
    """Each successful source that refused rows says so among its notes, after its format
    drift: '43 rows refused: 30 for unit '1 Second' is not '1 Hour', ...'."""
    for result in results:
        if result.status != OK or not result.rejects:
            continue
        kinds = reason_kinds((r.reason, 1) for r in result.rejects)
        result.notes.insert(_drift(result), refused_said(kinds))


def note_kept(con: duckdb.DuckDBPyConnection, results: list[SourceResult]) -> list[tuple[str, str]]:
    """After the load: a successful source whose refused rows kept offers at their earlier
    price says how many, in its note of refused rows (note_refused); (source, note) pairs
    changed. Said in the run's summary and log; `source_runs` keeps the notes said before
    the load."""
    try:
        kept = kept_offers(con, results)
    except duckdb.Error as exc:  # the load is committed: a count must not fail the run
        log.warning("count of offers kept at their earlier price skipped: %s", exc)
        return []
    changed = []
    for result in results:
        offers = kept.get(result.source)
        at = next((i for i, n in enumerate(result.notes) if is_refused_said(n)), None)
        if offers is None or at is None:
            continue
        result.notes[at] += f"; {offers:,} of its offers kept their earlier price"
        changed.append((result.source, result.notes[at]))
    return changed


def _drift(result: SourceResult) -> int:
    """How many format drift notes lead the source's notes (said first, sources.md)."""
    return sum(1 for note in result.notes if note.startswith(DRIFT))
