"""The weekly report flow: report files -> e-mail (or .eml) -> markdown artifact."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State
from prefect.states import Failed

from chipcost.core.errors import ChipcostError
from chipcost.core.settings import Settings, Warehouse, load_settings
from chipcost.flows._state import plain_failures
from chipcost.reports.build import Delivery, Report, deliver, write_report
from chipcost.reports.mail import EmailError
from chipcost.reports.notify import NotifyError
from chipcost.reports.period import ReportOptions, parse_day
from chipcost.reports.text import markdown
from chipcost.warehouse.db_file import damaged_after_open


class ReportFailed(ChipcostError):
    """The report run failed; `files` lists what it wrote before failing (left in place)."""

    def __init__(self, message: str, files: list[Path] | None = None) -> None:
        super().__init__(message)
        self.files = files or []


@dataclass
class ReportOutcome:
    report: Report
    delivery: Delivery


# The tasks return an expected failure instead of raising it: a raised error would be logged
# with a traceback, and a failed send is an operations message, not a bug.
@task(name="write-report", cache_policy=NO_CACHE)
def write_task(
    db: Path | Warehouse,
    out: Path,
    since: str | None,
    until: str | None,
    options: ReportOptions,
    wait: float = 0.0,
):
    try:
        return write_report(
            db,
            out,
            since=parse_day(since, "since"),
            until=parse_day(until, "until"),
            options=options,
            wait=wait,
        )
    except ChipcostError as exc:
        return exc
    except Exception as exc:
        # A damaged warehouse fails where a query reads the damaged part, not at open.
        if (damage := damaged_after_open(exc)) is None:
            raise
        return damage


@task(name="deliver-report", cache_policy=NO_CACHE)
def deliver_task(
    made: Report, recipients: list[str], dry_run: bool, smtp_block: str | None, force: bool
):
    try:
        smtp = _secret(smtp_block) if smtp_block else None
        return deliver(made, recipients, dry_run=dry_run, smtp=smtp, force=force)
    except ChipcostError as exc:
        return exc


def _secret(name: str) -> dict:
    """SMTP settings from a Prefect Secret block holding a JSON object (host, port, ...)."""
    from prefect.blocks.system import Secret

    try:
        value = Secret.load(name).get()
    except ValueError:
        raise EmailError(
            f"no Secret block named {name!r}: create one whose value is a JSON object with "
            "host, port, user, password, from and tls, or leave smtp_block empty to use "
            "CHIPCOST_SMTP_* environment variables"
        ) from None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            value = None
    if not isinstance(value, dict):
        raise EmailError(f"the Secret block {name!r} must hold a JSON object (host, port, ...)")
    return value


def _publish(made: Report, said: str) -> None:
    files = [f"- report: `{made.html_path}`", f"- changes: `{made.csv_path}`", f"- e-mail: {said}"]
    create_markdown_artifact(
        markdown=markdown(made.data, files),
        key="report-summary",
        description=made.subject,
    )


@flow(name="report", log_prints=True)
def report(
    recipients: list[str] | None = None,
    since: str | None = None,
    until: str | None = None,
    db: str | None = None,
    data_dir: str | None = None,
    out: str | None = None,
    dry_run: bool = False,
    smtp_block: str | None = None,
    stale_days: int = 2,
    disagree_pct: float = 5.0,
    force: bool = False,
) -> ReportOutcome | State:
    """Write the price-drift report of a period and e-mail it to the recipients.

    The period defaults to the seven days up to the newest run. SMTP settings come from
    the Secret block `smtp_block` or CHIPCOST_SMTP_* variables. A failed send ends the run
    Failed with a plain message; the report files stay where they were written. A recipient
    this report (same period) already went to is not sent it again, unless `force`.
    """
    logger = get_run_logger()
    plain_failures()
    try:
        settings = load_settings(db=db, data_dir=data_dir)
        options = ReportOptions(stale_days=stale_days, disagree_pct=disagree_pct)
    except ChipcostError as exc:
        logger.error("%s", exc)
        return Failed(message=str(exc), data=ReportFailed(str(exc)))
    out_dir = Path(out or settings.reports_dir)
    # Nobody waits at a terminal for a scheduled report: it waits for a load like a writer.
    made = write_task(settings.warehouse, out_dir, since, until, options, settings.lock_wait)
    if isinstance(made, ChipcostError):
        logger.error("%s", made)
        return Failed(message=str(made), data=ReportFailed(str(made)))
    logger.info("%s: %s and %s written", made.subject, made.html_path, made.csv_path)
    if not recipients and not dry_run:
        logger.warning("no recipients: the report was written but not sent")
        _publish(made, "not sent (no recipients)")
        return ReportOutcome(made, Delivery())
    delivery = deliver_task(made, recipients or [], dry_run, smtp_block, force)
    if isinstance(delivery, ChipcostError):
        logger.error("%s", delivery)
        _publish(made, f"**not sent**: {delivery}")
        files = [made.html_path, made.csv_path]
        return Failed(message=str(delivery), data=ReportFailed(str(delivery), files))
    said = delivered_text(delivery)
    logger.info("e-mail %s", said)
    _publish(made, said)
    return ReportOutcome(made, delivery)


def delivered_text(delivery: Delivery) -> str:
    """What became of the e-mail, in one line: written, sent, or already sent before."""
    if delivery.eml_path:
        return f"written to `{delivery.eml_path}` (dry run)"
    parts = ["sent to " + ", ".join(delivery.sent_to)] if delivery.sent_to else []
    parts += [f"not sent again to {r} ({when})" for r, when in delivery.already.items()]
    return "; ".join(parts)


def notify_targets(settings: Settings, notify: list[str] | None, block: str | None) -> list[str]:
    """The apprise URLs to alert: the flow's `notify` and the Secret block's, else
    $CHIPCOST_NOTIFY."""
    urls = list(notify or [])
    if block:
        urls += _block_urls(block)
    return list(dict.fromkeys(urls or settings.notify))


def _block_urls(name: str) -> list[str]:
    """apprise URLs from a Prefect Secret block: a list, or one string separated by commas."""
    from prefect.blocks.system import Secret

    try:
        value = Secret.load(name).get()
    except ValueError:
        raise NotifyError(
            f"no Secret block named {name!r}: create one whose value is a list of apprise "
            "URLs, or leave notify_block empty to use $CHIPCOST_NOTIFY"
        ) from None
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotifyError(f"the Secret block {name!r} must hold a list of apprise URLs")
    return [v.strip() for v in value if v.strip()]
