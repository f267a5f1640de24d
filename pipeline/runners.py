"""Where a collection's (or a backfill's) steps run: a thread pool for a one-off command.

A deployed run gives Prefect task runs instead (chipcost.flows.collect). Each step reports to
the `chipcost.progress` logger: the CLI prints it, a deployed run leaves it to the flow's log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol, TypeVar

from chipcost.core.network import Network
from chipcost.core.runs import LoadSummary, RunResult, SourceResult
from chipcost.core.settings import Settings
from chipcost.extract import Source
from chipcost.pipeline.collect import WarehouseSession, collect_source, load, replay_sources
from chipcost.warehouse.load import LoadedFrom

T = TypeVar("T")
progress_log = logging.getLogger("chipcost.progress")
# Fields of progress records: the number of sources a live fetch starts (STARTED), each
# source's result as it finishes (FINISHED), each committed load's archive run (LOADED), a
# warning said as a note on the command line (NOTE), the runs a replay loads once the ones
# without a source asked for are left out (REPLAYING).
STARTED, FINISHED, LOADED, NOTE = "sources_started", "source_finished", "loaded_run", "note"
REPLAYING = "replay_runs"
# Concurrent fetches of a one-off command: every source at once (each host is limited on
# its own, extract/_http.py), as Prefect's thread pool runs a deployed run's tasks.
THREADS = 32


class Future(Protocol[T]):
    def result(self) -> T: ...


class Runner(Protocol):
    """Where a collection's steps run: a thread pool, or Prefect task runs."""

    def source(
        self, source: Source, settings: Settings, stamp: str, network: Network
    ) -> Future[SourceResult]:
        """Today's fetch of one source, parsed and validated (`fetch_source`)."""
        ...

    def archived(
        self,
        sources: list[Source],
        settings: Settings,
        run_dir: Path,
        loaded: dict[str, LoadedFrom],
    ) -> Future[list[SourceResult]]:
        """Every source of one archived run, parsed and validated (`parse_run`)."""
        ...

    def load(self, session: WarehouseSession, run: RunResult) -> LoadSummary:
        """The run into the warehouse (`pipeline.collect.load`); ChipcostError if refused."""
        ...

    def loaded(self, run: RunResult, summary: LoadSummary) -> None:
        """A run's load committed (a deployed run publishes its summary table)."""
        ...


def progress(message: str) -> None:
    progress_log.info("%s", message)


def fetch_source(source: Source, settings: Settings, stamp: str, network: Network) -> SourceResult:
    """One source of today's run; its result is reported the moment it is known."""
    result = collect_source(
        source, settings=settings, stamp=stamp, network=network, progress=progress
    )
    progress_log.info("%s: %s", result.source, result.status, extra={FINISHED: result})
    return result


def parse_run(
    sources: list[Source], settings: Settings, run_dir: Path, loaded: dict[str, LoadedFrom]
) -> list[SourceResult]:
    """Every source of one archived run, validated together."""
    return replay_sources(
        sources, settings=settings, replay_dir=run_dir, already_loaded=loaded, progress=progress
    )


class ThreadRunner:
    """The one-off command's runner: fetches and parses on a thread pool, loads in the caller."""

    def __init__(self, threads: int = THREADS) -> None:
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="collect")

    def source(
        self, source: Source, settings: Settings, stamp: str, network: Network
    ) -> Future[SourceResult]:
        return self.pool.submit(fetch_source, source, settings, stamp, network)

    def archived(
        self,
        sources: list[Source],
        settings: Settings,
        run_dir: Path,
        loaded: dict[str, LoadedFrom],
    ) -> Future[list[SourceResult]]:
        return self.pool.submit(parse_run, sources, settings, run_dir, loaded)

    def load(self, session: WarehouseSession, run: RunResult) -> LoadSummary:
        return load(session, run)

    def loaded(self, run: RunResult, summary: LoadSummary) -> None:
        pass

    def __enter__(self) -> ThreadRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        # Not waiting for fetches a Ctrl-C left: each stops at its next wait (core.stopping).
        self.pool.shutdown(wait=False, cancel_futures=True)


class Threads:
    """A backfill's Pool (chipcost.pipeline.backfill) on a thread pool of `workers`."""

    def __init__(self, workers: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="backfill")

    def submit(self, label: str, fn: Callable[..., T], *args: object) -> Future[T]:
        return self.pool.submit(fn, *args)

    def call(self, label: str, fn: Callable[..., T], *args: object) -> T:
        return fn(*args)

    def __enter__(self) -> Threads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
