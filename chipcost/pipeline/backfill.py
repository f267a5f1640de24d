"""History backfill: AWS's past EC2 price list versions, each loaded as its own run, in order.

Prefect-free on purpose: a backfill is a one-off, hours-long job that resumes from the
warehouse's own record of what it loaded (source_runs) and from partial downloads, shows a
progress bar, and holds the warehouse's run lock throughout; a Prefect run would add a
server start and nothing it uses (docs/operations.md).

A version runs as archive run <its effective begin date> (e.g. 2025-06-01T000000Z) with
source aws-bulk: every payload's fetched_at is that date, so replaying the archive gives the
same history as the backfill did, with valid_from at the dates the prices took effect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from chipcost import archive
from chipcost.core.errors import ChipcostError
from chipcost.core.runs import FAILED, OK, RunResult
from chipcost.core.settings import Settings
from chipcost.extract import aws_bulk
from chipcost.extract._aws_bulk_fetch import EC2_OFFER, OFFER_INDEX_PATH, offer_entry
from chipcost.extract._aws_files import get_json
from chipcost.extract._aws_public import public_files
from chipcost.extract.base import FetchContext
from chipcost.pipeline.backfill_files import Version, archive_version_files
from chipcost.pipeline.collect import (
    WarehouseSession,
    collect_source,
    load,
    new_run_id,
    now,
    prepare_data_dir,
)
from chipcost.warehouse.db import check_writable, connect, run_lock, scalar

SOURCE = aws_bulk.SOURCE
# Where AWS lists every version of the EC2 offer, when the offer index does not say.
VERSION_INDEX_PATH = "/offers/v1.0/aws/AmazonEC2/index.json"
LOADED, ALREADY, SKIPPED, STOPPED = "loaded", "already loaded", "skipped", "failed"


@dataclass
class Outcome:
    version: Version
    status: str
    message: str = ""
    records: int = 0
    rejects: int = 0
    changes: int = 0


class Progress:
    """What the backfill reports as it goes; the CLI draws it, tests record it."""

    def start(self, total: int) -> None: ...

    def version(self, version: Version, position: int) -> None: ...

    def message(self, text: str) -> None: ...

    def done(self, outcome: Outcome) -> None: ...


def parse_since(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise ChipcostError(f"--since {text!r} is not a date: write it as YYYY-MM-DD") from exc


def versions_since(index: dict[str, Any], since: date) -> tuple[list[Version], list[Outcome]]:
    """Versions in effect on or after `since`, oldest first; those superseded are set aside.

    When AWS republished a period (several versions with the same effective begin date),
    its last publication is the one that held: the others are skipped, with the reason.
    """
    entries = index.get("versions")
    if not isinstance(entries, dict) or not entries:
        raise ChipcostError("the EC2 version index lists no versions: AWS changed its format")
    found: dict[datetime, Version] = {}
    skipped: list[Outcome] = []
    for name, entry in sorted(entries.items()):
        version = _version(name, entry)
        if version is None:
            continue
        if version.end is not None and version.end.date() <= since:
            continue
        earlier = found.get(version.begin)
        if earlier is not None:
            skipped.append(Outcome(earlier, SKIPPED, f"superseded by {name} (same dates)"))
        found[version.begin] = version
    return [found[begin] for begin in sorted(found)], skipped


def _version(name: str, entry: object) -> Version | None:
    if not isinstance(entry, dict) or not entry.get("offerVersionUrl"):
        return None
    try:
        begin = _instant(entry["versionEffectiveBeginDate"])
    except (KeyError, ValueError):
        return None
    end_text = entry.get("versionEffectiveEndDate") or ""
    end = _instant(end_text) if end_text else None
    return Version(name, begin, end, str(entry["offerVersionUrl"]))


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def backfill(
    settings: Settings,
    since: date,
    regions: tuple[str, ...] | None = None,
    *,
    progress: Progress | None = None,
    sleep: Callable[[float], None] | None = None,
) -> list[Outcome]:
    """Load every version since `since`, oldest first; stop at the first that fails.

    Where to download from comes from settings.sources; `sleep` is for tests to skip waits.
    """
    progress = progress or Progress()
    check_writable(settings)
    prepare_data_dir(settings)
    outcomes: list[Outcome] = []
    with run_lock(settings.warehouse):
        fetcher = _Fetcher(settings, regions, progress, sleep)
        versions, superseded = versions_since(fetcher.version_index(), since)
        outcomes.extend(superseded)
        loaded, newest = _warehouse_state(settings)
        progress.start(len(versions))
        for position, version in enumerate(versions, start=1):
            progress.version(version, position)
            if version.stamp in loaded:
                outcome = Outcome(version, ALREADY, "loaded by an earlier run: nothing to do")
            else:
                outcome = _load_version(settings, fetcher, version, newest)
            outcomes.append(outcome)
            progress.done(outcome)
            if outcome.status == STOPPED:
                break
    return outcomes


def _load_version(
    settings: Settings, fetcher: _Fetcher, version: Version, newest: datetime | None
) -> Outcome:
    try:
        note = fetcher.archive_version(version)
    except ChipcostError as exc:
        return Outcome(version, STOPPED, str(exc))
    if note:
        return Outcome(version, SKIPPED, note)
    run_dir = archive.location(settings.archive_root) / version.stamp
    started = now()
    result = collect_source(SOURCE, settings=settings, stamp=version.stamp, replay_dir=run_dir)
    run = RunResult(
        run_id=new_run_id(started),
        started_at=started,
        observed_at=version.begin,
        mode="backfill",
        archive_run=version.stamp,
        sample=False,
        sources=[result],
    )
    # A connection per version: the next version's download must not keep readers out.
    with WarehouseSession(settings) as session:
        summary = load(session, run)
    status = STOPPED if result.status == FAILED else LOADED
    message = result.message
    if newest is not None and newest > version.begin and status == LOADED:
        message += (
            f"; older than aws-bulk prices already loaded ({newest:%Y-%m-%d}): kept in the "
            "archive (and as observations within the retention window), but history only "
            "moves forward (docs/operations.md)"
        )
    return Outcome(
        version, status, message, summary.records, summary.rejects, summary.history_changes
    )


def _warehouse_state(settings: Settings) -> tuple[set[str], datetime | None]:
    """Archive runs aws-bulk was loaded from, and its newest observation before this backfill."""
    if not settings.is_lake and not settings.db_path.exists():
        return set(), None
    con = connect(settings.warehouse, wait=settings.lock_wait)
    try:
        rows = con.execute(
            "SELECT archive_run FROM source_runs WHERE source = ? AND status = ?",
            [SOURCE.name, OK],
        ).fetchall()
        newest = scalar(
            con, "SELECT max(observed_at) FROM observations WHERE source = ?", [SOURCE.name]
        )
    finally:
        con.close()
    return {row[0] for row in rows}, newest if isinstance(newest, datetime) else None


class _Fetcher:
    """Fetches a version's files into its archive run, reusing whatever is already there."""

    def __init__(
        self,
        settings: Settings,
        regions: tuple[str, ...] | None,
        progress: Progress,
        sleep: Callable[[float], None] | None,
    ) -> None:
        self.settings, self.regions, self.progress = settings, regions, progress
        self.sleep = sleep
        self.indexes: list[tuple[str, str, bytes]] = []  # (kind, url, bytes) fetched once

    def context(self, stamp: str) -> FetchContext:
        writer = archive.ArchiveWriter(self.settings.archive_root, stamp, SOURCE.name)
        if (writer.directory / archive.MANIFEST).is_file():  # resume an interrupted version
            writer.manifest = archive.read_manifest(writer.directory)
        return FetchContext(
            writer, progress=self.progress.message, settings=self.settings.sources, sleep=self.sleep
        )

    def version_index(self) -> dict[str, Any]:
        files = public_files(self.context(archive.run_stamp(now())), SOURCE.name)
        with files.client:
            url = files.url(OFFER_INDEX_PATH)
            data, offers = get_json(files.client, url, SOURCE.name)
            self.indexes.append(("offer-index", url, data))
            path = offer_entry(offers, EC2_OFFER, SOURCE.name).get("versionIndexUrl")
            url = files.url(str(path or VERSION_INDEX_PATH))
            data, index = get_json(files.client, url, SOURCE.name)
            self.indexes.append(("version-index", url, data))
        return index

    def archive_version(self, version: Version) -> str:
        """Archive what the version's run still lacks; a note when it has nothing to load."""
        ctx = self.context(version.stamp)
        files = public_files(ctx, SOURCE.name, regions=self.regions)
        with files.client:
            return archive_version_files(ctx, files, version, self.indexes)
