"""The daily collection flow: sources (concurrently) -> validate -> load -> run artifact."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State
from prefect.states import Failed

from chipcost import archive
from chipcost.core.errors import ChipcostError
from chipcost.core.runs import ALREADY_LOADED, FAILED, SKIPPED, LoadSummary, RunResult, SourceResult
from chipcost.core.settings import Settings, load_settings
from chipcost.extract import Source
from chipcost.pipeline.collect import (
    WarehouseSession,
    already_loaded_sources,
    collect_source,
    load,
    new_run_id,
    now,
    prepare_data_dir,
    select_sources,
)
from chipcost.pipeline.jumps import flag_price_jumps
from chipcost.warehouse.db import damaged_after_open, run_lock

# Progress of each source goes to this logger: the CLI shows it on its status line, a
# deployed run leaves it to the flow run's log.
progress_log = logging.getLogger("chipcost.progress")


@dataclass
class RunOutcome:
    run: RunResult
    summary: LoadSummary


class CollectFailed(ChipcostError):
    """The flow run failed; `outcomes` holds the runs it loaded before deciding so."""

    def __init__(self, message: str, outcomes: list[RunOutcome]) -> None:
        super().__init__(message)
        self.outcomes = outcomes


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
    logger = get_run_logger()
    level = logger.warning if result.status in (FAILED, SKIPPED) else logger.info
    level("%s: %s: %s", source.name, result.status, result.message)
    for note in result.notes:
        logger.warning("%s: %s", source.name, note)
    return result


@task(name="load-run", cache_policy=NO_CACHE)
def load_task(session: WarehouseSession, run: RunResult) -> LoadSummary:
    return load(session, run)


def _collect_one(
    settings: Settings, session: WarehouseSession, sources: list[Source], run_dir: Path | None
) -> RunOutcome:
    started = now()
    stamp = run_dir.name if run_dir else archive.run_stamp(started)
    if run_dir is not None:
        archived = set(archive.archived_sources(run_dir))
        sources = [s for s in sources if s.name in archived]
    loaded = already_loaded_sources(session, stamp) if run_dir else {}
    futures = [
        collect_source_task.submit(s, settings, stamp, run_dir, loaded.get(s.name)) for s in sources
    ]
    results = [f.result() for f in futures]
    # Before the load: a jump is judged against the prices the warehouse held until now.
    for source, note in flag_price_jumps(session.con, results):
        get_run_logger().warning("%s: %s", source, note)
    observed = [r.observed_at for r in results if r.observed_at]
    run = RunResult(
        run_id=new_run_id(started),
        started_at=started,
        observed_at=min(observed) if observed else started,
        mode="replay" if run_dir else "live",
        archive_run=stamp,
        sample=bool(run_dir and archive.is_sample(run_dir)),
        sources=results,
    )
    summary = load_task(session, run)
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
) -> list[RunOutcome] | State:
    """Collect today's prices (or replay an archive) into the warehouse.

    Expected failures end the flow run Failed with a plain message (no traceback): a busy
    or unusable warehouse, an unreadable archive, or every source failed or skipped.
    With alert_pct and alert_to, a price move of at least alert_pct % is e-mailed at once
    (docs/reports.md); an alert that cannot be sent fails the run, the prices stay loaded.
    """
    try:
        settings = load_settings(db=db, data_dir=data_dir)
        chosen = select_sources(sources)
        run_dirs: list[Path | None] = (
            list(archive.run_directories(Path(replay))) if replay else [None]
        )
        prepare_data_dir(settings)
        outcomes = []
        with run_lock(settings.db_path), WarehouseSession(settings) as session:
            for run_dir in run_dirs:
                outcomes.append(_collect_one(settings, session, chosen, run_dir))
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
    if alert_pct is not None and alert_to and outcomes:
        from chipcost.flows.report import (
            alert_after_collect,  # the report stack loads only when asked
        )

        failure = alert_after_collect(settings, [o.run for o in outcomes], alert_pct, alert_to)
        if failure:
            return Failed(message=failure, data=CollectFailed(failure, outcomes))
    return outcomes


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
    state = collect(**parameters, return_state=True)
    if state.is_failed():
        data = state.result(raise_on_failure=False)
        if isinstance(data, CollectFailed):
            raise data
        raise CollectFailed(state.message or "the collect flow failed", [])
    return state.result()
