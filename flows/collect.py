"""The deployed daily collection: chipcost.pipeline.collection with each step a Prefect task.

Thin on purpose: the run's logic (pending runs, replays, load order) is the pipeline's; here
are the tasks (one per source of a live run, one per archived run of a replay, one per
load), their retries, the run's summary table as an artifact, and the alerts after it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State
from prefect.futures import PrefectFuture
from prefect.states import Failed
from prefect.utilities.annotations import quote

from chipcost.core.errors import ChipcostError
from chipcost.core.network import Network
from chipcost.core.runs import FAILED, SKIPPED, LoadSummary, RunResult, SourceResult
from chipcost.core.settings import Settings, load_settings
from chipcost.extract import Source
from chipcost.flows._state import plain_failures, returned
from chipcost.pipeline import collection, runners
from chipcost.pipeline.collect import WarehouseSession, load
from chipcost.pipeline.collection import CollectFailed, RunOutcome
from chipcost.warehouse.load import LoadedFrom

__all__ = ["CollectFailed", "RunOutcome", "collect", "run_collect"]


# NO_CACHE: a source run must never be skipped as "cached"; its inputs are not hashable anyway.
@task(name="collect-source", task_run_name="{source.name}", cache_policy=NO_CACHE)
def collect_source_task(
    source: Source, settings: Settings, stamp: str, network: Network
) -> SourceResult:
    result = runners.fetch_source(source, settings, stamp, network)
    _log_result(get_run_logger(), result)
    return result


@task(name="replay-run", task_run_name="{run_dir.name}", cache_policy=NO_CACHE)
def replay_run_task(
    sources: list[Source], settings: Settings, run_dir: Path, loaded: dict[str, LoadedFrom]
) -> list[SourceResult]:
    """Every source of one archived run: one task run per archived run, not per source per
    run (Prefect's round trips were most of a sample replay's time)."""
    results = runners.parse_run(sources, settings, run_dir, loaded)
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


class TaskRunner:
    """chipcost.pipeline.runners.Runner as Prefect task runs of this flow."""

    def source(
        self, source: Source, settings: Settings, stamp: str, network: Network
    ) -> PrefectFuture[SourceResult]:
        return collect_source_task.submit(source, settings, stamp, quote(network))

    def archived(
        self,
        sources: list[Source],
        settings: Settings,
        run_dir: Path,
        loaded: dict[str, LoadedFrom],
    ) -> PrefectFuture[list[SourceResult]]:
        return replay_run_task.submit(sources, settings, run_dir, loaded)

    def load(self, session: WarehouseSession, run: RunResult) -> LoadSummary:
        # quote: the run is handed over as it is, not walked record by record (RunOutcome).
        summary = load_task(session, quote(run))
        if isinstance(summary, State):  # an expected failure: the state raises its error
            summary.result()
            raise AssertionError("unreachable: a Failed state raises")  # pragma: no cover
        return summary

    def loaded(self, run: RunResult, summary: LoadSummary) -> None:
        label = " (SAMPLE DATA)" if run.sample else ""
        create_table_artifact(
            table=[_row(s) for s in run.sources],
            key="collect-summary",
            description=(
                f"Run {run.run_id}{label}: {run.status}; {summary.new} new, {summary.changed} "
                f"changed, {summary.withdrawn} withdrawn offers"
            ),
        )


def _row(s: SourceResult) -> dict[str, object]:
    return {
        "source": s.source,
        "status": s.status,
        "records": len(s.records),
        "rejects": len(s.rejects),
        "seconds": round(s.seconds, 2),
        "message": s.message,
        "notes": " | ".join(s.notes),
    }


@contextmanager
def _warnings_to(logger: logging.Logger | logging.LoggerAdapter) -> Iterator[None]:
    """The pipeline's warnings (a price jump) in the flow run's log, where the UI shows them."""

    class Forward(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            logger.log(record.levelno, "%s", record.getMessage())

    handler = Forward(logging.WARNING)
    runners.progress_log.addHandler(handler)
    try:
        yield
    finally:
        runners.progress_log.removeHandler(handler)


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
    accept_moves: list[str] | None = None,
) -> list[RunOutcome] | State:
    """Collect today's prices (or replay an archive) into the warehouse.

    A live collection also loads, before its own run, the runs earlier live collections
    archived but did not load (docs/operations.md, "Pending runs"); pending=True loads only
    those and fetches nothing. accept_moves: sources loaded even where most of their prices
    moved by one factor, which holds their run otherwise (docs/operations.md, "Price jumps").

    Expected failures end the flow run Failed with a plain message (no traceback): a busy
    or unusable warehouse, an unreadable archive, every source failed or skipped, or a
    source of an archived run loaded before from other payloads (a conflict: the first load
    stands, the other sources load).
    With alert_pct and alert_to, a price move of at least alert_pct % is e-mailed at once
    (docs/reports.md); an alert that cannot be sent fails the run, the prices stay loaded.
    notify (apprise URLs), the Secret block notify_block, or else $CHIPCOST_NOTIFY: moves and
    new cheapest prices go there too, each at most once a day per target.
    """
    logger = get_run_logger()
    plain_failures()
    try:
        alert_pct = collection.alert_size(alert_pct)  # before anything is fetched or loaded
        settings = load_settings(db=db, data_dir=data_dir)
        with _warnings_to(logger):
            outcomes = collection.collect(
                settings,
                TaskRunner(),
                replay=replay,
                sources=sources,
                pending=pending,
                accept_moves=accept_moves,
            )
    except CollectFailed as exc:
        logger.error("%s", exc)
        # The state's data must be an exception: a deployed run re-raises it at its end.
        return Failed(message=str(exc), data=exc)
    except ChipcostError as exc:
        logger.error("%s", exc)
        return Failed(message=str(exc), data=exc)
    alerts = _alert(settings, outcomes, alert_pct, alert_to, notify, notify_block)
    # A conflict (a run loaded before from other payloads) fails the run, the rest loaded.
    if conflicts := collection.conflicts(outcomes):
        logger.error("%s", conflicts)
    if failure := "; ".join(f for f in (conflicts, alerts) if f):
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
    from chipcost.flows.report import notify_targets
    from chipcost.reports.collected import alert_after_collect

    try:
        urls = notify_targets(settings, notify, notify_block)
    except ChipcostError as exc:
        return f"prices loaded, but no price notification was sent: {exc}"
    runs = [o.run for o in outcomes]
    logger = get_run_logger()
    return alert_after_collect(
        settings, runs, alert_pct, alert_to if mail else None, urls, logger=logger
    )


def run_collect(**parameters: object) -> list[RunOutcome]:
    """Run the flow; a failed run raises CollectFailed carrying what was collected."""
    return returned(collect(**parameters, return_state=True), CollectFailed, "collect")
