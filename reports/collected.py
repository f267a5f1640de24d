"""Alerts on what a collection just loaded: price moves by e-mail and to apprise targets.

Prefect-free: a one-off `chipcost collect` and the deployed collect flow both call it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from chipcost.core.errors import ChipcostError
from chipcost.core.runs import OK, RunResult
from chipcost.core.settings import Settings
from chipcost.reports.alerts import send_price_alert
from chipcost.reports.notify import send_alerts

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
    once a day. What could not be sent, or None."""
    # Runs whose sources were all loaded before (a replay) bring no new move to alert on.
    fresh = [run for run in runs if any(s.status == OK for s in run.sources)]
    if not fresh:
        return None
    since = min(run.observed_at for run in fresh)
    failures = []
    if alert_pct is not None and alert_to:
        try:
            count = send_price_alert(settings.db_path, since, alert_pct, alert_to)
        except ChipcostError as exc:
            failures.append(f"prices loaded, but the price alert was not sent: {exc}")
        else:
            if count:
                logger.info(
                    "price alert: %d moves of %g%% or more sent to %s", count, alert_pct, alert_to
                )
    if notify:
        failures += _notify(settings, fresh, since, alert_pct, notify, logger)
    for failure in failures:
        logger.error("%s", failure)
    return "; ".join(failures) or None


def _notify(
    settings: Settings,
    fresh: list[RunResult],
    since: datetime,
    alert_pct: float | None,
    urls: list[str],
    logger: logging.Logger | logging.LoggerAdapter,
) -> list[str]:
    # From the start of the day: a re-run the same day sees the day's alerts again, sends a
    # target only those it has not had (one that failed before gets them now).
    day_start = since.replace(hour=0, minute=0, second=0, microsecond=0)
    until = max(run.observed_at for run in fresh) + timedelta(seconds=1)
    pct = DEFAULT_NOTIFY_PCT if alert_pct is None else alert_pct
    try:
        done = send_alerts(
            settings.warehouse, urls, day_start, until, pct, deadline=settings.notify_deadline
        )
    except ChipcostError as exc:
        return [f"prices loaded, but a price notification was not sent: {exc}"]
    for label, count in done.sent.items():
        logger.info("price notification: %d alerts sent to %s", count, label)
    for label, count in done.already.items():
        if count:
            logger.info("%d alerts already sent to %s today: not sent again", count, label)
    return []
