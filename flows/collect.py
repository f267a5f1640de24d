"""The daily collection flow: sources (concurrently) -> validate -> load -> run artifact."""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State
from prefect.futures import PrefectFuture
from prefect.states import Failed
from prefect.utilities.annotations import quote

from chipcost import archive
from chipcost.core.errors import ChipcostError, WarehouseBusy
from chipcost.core.runs import ALREADY_LOADED, FAILED, SKIPPED, LoadSummary, RunResult, SourceResult
from chipcost.core.settings import Settings, load_settings
from chipcost.core.stopping import on_signals
from chipcost.extract import Source
from chipcost.flows._state import FlowStopped, returned
from chipcost.pipeline.collect import (
    WarehouseSession,
    already_loaded_runs,
    already_loaded_sources,
    check_source_settings,
    collect_source,
    load,
    new_run_id,
    now,
    prepare_data_dir,
    replay_sources,
    select_sources,
)
from chipcost.pipeline.jumps import flag_price_jumps
from chipcost.pipeline.pending import clear_pending, is_archived_run, mark_pending, pending_runs
from chipcost.warehouse.db import damaged_after_open, run_lock

# Progress of each source goes to this logger: the CLI shows it on its status line, a
# deployed run leaves it to the flow run's log.
progress_log = logging.getLogger("chipcost.progress")
# Each committed load, its archive run in the record's `loaded_run`: the CLI says after a
# Ctrl-C which runs the warehouse holds.
LOADED = "loaded_run"


class RunOutcome:
    """A run and what its load changed.

    A plain class, not a dataclass: Prefect walks a flow's return value (and a task's
    parameters) through lists, dicts and dataclasses, looking for futures, and a run holds
    thousands of records; walking the sample replay's outcomes took longer than loading them.
    """

    __slots__ = ("run", "summary")

    def __init__(self, run: RunResult, summary: LoadSummary) -> None:
        self.run = run
        self.summary = summary

    def __repr__(self) -> str:
        return f"RunOutcome(run={self.run.run_id!r}, summary={self.summary!r})"


class CollectFailed(FlowStopped):
    """The flow run failed; `outcomes` holds the runs it loaded before deciding so."""


def _progress(message: str) -> None:
    progress_log.info("%s", message)


# NO_CACHE: a source run must never be skipped as "cached"; its inputs are not hashable anyway.
@task(name="collect-source", task_run_name="{source.name}", cache_policy=NO_CACHE)
def collect_source_task(
    source: Source,
    settings: Settings,
    stamp: str,
    replay_dir: Path | None,
    already_loaded: str | None,
) -> SourceResult:
    result = collect_source(
        source,
        settings=settings,
        stamp=stamp,
        replay_dir=replay_dir,
        already_loaded=already_loaded,
        progress=_progress,
    )
    _log_result(get_run_logger(), result)
    return result


@task(name="replay-run", task_run_name="{replay_dir.name}", cache_policy=NO_CACHE)
def replay_run_task(
    sources: list[Source], settings: Settings, replay_dir: Path, loaded: dict[str, str]
) -> list[SourceResult]:
    """Every source of one archived run, validated together: a replay of days of archive
    costs one task run per day, not one per source per day (Prefect's round trips were most
    of a sample replay's time). A live run keeps one task per source."""
    results = replay_sources(
        sources, settings=settings, replay_dir=replay_dir, already_loaded=loaded, progress=_progress
    )
    logger = get_run_logger()
    for result in results:
        _log_result(logger, result)
    return results


def _log_result(logger: logging.Logger | logging.LoggerAdapter, result: SourceResult) -> None:
    level = logger.warning if result.status in (FAILED, SKIPPED) else logger.info
    level("%s: %s: %s", result.source, result.status, result.message)
    for note in result.notes:
        logger.warning("%s: %s", result.source, note)


@task(name="load-run", cache_policy=NO_CACHE)
def load_task(session: WarehouseSession, run: RunResult) -> LoadSummary | State:
    """The load; an expected failure (a busy warehouse, a lake whose PostgreSQL went away)
    ends the task Failed with its message, raised again in the flow, not logged as a crash
    with its traceback."""
    try:
        return load(session, run)
    except ChipcostError as exc:
        return Failed(message=str(exc), data=exc)


def _replay(
    settings: Settings, session: WarehouseSession, sources: list[Source], run_dirs: list[Path]
) -> list[RunOutcome]:
    """Archived runs in order, one task run each; one open of the file answers which sources
    every run has loaded already, then each load opens it again (readers get in between).

    The next run is parsed (a task submitted to the flow's thread pool) while this one
    loads: DuckDB's load and polars' checks run outside Python's lock, so the parse fills
    that time. One run ahead at most, so a long replay holds two runs' records, not all.
    """
    loaded = already_loaded_runs(session, [d.name for d in run_dirs])

    def parse(run_dir: Path) -> tuple[datetime, PrefectFuture]:
        started, chosen = now(), _archived(sources, run_dir)
        loaded_here = loaded.get(run_dir.name, {})
        return started, replay_run_task.submit(chosen, settings, run_dir, loaded_here)

    outcomes = []
    ahead = parse(run_dirs[0]) if run_dirs else None
    for run_dir, following in zip(run_dirs, [*run_dirs[1:], None], strict=True):
        started, parsing = ahead
        ahead = parse(following) if following else None
        run = _archived_run(started, run_dir, "replay", parsing.result())
        outcomes.append(_load(settings, session, run, run_dir))
    return outcomes


def _archived(sources: list[Source], run_dir: Path) -> list[Source]:
    """The sources an archived run directory holds payloads of; one whose payloads have no
    manifest is kept too, so that it fails with the reason, not in silence."""
    archived = set(archive.sources_in(run_dir))
    return [s for s in sources if s.name in archived]


def _archived_run(
    started: datetime, run_dir: Path, mode: str, results: list[SourceResult]
) -> RunResult:
    """The run of an archived run directory's results (dated by its stamp if none observed)."""
    stamp = run_dir.name
    dated, sample = archive.parse_stamp(stamp), archive.is_sample(run_dir)
    return _run(started, stamp, mode, results, dated=dated, sample=sample)


def _collect_archived(
    settings: Settings, session: WarehouseSession, sources: list[Source], run_dir: Path
) -> RunOutcome:
    """A pending live run parsed and loaded, with the daily flow's task per source."""
    started, stamp = now(), run_dir.name
    loaded = already_loaded_sources(session, stamp)
    results = _gather(settings, _archived(sources, run_dir), stamp, run_dir, loaded)
    return _load(settings, session, _archived_run(started, run_dir, "live", results), run_dir)


def _collect_live(
    settings: Settings, session: WarehouseSession, sources: list[Source], *, fetch: bool
) -> list[RunOutcome]:
    """Today's fetch, then every pending run (oldest first) and today's loaded in order.

    Today's run is pending from before its fetch until its load commits: if the load is
    refused or the process dies, the next collection loads it from the archive.
    """
    pending = pending_runs(settings)
    today = None
    if fetch:
        started = now()
        stamp = archive.run_stamp(started)
        mark_pending(settings, stamp)
        results = _gather(settings, sources, stamp, None, {})
        today = _run(started, stamp, "live", results, dated=started)
    outcomes = []
    try:
        for run_dir in pending:
            outcome = _collect_pending(settings, session, run_dir)
            if outcome is not None:
                outcomes.append(outcome)
        if today is not None:
            outcomes.append(_load(settings, session, today, None))
    except WarehouseBusy as exc:
        if today is None and not pending:
            raise
        raise WarehouseBusy(
            f"{exc}. The fetched payloads are archived in {settings.archive_dir}: the next "
            "`chipcost collect` loads them first, or run `chipcost collect --pending`"
        ) from exc
    return outcomes


def _collect_pending(
    settings: Settings, session: WarehouseSession, run_dir: Path
) -> RunOutcome | None:
    if not run_dir.is_dir() or not archive.archived_sources(run_dir):
        _progress(f"pending run {run_dir.name}: nothing was archived; dropped")
        clear_pending(settings, run_dir.name)
        return None
    _progress(f"loading pending run {run_dir.name}")
    # Every source it archived, whatever this collection was asked to fetch.
    return _collect_archived(settings, session, select_sources(None), run_dir)


def _gather(
    settings: Settings,
    sources: list[Source],
    stamp: str,
    run_dir: Path | None,
    loaded: dict[str, str],
) -> list[SourceResult]:
    futures = [
        collect_source_task.submit(s, settings, stamp, run_dir, loaded.get(s.name)) for s in sources
    ]
    return [f.result() for f in futures]


def _run(
    started: datetime,
    stamp: str,
    mode: str,
    results: list[SourceResult],
    *,
    dated: datetime,
    sample: bool = False,
) -> RunResult:
    """The run of these results, dated `dated` when no source observed anything.

    An archived run whose sources all failed is dated by its archive stamp, not today:
    `runs` by observed_at is what the report's default week and freshness follow.
    """
    observed = [r.observed_at for r in results if r.observed_at]
    return RunResult(
        run_id=new_run_id(started),
        started_at=started,
        observed_at=min(observed) if observed else dated,
        mode=mode,
        archive_run=stamp,
        sample=sample,
        sources=results,
    )


def _load(
    settings: Settings, session: WarehouseSession, run: RunResult, run_dir: Path | None
) -> RunOutcome:
    try:
        # Before the load: a jump is judged against the prices the warehouse held until now.
        for source, note in flag_price_jumps(session.con, run.sources):
            get_run_logger().warning("%s: %s", source, note)
        # quote: the run is handed over as it is, not walked record by record (see RunOutcome).
        summary = load_task(session, quote(run))
        if isinstance(summary, State):  # an expected failure: the state raises its error
            summary.result()
            raise AssertionError("unreachable: a Failed state raises")  # pragma: no cover
    finally:
        session.release()  # readers get in between runs
    progress_log.info("loaded run %s", run.archive_run, extra={LOADED: run.archive_run})
    if run_dir is None or is_archived_run(settings, run_dir):
        clear_pending(settings, run.archive_run)
    _publish(run, summary)
    return RunOutcome(run, summary)


def _publish(run: RunResult, summary: LoadSummary) -> None:
    rows = [
        {
            "source": s.source,
            "status": s.status,
            "records": len(s.records),
            "rejects": len(s.rejects),
            "seconds": round(s.seconds, 2),
            "message": s.message,
            "notes": " | ".join(s.notes),
        }
        for s in run.sources
    ]
    label = " (SAMPLE DATA)" if run.sample else ""
    create_table_artifact(
        table=rows,
        key="collect-summary",
        description=(
            f"Run {run.run_id}{label}: {run.status}; {summary.new} new, {summary.changed} "
            f"changed, {summary.withdrawn} withdrawn offers"
        ),
    )


@flow(name="collect", log_prints=True)
def collect(
    replay: str | None = None,
    db: str | None = None,
    data_dir: str | None = None,
    sources: list[str] | None = None,
    alert_pct: float | None = None,
    alert_to: list[str] | None = None,
    notify: list[str] | None = None,
    notify_block: str | None = None,
    pending: bool = False,
) -> list[RunOutcome] | State:
    """Collect today's prices (or replay an archive) into the warehouse.

    A live collection also loads, before its own run, the runs earlier live collections
    archived but did not load (docs/operations.md, "Pending runs"); pending=True loads only
    those and fetches nothing.

    Expected failures end the flow run Failed with a plain message (no traceback): a busy
    or unusable warehouse, an unreadable archive, or every source failed or skipped.
    With alert_pct and alert_to, a price move of at least alert_pct % is e-mailed at once
    (docs/reports.md); an alert that cannot be sent fails the run, the prices stay loaded.
    notify (apprise URLs), the Secret block notify_block, or else $CHIPCOST_NOTIFY: moves and
    new cheapest prices go there too, each at most once a day per target.
    """
    try:
        settings = load_settings(db=db, data_dir=data_dir)
        chosen = select_sources(sources)
        check_source_settings(settings, chosen)
        if replay and pending:
            raise ChipcostError(
                "--pending loads the runs a live collection archived but did not load; "
                "it does not go with --replay"
            )
        run_dirs = list(archive.run_directories(replay)) if replay else []
        prepare_data_dir(settings)
        # SIGTERM/SIGINT: every fetch stops at its next wait or chunk, the process ends
        # within seconds (chipcost.core.stopping).
        with on_signals(), run_lock(settings.warehouse), WarehouseSession(settings) as session:
            if replay:
                outcomes = _replay(settings, session, chosen, run_dirs)
            else:
                outcomes = _collect_live(settings, session, chosen, fetch=not pending)
    except ChipcostError as exc:
        get_run_logger().error("%s", exc)
        return Failed(message=str(exc))
    except Exception as exc:
        # A damaged warehouse fails where a query reads the damaged part, not at open.
        if (damage := damaged_after_open(exc)) is None:
            raise
        get_run_logger().error("%s", damage)
        return Failed(message=str(damage))
    ran = [s for o in outcomes for s in o.run.sources if s.status != ALREADY_LOADED]
    if ran and all(s.status in (FAILED, SKIPPED) for s in ran):
        message = _all_failed_message(ran)
        get_run_logger().error("%s", message)
        # The state's data must be an exception: a deployed run re-raises it at its end.
        return Failed(message=message, data=CollectFailed(message, outcomes))
    failure = _alert(settings, outcomes, alert_pct, alert_to, notify, notify_block)
    if failure:
        return Failed(message=failure, data=CollectFailed(failure, outcomes))
    return outcomes


def _alert(
    settings: Settings,
    outcomes: list[RunOutcome],
    alert_pct: float | None,
    alert_to: list[str] | None,
    notify: list[str] | None,
    notify_block: str | None,
) -> str | None:
    """E-mail and notification alerts on what the runs loaded; what failed, or None."""
    mail = alert_pct is not None and bool(alert_to)
    if not outcomes or not (mail or notify or notify_block or settings.notify):
        return None
    # The report stack loads only when some alert is asked for.
    from chipcost.flows.report import alert_after_collect, notify_targets

    try:
        urls = notify_targets(settings, notify, notify_block)
    except ChipcostError as exc:
        return f"prices loaded, but no price notification was sent: {exc}"
    runs = [o.run for o in outcomes]
    return alert_after_collect(settings, runs, alert_pct, alert_to if mail else None, urls)


# Up to this many sources, the failure message carries each one's own message; beyond it, a
# summary: every message is already in the run summary table and the Prefect artifact.
DETAILED_FAILURES = 2


def _all_failed_message(ran: list[SourceResult]) -> str:
    if len(ran) <= DETAILED_FAILURES:
        details = dict.fromkeys(f"{s.source}: {s.status}: {s.message}" for s in ran)
        return "every source failed or was skipped: " + "; ".join(details)
    groups = []
    for status in (FAILED, SKIPPED):
        names = [s.source for s in ran if s.status == status]
        if names:
            groups.append(f"{len(names)} {status} ({', '.join(names)})")
    return (
        f"every source failed or was skipped: {'; '.join(groups)}. Each source's message is "
        "in the run summary; most often the network is down or the credentials are missing"
    )


def run_collect(**parameters: object) -> list[RunOutcome]:
    """Run the flow; a failed run raises CollectFailed carrying what was collected."""
    return returned(collect(**parameters, return_state=True), CollectFailed, "collect")
