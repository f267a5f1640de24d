"""History backfill: AWS's past EC2 price list versions, each loaded as its own run, in order.

Prefect-free: what runs concurrently is decided by the Pool it is given (chipcost.flows.backfill
gives Prefect task runs on a bounded thread pool; the default runs each step when its result
is needed, one after another). Region files are fetched in any order; versions are parsed and
loaded by this one writer, oldest first, whatever order their files arrive in.

A version runs as archive run <its effective begin date> (e.g. 2025-06-01T000000Z) with
source aws-bulk: every payload's fetched_at is that date, so replaying the archive gives the
same history as the backfill did, with valid_from at the dates the prices took effect.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol, TypeVar

from chipcost import archive
from chipcost.core.catalog import aws_location_regions
from chipcost.core.errors import ChipcostError, Stopped, UsageError
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.runs import FAILED, OK, RunResult
from chipcost.core.settings import Settings
from chipcost.extract.aws import bulk as aws_bulk
from chipcost.pipeline.backfill_files import Fetcher, Plan, Version
from chipcost.pipeline.collect import (
    WarehouseSession,
    collect_source,
    load,
    new_run_id,
    now,
    prepare_data_dir,
)
from chipcost.pipeline.runners import Future
from chipcost.warehouse.db import connect, maintain, scalar
from chipcost.warehouse.db_file import check_writable, run_lock

SOURCE = aws_bulk.SOURCE
LOADED, ALREADY, SKIPPED, STOPPED = "loaded", "already loaded", "skipped", "failed"
T = TypeVar("T")


class BackfillStopped(Stopped):
    """A version failed; `outcomes` holds what the backfill did before it stopped."""


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


def parse_since(text: str, today: date | None = None) -> date:
    """The first day to load; a day to come is refused (its prices would be the current
    version's, and every older version would then be refused as going back in time)."""
    try:
        since = date.fromisoformat(text)
    except ValueError as exc:
        raise UsageError(
            f"{COMMAND_LINE.said('since', repr(text))} is not a day: write one that exists as "
            "YYYY-MM-DD, e.g. 2023-01-01"
        ) from exc
    today = today or datetime.now(UTC).date()
    if since > today:
        raise UsageError(
            f"{COMMAND_LINE.said('since', since)} is in the future (today is {today}, UTC): "
            "give the first past day "
            "to load, e.g. 2023-01-01"
        )
    return since


def versions_since(index: dict[str, Any], since: date) -> tuple[list[Version], list[Outcome]]:
    """Versions in effect on or after `since`, oldest first; those superseded are set aside.

    When AWS republished a period (several versions with the same effective begin date),
    its last publication is the one that held: the others are skipped, with the reason.
    """
    entries = index.get("versions") if isinstance(index, dict) else None
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
    """The version an entry of the index describes; None (left out) for one whose URL or
    dates are not what AWS writes: no URL, a begin that is not a time of 2000 or later, an
    end that is given and is not one."""
    if not isinstance(entry, dict) or not isinstance(entry.get("offerVersionUrl"), str):
        return None
    begin = _instant(entry.get("versionEffectiveBeginDate"))
    end_given = entry.get("versionEffectiveEndDate")
    end = _instant(end_given) if end_given else None
    if begin is None or (end_given and end is None):
        return None
    return Version(name, begin, end, str(entry["offerVersionUrl"]))


def _instant(text: object) -> datetime | None:
    """An index's time ('2026-06-01T00:00:00Z') in UTC; None for anything else, or for a time
    before 2000 (AWS's price lists began in 2015)."""
    if not isinstance(text, str):
        return None
    try:
        instant = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return instant if instant.year >= 2000 else None


class Pool(Protocol):
    """Where the backfill's steps run: `submit` may run them concurrently, `call` runs one now."""

    def submit(self, label: str, fn: Callable[..., T], *args: object) -> Future[T]: ...

    def call(self, label: str, fn: Callable[..., T], *args: object) -> T: ...


class _Later:
    """A step run when its result is first asked for (the one-after-another pool)."""

    def __init__(self, fn: Callable[..., Any], args: tuple) -> None:
        self.fn, self.args, self.done, self.value = fn, args, False, None

    def result(self) -> Any:
        if not self.done:
            self.value, self.done = self.fn(*self.args), True
        return self.value


class InOrder:
    """Every step in the calling thread, when its result is needed: version after version."""

    def submit(self, label: str, fn: Callable[..., T], *args: object) -> Future[T]:
        return _Later(fn, args)

    def call(self, label: str, fn: Callable[..., T], *args: object) -> T:
        return fn(*args)


@dataclass
class _Job:
    plan: Plan
    fetches: list[Future[str]]


def backfill(
    settings: Settings,
    since: date,
    regions: tuple[str, ...] | None = None,
    *,
    progress: Progress | None = None,
    sleep: Callable[[float], None] | None = None,
    pool: Pool | None = None,
) -> list[Outcome]:
    """Load every version since `since`, oldest first; stop at the first that fails.

    Where to download from comes from settings.sources; `sleep` is for tests to skip waits.
    """
    progress, pool = progress or Progress(), pool or InOrder()
    check_writable(settings)
    prepare_data_dir(settings)
    outcomes: list[Outcome] = []
    with run_lock(settings.warehouse):
        fetcher = Fetcher(settings, regions, progress.message, sleep)
        versions, superseded = versions_since(fetcher.version_index(), since)
        outcomes.extend(superseded)
        loaded = _loaded_versions(settings)
        progress.start(len(versions))
        jobs = _fetch_all(pool, fetcher, [v for v in versions if v.stamp not in loaded], since)
        try:
            for position, version in enumerate(versions, start=1):
                progress.version(version, position)
                if version.stamp in loaded:
                    outcome = Outcome(version, ALREADY, _already(settings, version, regions))
                else:
                    outcome = _finish(settings, pool, version, jobs[version.stamp])
                outcomes.append(outcome)
                progress.done(outcome)
                if outcome.status == STOPPED:
                    break
        finally:
            fetcher.stop.set()  # fetches not yet started return at once
            _settle(jobs.values())
        if settings.is_lake and any(o.status == LOADED for o in outcomes):
            with WarehouseSession(settings) as session:
                maintain(session.con)
    return outcomes


def _fetch_all(
    pool: Pool, fetcher: Fetcher, versions: list[Version], since: date
) -> dict[str, _Job]:
    """Every version's plan, then every region file, submitted oldest version first."""
    futures = {v.stamp: pool.submit(f"plan {v.version}", fetcher.plan, v) for v in versions}
    plans = {stamp: future.result() for stamp, future in futures.items()}
    _check_listed(fetcher.regions, list(plans.values()), since)
    jobs = {}
    for version in versions:
        plan = plans[version.stamp]
        fetches = [
            pool.submit(f"fetch {version.version} {region}", fetcher.fetch, version, plan, region)
            for region in plan.regions
        ]
        jobs[version.stamp] = _Job(plan, fetches)
    return jobs


def _check_listed(regions: tuple[str, ...] | None, plans: list[Plan], since: date) -> None:
    """A region that no version to load lists is a typo (or a region AWS has no EC2 prices
    for): refused before anything is downloaded, with the closest codes AWS lists."""
    read = [p for p in plans if p.listed]
    if not regions or not read or any(p.error for p in plans):
        return
    listed = sorted({code for p in read for code in p.listed})
    for region in regions:
        if region not in listed:
            close = difflib.get_close_matches(region, listed, n=3, cutoff=0.6)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            versions = f"{len(read)} EC2 price list version{'s' if len(read) > 1 else ''}"
            shown = ", ".join(listed) if len(listed) <= 6 else f"{', '.join(listed[:5])}, …"
            count = f"{len(listed)} region{'s' if len(listed) > 1 else ''}"
            raise UsageError(
                f"{COMMAND_LINE.said('region', region)}: none of the {versions} since "
                f"{since:%Y-%m-%d} has a file for it{hint}; they list {count}: {shown}"
            )


def _finish(settings: Settings, pool: Pool, version: Version, job: _Job) -> Outcome:
    """The version's outcome once all its files are in: loaded, skipped, or what stopped it."""
    if job.plan.error:
        return Outcome(version, STOPPED, job.plan.error)
    if job.plan.note:
        return Outcome(version, SKIPPED, job.plan.note)
    errors = [message for message in (f.result() for f in job.fetches) if message]
    if errors:
        return Outcome(version, STOPPED, errors[0])
    return pool.call(f"load {version.version}", _load_version, settings, version)


def _settle(jobs: Any) -> None:
    """Wait for the fetches still running: none may write the archive after the lock is gone."""
    for job in jobs:
        for future in job.fetches:
            if not isinstance(future, _Later):
                future.result()


def _load_version(settings: Settings, version: Version) -> Outcome:
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
    # A connection per version: the next version's download must not keep readers out. A
    # lake is maintained once, after the last version (backfill).
    noted = len(result.notes)
    with WarehouseSession(settings, maintain=False) as session:
        summary = load(session, run)
    status = STOPPED if result.status == FAILED else LOADED
    # A version older than aws-bulk prices already loaded is put in its place, the history
    # after it restated, or opens no history where that cannot be done: the load said which
    # (its note, or its message).
    # what the load said of it (a version loaded late), once
    restated = [note for note in result.notes[noted:] if note not in result.message]
    message = "; ".join([result.message, *restated])
    return Outcome(
        version, status, message, summary.records, summary.rejects, summary.history_changes
    )


def _already(settings: Settings, version: Version, regions: tuple[str, ...] | None) -> str:
    """Why a loaded version is not loaded again, naming the asked regions it was loaded
    without (its archived run says which regions it holds)."""
    done = "loaded by an earlier run"
    if not regions:
        return f"{done}: nothing to do"
    try:
        manifest = archive.read_manifest(
            archive.location(settings.archive_root) / version.stamp / SOURCE.name
        )
    except (ChipcostError, OSError, ValueError):  # moved or removed since: nothing to name
        return f"{done}: nothing to do"
    held = sorted(
        {
            str(p["request"]["region"])
            for p in manifest.get("payloads", [])
            if isinstance(p.get("request"), dict) and p["request"].get("kind") == "ec2"
        }
    )
    lacking = [r for r in regions if r not in held]
    if not held or not lacking:
        return f"{done}: nothing to do"
    _check_known(lacking, held)
    return (
        f"{done} with {', '.join(held)} only: a version is loaded once, so "
        f"{', '.join(lacking)} is not added; backfill into a new {COMMAND_LINE.name('db')} "
        "for it"
    )


def _check_known(regions: list[str], held: list[str]) -> None:
    """A region no loaded version holds and no AWS region has as its code is a typo: refused
    (with every version loaded, no region index was read to check it against)."""
    known = set(aws_location_regions().values()) | set(held)
    for region in regions:
        if region not in known:
            close = difflib.get_close_matches(region, sorted(known), n=3, cutoff=0.6)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(
                f"{COMMAND_LINE.said('region', region)}: no AWS region has this code{hint}; every "
                f"version since {COMMAND_LINE.name('since')} is loaded, with {', '.join(held)}"
            )


def _loaded_versions(settings: Settings) -> set[str]:
    """Archive runs aws-bulk was loaded from before this backfill."""
    if not settings.is_lake and not settings.db_path.exists():
        return set()
    con = connect(settings.warehouse, wait=settings.lock_wait)
    try:
        rows = con.execute(
            "SELECT archive_run FROM source_runs WHERE source = ? AND status = ?",
            [SOURCE.name, OK],
        ).fetchall()
    finally:
        con.close()
    return {row[0] for row in rows}


def loaded_since(settings: Settings, version: Version, began: datetime) -> bool:
    """Whether a run begun at or after `began` loaded `version` (its aws-bulk source ok, as
    `_loaded_versions` counts a version loaded); False when the warehouse cannot be read now."""
    import duckdb

    try:
        con = connect(settings.warehouse, read_only=True)
    except (ChipcostError, duckdb.Error):
        return False
    try:
        found = scalar(
            con,
            "SELECT count(*) FROM source_runs s JOIN runs r USING (run_id) "
            "WHERE s.source = ? AND s.status = ? AND s.archive_run = ? AND r.started_at >= ?",
            [SOURCE.name, OK, version.stamp, began],
        )
    except duckdb.Error:
        return False
    finally:
        con.close()
    return bool(found)


def check_stopped(outcomes: list[Outcome]) -> None:
    """BackfillStopped, with what was done, when the last version failed."""
    if outcomes and outcomes[-1].status == STOPPED:
        last = outcomes[-1]
        raise BackfillStopped(
            f"version {last.version.version} failed: {last.message}. Versions before it are "
            "loaded; run the same command again to resume from it",
            outcomes,
        )
