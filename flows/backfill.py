"""The backfill flow: past EC2 price lists fetched as concurrent task runs, loaded in order."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State
from prefect.states import Failed
from prefect.task_runners import ThreadPoolTaskRunner

from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.settings import load_settings
from chipcost.core.stopping import on_signals
from chipcost.flows._state import plain_failures, returned
from chipcost.pipeline.backfill import (
    BackfillStopped,
    Future,
    Outcome,
    Progress,
    check_stopped,
    parse_since,
)
from chipcost.pipeline.backfill import backfill as run_steps

T = TypeVar("T")
DEFAULT_WORKERS = 2


# NO_CACHE: a step must run every time (the warehouse and archive say what is done).
@task(name="backfill-step", task_run_name="{label}", cache_policy=NO_CACHE)
def step(label: str, fn: Callable[..., Any], args: tuple) -> Any:
    return fn(*args)


class TaskRuns:
    """The backfill's pool: each step a Prefect task run, at most `workers` at a time."""

    def __init__(self, runner: ThreadPoolTaskRunner) -> None:
        self.runner = runner

    def submit(self, label: str, fn: Callable[..., T], *args: object) -> Future[T]:
        return self.runner.submit(step, {"label": label, "fn": fn, "args": args})

    def call(self, label: str, fn: Callable[..., T], *args: object) -> T:
        return step(label, fn, args)


@flow(name="backfill")
def backfill(
    since: str,
    regions: list[str] | None = None,
    db: str | None = None,
    data_dir: str | None = None,
    workers: int = DEFAULT_WORKERS,
    progress: Any = None,
    sleep: Any = None,
) -> list[Outcome] | State:
    """Load AWS's past EC2 price lists since `since` (YYYY-MM-DD) as history, oldest first.

    Each region file of each version is a task run; at most `workers` run at once. Versions
    are parsed and loaded by this flow alone, in effective-date order; a re-run skips what is
    loaded and reuses what is archived. `progress` and `sleep` are for the CLI and tests.
    """
    plain_failures()
    try:
        settings = load_settings(db=db, data_dir=data_dir)
        first = parse_since(since)
        if workers < 1:
            said = COMMAND_LINE.said("workers", workers)
            raise UsageError(f"{said}: give 1 or more concurrent downloads")
        with on_signals(), ThreadPoolTaskRunner(max_workers=workers) as runner:
            outcomes = run_steps(
                settings,
                first,
                tuple(regions) if regions else None,
                progress=progress if isinstance(progress, Progress) else None,
                sleep=sleep,
                pool=TaskRuns(runner),
            )
        check_stopped(outcomes)
    except BackfillStopped as exc:
        get_run_logger().error("%s", exc)
        return Failed(message=str(exc), data=exc)
    except ChipcostError as exc:
        get_run_logger().error("%s", exc)
        return Failed(message=str(exc), data=BackfillStopped(str(exc), []))
    get_run_logger().info("%s", _summary(outcomes))
    return outcomes


def _summary(outcomes: list[Outcome]) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    done = ", ".join(f"{n} {status}" for status, n in counts.items()) or "nothing to do"
    return f"backfill finished {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {done}"


def run_backfill(**parameters: object) -> list[Outcome]:
    """Run the flow; a stopped or refused backfill raises BackfillStopped with its outcomes."""
    return returned(backfill(**parameters, return_state=True), BackfillStopped, "backfill")
