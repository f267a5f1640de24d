"""Alerts on what a collection just loaded: price moves by e-mail and to apprise targets.

Prefect-free: a one-off `chipcost collect` and the deployed collect flow both call it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.core.runs import OK, RunResult
from chipcost.core.settings import Settings
from chipcost.pipeline.collection import alert_size
from chipcost.reports.alerts import MailAlert, claim_price_alert
from chipcost.reports.notify import (
    Alert,
    Pending,
    check_urls,
    pending_alerts,
    post_alerts,
    record_alerts,
)
from chipcost.reports.outbox import deliver, record, recorded
from chipcost.warehouse.db import connect
from chipcost.warehouse.reader import within_limits

log = logging.getLogger("chipcost.progress")
# The move that notifies apprise targets when no --alert-pct is given.
DEFAULT_NOTIFY_PCT = 10.0


def alert_after_collect(
    settings: Settings,
    runs: list[RunResult],
    alert_pct: float | None,
    alert_to: list[str] | None,
    notify: list[str] | None = None,
    logger: logging.Logger | logging.LoggerAdapter = log,
) -> str | None:
    """Alert on the prices the runs just loaded: moves of at least alert_pct % by e-mail to
    alert_to, and moves and new cheapest prices to the apprise URLs in `notify`, each at most
    once a day. What could not be sent, or None.

    One warehouse session reads what both need and claims the e-mail's recipients; the
    warehouse is closed while the mail is sent and the targets posted to (a slow one never
    holds it from the next load), and one session records what was sent."""
    alert_pct = alert_size(alert_pct)
    # Runs whose sources were all loaded before (a replay) bring no new move to alert on.
    fresh = [run for run in runs if any(s.status == OK for s in run.sources)]
    mail = alert_pct is not None and bool(alert_to)
    if not fresh or not (mail or notify):
        return None
    since = min(run.observed_at for run in fresh)
    # Notifications from the start of the day: a re-run the same day sees the day's alerts
    # again and sends a target only those it has not had (one that failed before gets them).
    day_start = since.replace(hour=0, minute=0, second=0, microsecond=0)
    until = max(run.observed_at for run in fresh) + timedelta(seconds=1)
    pct = DEFAULT_NOTIFY_PCT if alert_pct is None else alert_pct
    try:
        con = within_limits(
            connect(settings.warehouse, wait=settings.read_wait), settings.read_limits
        )
    except ChipcostError as exc:
        return _failed([f"prices loaded, but no price alert was sent: {exc}"], logger)
    failures: list[str] = []
    try:
        email = _claimed(con, since, pct, alert_to, failures) if mail else None
        pending = _pending(con, notify, day_start, until, pct, failures) if notify else None
    finally:
        con.close()
    writes = []
    if email is not None and email.claimed.todo:
        outcomes, error = deliver(email.claimed, email.message, email.settings)
        writes.append(lambda con: record(con, email.claimed, outcomes))
        if error is not None:
            failures.append(f"prices loaded, but the price alert was not sent: {error}")
        else:
            logger.info(
                "price alert: %d moves of %g%% or more sent to %s",
                email.moves, pct, email.claimed.todo,
            )  # fmt: skip
    if pending is not None:
        sent = _posted(pending, settings.notify_deadline, failures, logger)
        if sent:
            writes.append(lambda con: record_alerts(con, pending.today, sent))
    if writes:
        recorded(settings.warehouse, lambda con: [write(con) for write in writes])
    return _failed(failures, logger)


def _claimed(
    con: duckdb.DuckDBPyConnection,
    since: datetime,
    pct: float,
    recipients: list[str] | None,
    failures: list[str],
) -> MailAlert | None:
    try:
        return claim_price_alert(con, since, pct, recipients or [])
    except ChipcostError as exc:
        failures.append(f"prices loaded, but the price alert was not sent: {exc}")
        return None


def _pending(
    con: duckdb.DuckDBPyConnection,
    urls: list[str],
    since: datetime,
    until: datetime,
    pct: float,
    failures: list[str],
) -> Pending | None:
    try:
        return pending_alerts(con, check_urls(urls), since, until, pct)
    except ChipcostError as exc:
        failures.append(f"prices loaded, but a price notification was not sent: {exc}")
        return None


def _posted(
    pending: Pending,
    deadline: float,
    failures: list[str],
    logger: logging.Logger | logging.LoggerAdapter,
) -> dict[str, list[Alert]]:
    """Post the alerts; what was sent to each target, to record."""
    done, sent, failed = post_alerts(pending, deadline)
    failures += [f"prices loaded, but a price notification was not sent: {f}" for f in failed]
    for label, count in done.sent.items():
        logger.info("price notification: %d alerts sent to %s", count, label)
    for label, count in done.already.items():
        if count:
            logger.info("%d alerts already sent to %s today: not sent again", count, label)
    return sent


def _failed(failures: list[str], logger: logging.Logger | logging.LoggerAdapter) -> str | None:
    for failure in failures:
        logger.error("%s", failure)
    return "; ".join(failures) or None
