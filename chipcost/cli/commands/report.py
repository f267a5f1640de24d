"""`chipcost report`: the price-drift report of a period, as files, an .eml, or an e-mail."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chipcost.cli.options import CurrencyOption, DbOption, ListPricesOption, out
from chipcost.cli.render import SAMPLE_BANNER
from chipcost.core.errors import ChipcostError
from chipcost.reports.period import MAX_DAYS, MAX_PCT


def report(
    since: Annotated[
        str | None,
        typer.Option(help="First day, YYYY-MM-DD (UTC). Default: six days before --until."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(help="Last day, YYYY-MM-DD (UTC). Default: the day of the newest run."),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Directory for the files (default: <data dir>/reports)."),
    ] = None,
    email: Annotated[
        list[str] | None,
        typer.Option(
            "--email", help="Send to this address (repeatable); SMTP from CHIPCOST_SMTP_*."
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Write the e-mail as an .eml file; send nothing.")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Send even to recipients this report (same period) already went to."
        ),
    ] = False,
    stale_days: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_DAYS,
            help="A source with no success for this many days is stale ($CHIPCOST_STALE_DAYS, 2).",
        ),
    ] = None,
    disagree_pct: Annotated[
        float,
        typer.Option(help="Flag offers two sources price more than this % apart."),
    ] = 5.0,
    currency: CurrencyOption = None,
    list_prices: ListPricesOption = False,
    db: DbOption = None,
) -> None:
    """Write the report (HTML) and a CSV of every change; mail it, or write it as .eml."""
    # Imported here: `chipcost prices` loads this module and must stay light.
    from chipcost.core.settings import load_settings
    from chipcost.reports.build import deliver, write_report
    from chipcost.reports.mail import check_recipients, smtp_settings
    from chipcost.reports.period import ReportOptions, parse_day
    from chipcost.reports.text import headline

    if not 0 < disagree_pct <= MAX_PCT:  # NaN too; ReportOptions says it in the flow's words
        raise ChipcostError(
            f"--disagree-pct {disagree_pct:g}: give a percentage above 0 and up to {MAX_PCT:g}"
        )
    settings = load_settings(db=db)
    recipients = check_recipients(email or [])
    if recipients and not dry_run:
        smtp_settings()  # a setting that cannot work is said before the report is built
    options = ReportOptions(
        stale_days=stale_days or settings.stale_days,
        disagree_pct=disagree_pct,
        currency=currency,
        list_prices=list_prices,
    )
    made = write_report(
        settings.warehouse,
        out_dir or settings.reports_dir,
        since=parse_day(since, "--since"),
        until=parse_day(until, "--until"),
        options=options,
        wait=settings.read_wait,
    )
    # Printed as text, not markup: the subject starts with "[sample data]".
    out.print(made.subject, style="bold", markup=False, highlight=False)
    out.print(headline(made.data), highlight=False, markup=False)
    out.print(f"report:  {made.html_path}", highlight=False)
    out.print(f"changes: {made.csv_path} ({made.data.events.height} rows)", highlight=False)
    if dry_run or recipients:
        delivery = deliver(made, recipients, dry_run=dry_run, force=force)
        if delivery.eml_path:
            out.print(f"e-mail:  {delivery.eml_path} (dry run: not sent)", highlight=False)
        if delivery.sent_to:
            sent_to = ", ".join(delivery.sent_to)
            out.print(f"e-mail:  sent to {sent_to}", highlight=False, markup=False)
        for recipient, when in delivery.already.items():
            out.print(
                f"e-mail:  not sent again to {recipient} ({when}); --force sends it again",
                highlight=False,
                markup=False,
            )
    else:
        out.print("(add --dry-run to write the e-mail as .eml, or --email ADDRESS to send it)")
    if made.data.sample:
        out.print(SAMPLE_BANNER)
