"""Threshold alerts: a short e-mail when a collection saw a price move more than N%."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from html import escape
from pathlib import Path

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.settings import READ_WAIT, Warehouse
from chipcost.reports.data import printable_text
from chipcost.reports.labels import money, signed_pct, with_labels
from chipcost.reports.mail import (
    SmtpSettings,
    build_message,
    check_recipients,
    smtp_settings,
    stable_message_id,
)
from chipcost.reports.outbox import Claim, claim, deliver, record, recorded
from chipcost.reports.text import SAMPLE_NOTE, first_known, top_move
from chipcost.warehouse.bound import relation
from chipcost.warehouse.db import connect
from chipcost.warehouse.reader import open_reader, within_limits

_MOVES = """
SELECT c.changed_at, c.chip, c.provider, c.region, c.zone, c.instance_type, c.pricing_model,
    c.term, c.payment, c.plan, c.source,
    per_chip_hour(c.old_price_per_hour, c.chip_count) AS old_price_per_chip_hour,
    per_chip_hour(c.new_price_per_hour, c.chip_count) AS new_price_per_chip_hour,
    c.change_pct,
    coalesce((SELECT bool_or(sample) FROM runs WHERE observed_at >= $since), FALSE) AS sample
FROM price_changes c
WHERE c.change = 'changed' AND c.changed_at >= $since AND abs(c.change_pct) >= $threshold
ORDER BY abs(c.change_pct) DESC, c.chip, c.region, c.instance_type
"""


def large_moves(db_path: Path | Warehouse, since: datetime, threshold_pct: float) -> pl.DataFrame:
    """Price changes at or after `since` of at least threshold_pct, largest first."""
    con = open_reader(db_path)
    try:
        return moves_since(con, since, threshold_pct)
    finally:
        con.close()


def moves_since(
    con: duckdb.DuckDBPyConnection, since: datetime, threshold_pct: float
) -> pl.DataFrame:
    """large_moves on an open connection, with `offer` and `where` labels."""
    frame = frame_of(relation(con, _MOVES, {"since": since, "threshold": threshold_pct}))
    return with_labels(printable_text(frame))


def alert_message(
    moves: pl.DataFrame,
    threshold_pct: float,
    sender: str,
    recipients: list[str],
    since: datetime | None = None,
) -> EmailMessage:
    """'Price alert: 3 moves of 5% or more, H100-SXM on demand −8%' and one line per move."""
    first = first_known(moves)
    sample = "[sample data] " if first["sample"] else ""
    count = f"{moves.height} move{'s' if moves.height != 1 else ''}"
    subject = f"{sample}Price alert: {count} of {threshold_pct:g}% or more, {top_move(first)}"
    lines = []
    for row in moves.iter_rows(named=True):
        lines.append(
            f"{signed_pct(row['change_pct'])}  {row['chip']}  {row['where']} · "
            f"{row['instance_type']} · {row['offer']}: {money(row['old_price_per_chip_hour'])} "
            f"-> {money(row['new_price_per_chip_hour'])} per chip-hour "
            f"({row['changed_at']:%Y-%m-%d %H:%M} UTC)"
        )
    head = [SAMPLE_NOTE, ""] if first["sample"] else []
    text = "\n".join([*head, *lines, "", "The weekly report has the full picture."]) + "\n"
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    banner = f"<p><b>{escape(SAMPLE_NOTE)}</b></p>" if first["sample"] else ""
    html = f"<html><body>{banner}<ul style='font-family:sans-serif'>{items}</ul></body></html>"
    # One alert per collection and threshold: a retried flow's alert is the same message.
    key = f"{since:%Y%m%dT%H%M%S}.{threshold_pct:g}pct" if since else None
    return build_message(
        subject=subject,
        sender=sender,
        recipients=recipients,
        text=text,
        html=html,
        attachments=[],
        message_id=stable_message_id("alert", key, sender) if key else None,
    )


@dataclass
class MailAlert:
    """A price alert e-mail made and its recipients claimed, to send."""

    message: EmailMessage
    settings: SmtpSettings
    claimed: Claim
    moves: int


def claim_price_alert(
    con: duckdb.DuckDBPyConnection,
    since: datetime,
    threshold_pct: float,
    recipients: list[str],
    smtp: Mapping[str, object] | None = None,
) -> MailAlert | None:
    """The alert e-mail of the moves of at least threshold_pct since `since`, its recipients
    claimed (those that have it already left out); None when nothing moved that much."""
    recipients = check_recipients(recipients)
    moves = moves_since(con, since, threshold_pct)
    if moves.is_empty():
        return None
    settings = smtp_settings(smtp)
    message = alert_message(moves, threshold_pct, settings.sender, recipients, since)
    claimed = claim(con, message, recipients, kind="alert")
    return MailAlert(message, settings, claimed, moves.height)


def send_price_alert(
    db_path: Path | Warehouse,
    since: datetime,
    threshold_pct: float,
    recipients: list[str],
    smtp: Mapping[str, object] | None = None,
) -> int:
    """Mail the moves of at least threshold_pct since `since`; how many there were (0: no mail).
    One session reads and claims, the warehouse is closed while the mail is sent, one records."""
    con = within_limits(connect(db_path, wait=READ_WAIT))
    try:
        alert = claim_price_alert(con, since, threshold_pct, recipients, smtp)
    finally:
        con.close()
    if alert is None:
        return 0
    if alert.claimed.todo:
        outcomes, error = deliver(alert.claimed, alert.message, alert.settings)
        recorded(db_path, lambda con: record(con, alert.claimed, outcomes))
        if error is not None:
            raise error
    return alert.moves
