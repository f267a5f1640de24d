"""Making a report: read the warehouse, write the HTML and CSV, then mail it or write an .eml."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from email.message import EmailMessage
from pathlib import Path

import duckdb
import polars as pl

from chipcost.core.disk import no_room
from chipcost.core.errors import ChipcostError, NoMatch
from chipcost.core.frames import spreadsheet_safe
from chipcost.core.outputs import written_whole
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.scratch import scratch
from chipcost.core.settings import Warehouse
from chipcost.core.vocabulary import HISTORY_KEY, OFFER_KEY, gpu_alone
from chipcost.reports import page, text
from chipcost.reports.data import ReportData, gather, printable_text, report_name
from chipcost.reports.labels import jump_mark
from chipcost.reports.mail import (
    DRY_RUN_SENDER,
    EmailError,
    build_message,
    check_recipients,
    smtp_settings,
    stable_message_id,
    write_eml,
)
from chipcost.reports.outbox import send_once
from chipcost.reports.period import Period, ReportError, ReportOptions, resolve_period
from chipcost.warehouse.changes import newest_run, write_change_events
from chipcost.warehouse.fx import provisional
from chipcost.warehouse.reader import in_working_memory, open_reader

CSV_COLUMNS = (
    "changed_at",
    "change",
    "chip",
    *OFFER_KEY,
    "source",
    "chip_count",
    "old_price_per_hour",
    "new_price_per_hour",
    "old_price_per_chip_hour",
    "new_price_per_chip_hour",
    "change_pct",
    "history_start",
    "payload_ref",
    "estimate",  # what a price no public page gives rests on; empty for a published price
    "sample",  # true for the bundled sample's prices
    # Last, so that the columns before them keep their places:
    "currency",  # the prices' currency: the market's list prices, in US dollars
    # a change of an offer whose price went out and came back in the period ('×8.0 and back',
    # as the page marks it: a data glitch, most likely); empty for any other
    "glitch",
    # After them, as `prices --format csv` writes them: why a spot price is doubtful, not
    # below its offer's on-demand price (empty for any other), whether it is the GPU's alone
    # (its host billed beside it, core.vocabulary.gpu_alone), and the currency its provider
    # states it in: EUR where the price was converted to US dollars at its day's ECB rate.
    "spot_doubt",
    "gpu_alone",
    "stated_currency",
    # true where that euro price is converted at an earlier day's rate than its day's own,
    # not loaded yet (chipcost.warehouse.fx.provisional): a later report restates it
    "provisional",
)
# The changes' prices: price_changes states every event in US dollars (at the ECB rate of its
# day for a price stated in euros), whatever currency the report shows your prices in.
CSV_CURRENCY = "USD"
# Rows of the changes CSV made at a time: what the report holds of it, whatever the period.
CSV_BATCH = 10_000


@dataclass
class Report:
    data: ReportData
    subject: str
    html_path: Path
    csv_path: Path
    db_path: Path | None = None  # where deliveries are recorded

    @property
    def message_id_key(self) -> str:
        """What makes the report's Message-ID: its period, and whether it is sample data."""
        return self.data.period.slug + (".sample" if self.data.sample else "")

    @property
    def eml_path(self) -> Path:
        return self.html_path.with_suffix(".eml")


@dataclass
class Delivery:
    eml_path: Path | None = None
    sent_to: list[str] = field(default_factory=list)
    # Recipients not sent to again: they have it, or may have ("sent 2026-11-09 07:00 UTC").
    already: dict[str, str] = field(default_factory=dict)


def write_report(
    db_path: Path | Warehouse,
    out_dir: Path,
    *,
    since: date | None = None,
    until: date | None = None,
    options: ReportOptions | None = None,
    wait: float = 0.0,
    without_data: bool = True,
    step: Callable[[str], None] | None = None,
) -> Report:
    """Read the period from the warehouse (read-only) and write the HTML report and CSV.

    `wait`: seconds to wait for a collection that holds the file (warehouse/lock_wait.py).
    `without_data`: a period the warehouse holds no data of is written as a report that says
    so (the schedule's); False: NoMatch, saying what the warehouse holds, and nothing written
    (`chipcost report`, which exits 1 on it as grep on no match).
    `step`: told each step as it starts (the reads, the page, the files), for a progress line.
    """
    step = step or _quiet
    options = options or ReportOptions()
    step("opening the warehouse")
    con = open_reader(db_path, wait=wait)
    try:
        today = datetime.now(UTC).date()
        period = resolve_period(since, until, newest_run(con), today)
        data = gather(con, period, options, step)
        if not without_data and (empty := _no_data(data)):
            raise NoMatch(f"{empty}: no report written")
        out_dir = _prepare(out_dir)
        subject = text.subject(data)
        html_path = out_dir / report_name(data)
        csv_path = out_dir / page.csv_name(data)
        with written_whole([html_path, csv_path]) as (html_file, csv_file):
            step(f"writing {csv_path.name}")
            write_changes_csv(con, period, csv_file, glitches=glitch_marks(data.glitches))
            con.close()  # the warehouse is free while the page is laid out
            step(f"laying out the page and writing {html_path.name}")
            html_file.write_text(page.report_html(data, subject), encoding="utf-8")
    finally:
        con.close()
    return Report(data, subject, html_path, csv_path, db_path)


def _quiet(_: str) -> None:
    """No progress said."""


def _no_data(data: ReportData) -> str:
    """What the warehouse holds, for a period it holds no data of ('' when it holds some)."""
    if not data.has_history:
        return "the warehouse holds no price history yet (`chipcost collect` loads prices)"
    return text.no_data(data)


def _prepare(out_dir: Path) -> Path:
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        said = COMMAND_LINE.said("out", out_dir)
        raise ReportError(f"{said} is a file: give a directory for the report files")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(
            f"cannot create the reports directory {out_dir}: {exc.strerror}"
        ) from None
    return out_dir


def write_changes_csv(
    con: duckdb.DuckDBPyConnection,
    period: Period,
    path: Path,
    batch: int = CSV_BATCH,
    glitches: pl.DataFrame | None = None,
) -> None:
    """The CSV of every event of the period at `path`: DuckDB writes the events to a Parquet
    file beside it, read back and written out `batch` rows at a time, each as changes_csv
    makes it (`glitches` as it takes them); the report never holds every event
    (docs/performance.md). A euro price of a day whose own rate is not loaded yet is marked
    `provisional`."""
    found = provisional(con, period.since, period.until)
    days = found.days if found else ()
    with scratch(".chipcost-changes", path.parent) as folder:
        events = folder / "events.parquet"
        # every event sorted and written out: in bounded memory (reader.CUT_MEMORY)
        try:
            in_working_memory(
                con, lambda: write_change_events(con, period.start, period.end, events)
            )
        except duckdb.IOException as exc:
            # said as the CSV's own write failing (written_whole: the path, the previous
            # files kept), not as the warehouse's
            full = no_room(exc, path)
            code = errno.ENOSPC if full else errno.EIO
            raise OSError(code, os.strerror(code) if full else str(exc), str(path)) from None
        read = pl.scan_parquet(events)
        with path.open("w", encoding="utf-8", newline="") as out:
            header = changes_csv(read.head(0).collect(), glitches, days)
            out.write(header.write_csv())  # the header, even alone
            for rows in read.collect_batches(chunk_size=batch):
                made = changes_csv(printable_text(rows), glitches, days)
                out.write(made.write_csv(include_header=False))


def glitch_marks(glitches: pl.DataFrame) -> pl.DataFrame | None:
    """Per offer that went out and came back in the period (ReportData.glitches), its mark as
    the page gives it: '×8.0 and back'; None where none did."""
    if glitches.is_empty():
        return None
    rows = glitches.select("jump_factor", "jump_up", "change_pct").iter_rows(named=True)
    marks = [jump_mark(r["jump_factor"], r["jump_up"], r["change_pct"]) for r in rows]
    return glitches.select(HISTORY_KEY).with_columns(glitch=pl.Series(marks, dtype=pl.String))


def changes_csv(
    events: pl.DataFrame,
    glitches: pl.DataFrame | None = None,
    provisional_days: Collection[date] = (),
) -> pl.DataFrame:
    """Events of the period, timestamps in ISO UTC, text safe to open in a spreadsheet; each
    change of an offer of `glitches` (glitch_marks) marked with its glitch, and each event of
    a euro price on one of `provisional_days` (converted at an earlier day's rate, its day's
    own not loaded yet: warehouse.fx.provisional) marked `provisional`."""
    marks = pl.DataFrame(
        schema={**{c: pl.String for c in HISTORY_KEY}, "glitch": pl.String}
    ) if glitches is None else glitches  # fmt: skip
    changed = pl.col("change") == "changed"
    frame = (
        events.join(marks, on=HISTORY_KEY, how="left", nulls_equal=True, maintain_order="left")
        .with_columns(
            currency=pl.lit(CSV_CURRENCY),
            glitch=pl.when(changed).then(pl.col("glitch")),
            gpu_alone=pl.struct("source", "instance_type").map_elements(
                lambda r: gpu_alone(r["source"], r["instance_type"]), return_dtype=pl.Boolean
            ),
            # an event's prices are at the rate of its own day (price_changes)
            provisional=(pl.col("stated_currency") == "EUR").fill_null(False)
            & pl.col("changed_at").dt.date().is_in(list(provisional_days)),
        )
        .select(CSV_COLUMNS)
        .with_columns(pl.col("changed_at").dt.strftime("%Y-%m-%dT%H:%M:%SZ"))
    )
    return spreadsheet_safe(frame)


def compose(report: Report, sender: str, recipients: list[str]) -> EmailMessage:
    data = report.data
    return build_message(
        subject=report.subject,
        sender=sender,
        recipients=recipients,
        text=text.text_body(data, data.options.top_movers),
        html=page.email_html(data, report.subject),
        attachments=[report.html_path, report.csv_path],
        message_id=stable_message_id("report", report.message_id_key, sender),
    )


def deliver(
    report: Report,
    recipients: list[str],
    *,
    dry_run: bool,
    smtp: Mapping[str, object] | None = None,
    force: bool = False,
) -> Delivery:
    """Write the message as .eml (dry run) or send it; the report files stay either way.

    A recipient this report (same period) was already sent to is skipped unless `force`.
    """
    recipients = check_recipients(recipients)
    if dry_run:
        given = (smtp or {}).get("from") or os.environ.get("CHIPCOST_SMTP_FROM")
        sender = str(given or DRY_RUN_SENDER)
        message = compose(report, sender, recipients)
        return Delivery(eml_path=write_eml(message, report.eml_path))
    try:
        settings = smtp_settings(smtp)
        message = compose(report, settings.sender, recipients)
        db = report.db_path or Path()
        sent = send_once(db, message, settings, recipients, kind="report", force=force)
    except EmailError as exc:
        raise EmailError(f"{exc} (the report files are in {report.html_path.parent})") from None
    except ChipcostError as exc:  # the warehouse, which records each delivery before it is sent
        raise ChipcostError(
            f"{exc}. Nothing was sent: sending records each delivery in the warehouse, which "
            f"needs write access to it (the report files are in {report.html_path.parent})"
        ) from None
    already = {
        r: f"{d.status} {d.attempted_at:%Y-%m-%d %H:%M} UTC" for r, d in sent.already.items()
    }
    return Delivery(sent_to=sent.sent_to, already=already)
