"""Each e-mail once per recipient: the deliveries table read before a send, written around it.

The message's Message-ID is stable per report and period (mail.stable_message_id), so a
re-run of the same report finds who already has it. A row is written as `sending` before
the send and updated after it: a process that dies in between leaves `sending`, which a
later run treats like `uncertain` (it may have been delivered) rather than send it again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.reports.mail import EmailError, MaybeDelivered, RecipientsRefused, SmtpSettings
from chipcost.reports.smtp import send
from chipcost.warehouse.db import connect
from chipcost.warehouse.deliveries import (
    FAILED,
    SENDING,
    SENT,
    UNCERTAIN,
    Delivered,
    delivered,
    mark,
)

log = logging.getLogger("chipcost.reports")


@dataclass
class Sent:
    sent_to: list[str] = field(default_factory=list)
    # Recipients not sent to again: they have the message, or may have (status, when).
    already: dict[str, Delivered] = field(default_factory=dict)


def address(recipient: str) -> str:
    """The bare address of "Name <a@b.c>", lower-cased: one recipient, however written."""
    return parseaddr(recipient)[1].lower()


def send_once(
    db_path: Path,
    message: EmailMessage,
    settings: SmtpSettings,
    recipients: list[str],
    *,
    kind: str,
    force: bool = False,
) -> Sent:
    """Send to the recipients that do not have the message yet (all of them when forced)."""
    entry = {"message_id": str(message["Message-ID"]), "kind": kind}
    entry["subject"] = str(message["Subject"])
    con = connect(db_path)
    try:
        already = {} if force else delivered(con, entry["message_id"])
        todo = _pending(recipients, set(already))
        if todo:
            mark(con, **entry, recipients=[address(r) for r in todo], status=SENDING)
    finally:
        con.close()
    if not todo:
        return Sent(already=already)
    try:
        send(message, settings, todo)
    except MaybeDelivered as exc:
        _record(db_path, entry, todo, UNCERTAIN, str(exc))
        raise
    except RecipientsRefused as exc:
        refused = {address(r) for r in exc.refused}
        _record(db_path, entry, [r for r in todo if address(r) in refused], FAILED, str(exc))
        _record(db_path, entry, [r for r in todo if address(r) not in refused], SENT)
        raise
    except EmailError as exc:
        _record(db_path, entry, todo, FAILED, str(exc))
        raise
    _record(db_path, entry, todo, SENT)
    return Sent(sent_to=todo, already=already)


def _pending(recipients: list[str], done: set[str]) -> list[str]:
    """Recipients not done yet, each address once (as first written)."""
    todo = []
    for recipient in recipients:
        if address(recipient) not in done:
            todo.append(recipient)
            done.add(address(recipient))
    return todo


def _record(
    db_path: Path, entry: dict[str, str], recipients: list[str], status: str, detail: str = ""
) -> None:
    """Write the outcome; if the warehouse cannot take it now, the `sending` rows stay.

    They read as "may have been delivered" on the next run: never a second copy.
    """
    if not recipients:
        return
    try:
        con = connect(db_path)
        try:
            mark(
                con,
                **entry,
                recipients=[address(r) for r in recipients],
                status=status,
                detail=detail or None,
            )
        finally:
            con.close()
    except (ChipcostError, duckdb.Error) as exc:
        log.warning("the e-mail outcome (%s) was not recorded in %s: %s", status, db_path, exc)
