"""The deliveries table: which e-mail (by Message-ID) went to whom, and how it ended."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb

SENDING, SENT, UNCERTAIN, FAILED = "sending", "sent", "uncertain", "failed"
# A recipient with one of these already has the message, or may have: not sent again
# unless forced. A "sending" row outliving its send means the process died during it.
DELIVERED = (SENDING, SENT, UNCERTAIN)


@dataclass(frozen=True)
class Delivered:
    recipient: str
    status: str
    attempted_at: datetime


def delivered(con: duckdb.DuckDBPyConnection, message_id: str) -> dict[str, Delivered]:
    """Recipients that have (or may have) the message, by address."""
    rows = con.execute(
        "SELECT recipient, status, attempted_at FROM deliveries "
        "WHERE message_id = ? AND status IN (?, ?, ?)",
        [message_id, *DELIVERED],
    ).fetchall()
    return {r[0]: Delivered(*r) for r in rows}


def mark(
    con: duckdb.DuckDBPyConnection,
    *,
    message_id: str,
    kind: str,
    subject: str,
    recipients: list[str],
    status: str,
    detail: str | None = None,
) -> None:
    """Record (or update) one status for each recipient, in one transaction."""
    now = datetime.now(UTC)
    rows = [(message_id, r, kind, subject, status, now, detail) for r in recipients]
    con.execute("BEGIN TRANSACTION")
    try:
        con.executemany("INSERT OR REPLACE INTO deliveries VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        con.execute("COMMIT")
    except duckdb.Error:
        con.execute("ROLLBACK")
        raise
