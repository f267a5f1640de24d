"""`chipcost report`: the price-drift report of a period, as files, an .eml, or an e-mail."""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from chipcost.cli.options import Currency, Db, ListPrices
from chipcost.cli.parser import command
from chipcost.core.asks import StaleDays
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.questions import Opt

if TYPE_CHECKING:
    from chipcost.core.settings import Settings
    from chipcost.reports.build import Delivery, Report


def _report(
    since: Annotated[
        str | None, Opt("First day, YYYY-MM-DD (UTC). Default: six days before --until.")
    ] = None,
    until: Annotated[
        str | None, Opt("Last day, YYYY-MM-DD (UTC). Default: the day of the newest run.")
    ] = None,
    out_dir: Annotated[
        str | None,
        Opt(
            "Directory for the files (default: <data dir>/reports).",
            flags=("--out",),
            metavar="PATH",
        ),
    ] = None,
    email: Annotated[
        list[str] | None,
        Opt("Send to this address (repeatable); SMTP from CHIPCOST_SMTP_*."),
    ] = None,
    dry_run: Annotated[bool, Opt("Write the e-mail as an .eml file; send nothing.")] = False,
    force: Annotated[
        bool, Opt("Send even to recipients this report (same period) already went to.")
    ] = False,
    stale_days: StaleDays = None,
    disagree_pct: Annotated[
        float, Opt("Flag offers two sources price more than this % apart.")
    ] = 5.0,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
) -> None:
    """Write the report (HTML) and a CSV of every change; mail it, or write it as .eml."""
    # Imported here: `chipcost --help` loads this module and must stay light.
    from chipcost.cli.consoles import out
    from chipcost.cli.render import SAMPLE_BANNER
    from chipcost.cli.steps import steps_shown
    from chipcost.core.settings import load_settings
    from chipcost.reports.build import write_report
    from chipcost.reports.mail import check_recipients, smtp_settings
    from chipcost.reports.period import MAX_PCT, ReportOptions, parse_day

    if not 0 < disagree_pct <= MAX_PCT:  # NaN too; ReportOptions says it in the flow's words
        raise UsageError(
            f"--disagree-pct {disagree_pct:g}: give a percentage above 0 and up to {MAX_PCT:g}"
        )
    if out_dir is not None and not out_dir.strip():  # Path("") is the current directory
        raise UsageError("--out is empty: give the directory to write in, e.g. --out reports/")
    settings = load_settings(db=db)
    recipients = check_recipients(email or [])
    if recipients and not dry_run:
        smtp_settings()  # a setting that cannot work is said before the report is built
        _check_records(settings)
    options = ReportOptions(
        stale_days=stale_days or settings.stale_days,
        disagree_pct=disagree_pct,
        currency=currency,
        list_prices=list_prices,
    )
    # On a terminal, each step on stderr as it goes (the reads take seconds).
    with steps_shown("starting the report") as step:
        made = write_report(
            settings.warehouse,
            Path(out_dir) if out_dir is not None else settings.reports_dir,
            since=parse_day(since, "--since"),
            until=parse_day(until, "--until"),
            options=options,
            wait=settings.read_wait,
            without_data=False,  # a period without data: one line, exit 1, no file
            step=step,
        )
    # The e-mail is written or sent before a line is printed: a reader that closed the pipe
    # (`| head -1`) cuts the lines short, never the .eml, the send or its record.
    try:
        delivery = _delivered(made, recipients, dry_run=dry_run, force=force)
    except ChipcostError:
        with suppress(BrokenPipeError):  # the failure is said on stderr all the same
            _say_made(made)
        raise
    _say_made(made)
    _say_delivery(delivery)
    if made.data.sample:
        out.say(SAMPLE_BANNER)


def _check_records(settings: Settings) -> None:
    """Sending records each delivery in the warehouse: one it cannot write is said before the
    report is built, in collect's words."""
    from chipcost.cli.collect_checks import check_can_write

    if settings.is_lake:
        return
    path = settings.db_path
    try:
        check_can_write(path.parent, "the warehouse's directory", "--db")
        if path.is_file():
            check_can_write(path, "the warehouse", "--db")
    except ChipcostError as exc:
        raise ChipcostError(
            f"{exc}. Sending records each delivery in the warehouse, so that no one gets the "
            "report twice: nothing was built or sent (--dry-run writes the e-mail as .eml "
            "without sending, and needs no write access)"
        ) from None


def _delivered(made: Report, recipients: list[str], *, dry_run: bool, force: bool) -> Delivery:
    """The e-mail written as .eml (dry run) or sent; nothing asked of it without either."""
    from chipcost.cli.steps import steps_shown
    from chipcost.reports.build import Delivery, deliver

    if not (dry_run or recipients):
        return Delivery()
    with steps_shown("writing the e-mail" if dry_run else "sending the e-mail"):
        return deliver(made, recipients, dry_run=dry_run, force=force)


def _say_made(made: Report) -> None:
    """The subject, the headline and the two files written."""
    from chipcost.cli.consoles import out
    from chipcost.reports.text import headline

    # Printed as text, not markup: the subject starts with "[sample data]".
    out.say([(made.subject, "bold")])
    out.say(headline(made.data))
    out.say(f"report:  {made.html_path}", break_words=False)
    out.say(f"changes: {made.csv_path} ({made.data.events.events} rows)", break_words=False)


def _say_delivery(delivery: Delivery) -> None:
    """Where the .eml is, who it was sent to and who already had it; or how to mail it."""
    from chipcost.cli.consoles import out

    if delivery.eml_path:
        out.say(f"e-mail:  {delivery.eml_path} (dry run: not sent)", break_words=False)
    if delivery.sent_to:
        out.say(f"e-mail:  sent to {', '.join(delivery.sent_to)}")
    for recipient, when in delivery.already.items():
        out.say(f"e-mail:  not sent again to {recipient} ({when}); --force sends it again")
    if not (delivery.eml_path or delivery.sent_to or delivery.already):
        out.say("(add --dry-run to write the e-mail as .eml, or --email ADDRESS to send it)")


report = command(_report, "report")
