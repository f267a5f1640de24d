"""`chipcost backfill --spot`: AWS's last 90 days of spot prices, loaded as one run a day.

DescribeSpotPriceHistory answers every change of a zone's price since a start time (AWS keeps
90 days), the price in force at the start included. The pages are archived once (source
aws-spot, archive run named after the first day); each day from --since to today is then
loaded as a run of source aws-spot (mode backfill) holding every zone's price in force at the
day's end. A price that changed that day carries the moment it took effect, so
`price_history.valid_from` is that moment, not the day; a price unchanged that day carries the
day's end and only extends the row. A zone whose price changed more than once in a day keeps
the day's last price; the others are counted in the day's notes (the archive keeps them all).

History only moves forward (warehouse/load.py), so the days must load before any daily
aws-spot run: a warehouse that already holds aws-spot prices is refused with what to do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from chipcost import archive
from chipcost.core.errors import ChipcostError, SourceSkipped, UsageError
from chipcost.core.payload import sha256
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.record import PriceRecord
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.settings import Settings
from chipcost.extract import source_providers
from chipcost.extract.aws import spot
from chipcost.extract.base import FetchContext
from chipcost.pipeline.collect import new_run_id
from chipcost.pipeline.seed import open_warehouse
from chipcost.transform.validate import validate_records
from chipcost.warehouse.db import scalar
from chipcost.warehouse.db_file import check_writable, run_lock
from chipcost.warehouse.load import load_run

KEPT_DAYS = 90  # DescribeSpotPriceHistory's reach
SOURCE = spot.SOURCE_NAME


@dataclass(frozen=True)
class DayLoaded:
    day: date
    status: str  # loaded | already loaded
    offers: int = 0
    changes: int = 0  # prices that took effect that day
    notes: tuple[str, ...] = ()


def check_since(since: date, today: date) -> None:
    """A start within AWS's 90 days and before today, or a ChipcostError saying which."""
    first = today - timedelta(days=KEPT_DAYS - 1)
    if since < first:
        raise UsageError(
            f"{COMMAND_LINE.said('since', since)}: AWS keeps {KEPT_DAYS} days of spot price "
            f"history; give {first} or later"
        )
    if since > today:
        said = COMMAND_LINE.said("since", since)
        raise UsageError(f"{said} is after today ({today}): give a past day")


def spot_backfill(
    settings: Settings,
    since: date,
    regions: tuple[str, ...] | None = None,
    *,
    client_for: Callable[[str], Any] | None = None,
    now: datetime | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> list[DayLoaded]:
    """Fetch every spot price change since `since` and load each day as its own run."""
    now = now or datetime.now(UTC)
    check_since(since, now.date())
    check_writable(settings)
    if client_for is None:
        client_for = _ec2_clients()
    start = datetime.combine(since, time(), UTC)
    with run_lock(settings.warehouse):
        con = open_warehouse(settings.warehouse)
        try:
            _check_order(con, since)
            stamp = archive.run_stamp(start)
            writer = archive.ArchiveWriter(settings.archive_root, stamp, SOURCE, in_progress=True)
            keys = settings.sources.read(spot.SOURCE.settings)
            ctx = FetchContext(archive=writer, progress=progress, settings=keys)
            payloads = spot.fetch_history(ctx, start, now, regions, client_for=client_for)
            writer.finish()
            series, parsed = spot.history_series(payloads)
            if not series:
                raise ChipcostError(
                    f"{SOURCE}: DescribeSpotPriceHistory gave no price since {since} in "
                    f"{', '.join(regions or ['any region'])} "
                    f"({'; '.join(parsed.notes) or 'no note'}); nothing loaded"
                )
            digest = sha256(b"".join(sha256(p.data).encode() for p in payloads))
            days = [since + timedelta(days=n) for n in range((now.date() - since).days + 1)]
            return [
                _load_day(con, series, d, d == since, now, stamp, digest, parsed.notes, progress)
                for d in days
            ]
        finally:
            con.close()


def _ec2_clients() -> Callable[[str], Any]:
    """boto3's EC2 client per region, once credentials are known to exist (said before the
    warehouse is opened)."""
    try:
        spot.ec2_client(spot.HOME_REGION)
    except SourceSkipped:
        raise ChipcostError(
            f"backfill {COMMAND_LINE.name('spot')} calls DescribeSpotPriceHistory, which needs "
            "AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (allowing "
            f"{spot.PERMISSION})"
        ) from None
    return spot.ec2_client


def _check_order(con: Any, since: date) -> None:
    first = scalar(
        con,
        "SELECT min(r.observed_at) FROM source_runs sr JOIN runs r USING (run_id) "
        "WHERE sr.source = ? AND sr.status = 'ok' AND sr.records > 0 AND r.mode <> 'backfill'",
        [SOURCE],
    )
    if first is not None:
        raise ChipcostError(
            f"this warehouse already holds {SOURCE} prices from daily runs (first "
            f"{first:%Y-%m-%d}): history only moves forward, so older spot prices would add "
            "nothing. Backfill spot into a new warehouse "
            f"({COMMAND_LINE.name('db')}) before its first collection"
        )


def _loaded(con: Any, end: datetime) -> bool:
    """Whether this day's run was loaded by an earlier backfill (a rerun resumes after it)."""
    found = scalar(
        con,
        "SELECT count(*) FROM source_runs sr JOIN runs r USING (run_id) WHERE sr.source = ? "
        "AND sr.status = 'ok' AND r.mode = 'backfill' AND r.observed_at = ?",
        [SOURCE, end],
    )
    return bool(found)


def _load_day(
    con: Any,
    series: spot.Series,
    day: date,
    first: bool,
    now: datetime,
    stamp: str,
    digest: str,
    notes: list[str],
    progress: Callable[[str], None],
) -> DayLoaded:
    """The day's run: every zone's price in force at the day's end. A price that took effect
    that day is dated when it did; on the first day, so is the price in force at the start;
    any other is dated at the day's end, which extends its row."""
    begin = datetime.combine(day, time(), UTC)
    end = min(begin + timedelta(days=1), now)
    if _loaded(con, end):
        return DayLoaded(day, "already loaded")
    records: list[PriceRecord] = []
    changed = superseded = 0
    for prices in series.values():
        known = [(t, r) for t, r in prices if t < end]
        if not known:
            continue  # not on offer yet
        taken, record = known[-1]
        today = sum(1 for t, _ in known if t >= begin)
        changed += today > 0
        superseded += max(today - 1, 0)
        when = taken if taken >= begin or first else end
        records.append(replace(record, observed_at=when))
    valid = validate_records(records, source_providers())
    said = list(notes) + (
        [f"{superseded} price(s) that held less than the day: the day's last kept (the "
         "archive has every one)"] if superseded else []
    )  # fmt: skip
    result = SourceResult(
        source=SOURCE,
        provider=spot.PROVIDER,
        status=OK,
        message=f"{len(valid.records)} records, {len(valid.rejects)} rejects (spot backfill)",
        records=valid.records,
        rejects=valid.rejects,
        seen_keys={r.offer_key() for r in records},
        observed_at=end,
        payload_digest=f"{digest}:{day}",
        notes=said,
        frame=valid.frame,
    )
    run = RunResult(new_run_id(end), now, end, "backfill", stamp, False, [result])
    load_run(con, run, observations_days=None)
    progress(f"{day}: {len(valid.records)} zone prices, {changed} took effect that day")
    return DayLoaded(day, "loaded", len(valid.records), changed, tuple(said))
