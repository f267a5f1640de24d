"""Each e-mail once per recipient: the deliveries table read before a send, written around it.

The message's Message-ID is stable per report and period (mail.stable_message_id), so a
re-run of the same report finds who already has it. A row is written as `sending` before
the send and updated after it: a process that dies in between leaves `sending`, which a
later run treats like `uncertain` (it may have been delivered) rather than send it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
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


@dataclass
class Claim:
    """One message's recipients claimed (written `sending`), and those that have it already."""

    entry: dict[str, str]
    todo: list[str]
    already: dict[str, Delivered]


# What a send ended in, to record: (recipients, status, detail).
Outcome = tuple[list[str], str, str]


def claim(
    con: duckdb.DuckDBPyConnection,
    message: EmailMessage,
    recipients: list[str],
    *,
    kind: str,
    force: bool = False,
) -> Claim:
    """The recipients that do not have the message yet (all of them when forced), marked
    `sending` before it is sent; `already`, those of them that have it (never someone a
    past run sent it to and this one was not asked to)."""
    entry = {"message_id": str(message["Message-ID"]), "kind": kind}
    entry["subject"] = str(message["Subject"])
    asked = {address(r) for r in recipients}
    had = {} if force else delivered(con, entry["message_id"])
    already = {a: when for a, when in had.items() if a in asked}
    todo = _pending(recipients, set(already))
    if todo:
        mark(con, **entry, recipients=[address(r) for r in todo], status=SENDING)
    return Claim(entry, todo, already)


def deliver(
    claimed: Claim, message: EmailMessage, settings: SmtpSettings
) -> tuple[list[Outcome], EmailError | None]:
    """Send to the claimed recipients, the warehouse closed meanwhile: what to record, and the
    error to raise once it is recorded (None: all sent)."""
    todo = claimed.todo
    try:
        send(message, settings, todo)
    except MaybeDelivered as exc:
        return [(todo, UNCERTAIN, str(exc))], exc
    except RecipientsRefused as exc:
        refused = {address(r) for r in exc.refused}
        failed = [r for r in todo if address(r) in refused]
        sent = [r for r in todo if address(r) not in refused]
        return [(failed, FAILED, str(exc)), (sent, SENT, "")], exc
    except EmailError as exc:
        return [(todo, FAILED, str(exc))], exc
    return [(todo, SENT, "")], None


def record(con: duckdb.DuckDBPyConnection, claimed: Claim, outcomes: list[Outcome]) -> None:
    """Write how the send ended for each recipient."""
    for recipients, status, detail in outcomes:
        if recipients:
            addresses = [address(r) for r in recipients]
            mark(con, **claimed.entry, recipients=addresses, status=status, detail=detail or None)


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
    con = connect(db_path)
    try:
        claimed = claim(con, message, recipients, kind=kind, force=force)
    finally:
        con.close()
    if not claimed.todo:
        return Sent(already=claimed.already)
    outcomes, error = deliver(claimed, message, settings)
    recorded(db_path, lambda con: record(con, claimed, outcomes))
    if error is not None:
        raise error
    return Sent(sent_to=claimed.todo, already=claimed.already)


def _pending(recipients: list[str], done: set[str]) -> list[str]:
    """Recipients not done yet, each address once (as first written)."""
    todo = []
    for recipient in recipients:
        if address(recipient) not in done:
            todo.append(recipient)
            done.add(address(recipient))
    return todo


def recorded(db_path: Path, write: Callable[[duckdb.DuckDBPyConnection], None]) -> None:
    """Write what was sent, in one session; if the warehouse cannot take it now, the `sending`
    rows stay. They read as "may have been delivered" on the next run: never a second copy."""
    try:
        con = connect(db_path)
        try:
            write(con)
        finally:
            con.close()
    except (ChipcostError, duckdb.Error) as exc:
        log.warning("what was sent was not recorded in %s: %s", db_path, exc)
