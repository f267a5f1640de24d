"""The record of price alerts sent to notification targets, so a same-day re-run sends none."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime

import duckdb


def sent_today(
    con: duckdb.DuckDBPyConnection, day: date, target: str, keys: Iterable[str]
) -> set[str]:
    """The alert keys among `keys` already sent to `target` on `day`."""
    wanted = list(dict.fromkeys(keys))
    if not wanted:
        return set()
    rows = con.execute(
        "SELECT alert_key FROM notifications WHERE day = ? AND target = ? "
        "AND list_contains(?, alert_key)",
        [day, target, wanted],
    ).fetchall()
    return {row[0] for row in rows}


def record_sent(
    con: duckdb.DuckDBPyConnection, day: date, target: str, alerts: Iterable[tuple[str, str]]
) -> None:
    """Remember (alert_key, kind) pairs as sent to `target` on `day`."""
    now = datetime.now(UTC)
    rows = [(day, key, target, kind, now) for key, kind in dict(alerts).items()]
    if rows:
        con.executemany(
            "INSERT INTO notifications VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", rows
        )
