"""One real Prefect server for a whole distributed test run, started before the workers.

Each worker used to start its own server (prefect_test_harness): seconds of CPU apiece, paid
while the worker waited. When the run is spread over workers, the runner itself spawns one
server as soon as it is configured, with chipcost's own temporary-server module (so it also
dies with the runner, however the runner ends), and hands its URL to the workers in the
environment; it keeps starting while the workers collect their tests. A worker's
`prefect_server` fixture waits until it answers and points Prefect at it. A run on one
process keeps Prefect's harness.

Its database, migrated and still empty, is also copied once it answers (before any worker
uses it): the servers the process tests start for themselves (tests/e2e) begin from a copy
(`migrated_home`), as a user's Prefect home does after its first run, instead of running
Prefect's migrations again (6 s of CPU each).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, nullcontext
from pathlib import Path
from unittest import mock

# The shared server's API URL, for the workers.
URL_ENV = "CHIPCOST_TEST_PREFECT_API"
# Where its database is copied once migrated, for the tests' own servers.
DATABASE_ENV = "CHIPCOST_TEST_PREFECT_DB"
STARTUP_SECONDS = 180.0
# Prefect's database in its home, unless PREFECT_API_DATABASE_CONNECTION_URL says otherwise.
DATABASE = "prefect.db"


def start() -> tuple[subprocess.Popen, Path]:
    """Spawn the server in a Prefect home of its own; its URL goes into the environment."""
    from chipcost.cli import prefect_server

    home = Path(tempfile.mkdtemp(prefix="chipcost-test-prefect-"))
    with mock.patch.dict(os.environ, {"PREFECT_HOME": str(home)}):
        port, process = prefect_server._spawn()
    url = f"http://127.0.0.1:{port}/api"
    os.environ[URL_ENV] = url
    copy = home / "migrated.db"
    os.environ[DATABASE_ENV] = str(copy)
    threading.Thread(target=_copy_when_migrated, args=(url, home, copy), daemon=True).start()
    return process, home


def _copy_when_migrated(url: str, home: Path, copy: Path) -> None:
    """The server's database, copied as soon as it answers (its migrations done)."""
    try:
        wait_until_answering(url)
    except RuntimeError:
        return  # the workers' fixture says so
    part = copy.with_suffix(".part")
    with closing(sqlite3.connect(home / DATABASE)) as source, closing(sqlite3.connect(part)) as to:
        source.backup(to)
    part.rename(copy)


def migrated_home(home: Path) -> Path:
    """`home`, a Prefect home for a server of a test's own, holding a copy of the run's
    migrated database when the run has one (a run on one process has none: the server
    migrates its own)."""
    home.mkdir(parents=True, exist_ok=True)
    if copy := _migrated_copy():
        shutil.copyfile(copy, home / DATABASE)
    return home


def _migrated_copy() -> Path | None:
    """The copy of the shared server's migrated database, once it is made."""
    if not (named := os.environ.get(DATABASE_ENV)):
        return None
    copy, end = Path(named), time.monotonic() + STARTUP_SECONDS
    while not copy.exists():
        if time.monotonic() > end:
            raise RuntimeError(f"the test run's Prefect database was not copied to {copy}")
        time.sleep(0.1)
    return copy


def stop(process: subprocess.Popen, home: Path) -> None:
    from chipcost.cli import prefect_server

    os.environ.pop(URL_ENV, None)
    os.environ.pop(DATABASE_ENV, None)
    prefect_server._stop(process)
    shutil.rmtree(home, ignore_errors=True)


def wait_until_answering(url: str, seconds: float = STARTUP_SECONDS) -> None:
    import httpx

    end = time.monotonic() + seconds
    # One client for every poll: each new one loads the CA bundle (25 ms of CPU).
    with httpx.Client(timeout=5.0) as client:
        while time.monotonic() < end:
            try:
                if client.get(f"{url}/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
    raise RuntimeError(f"the test run's Prefect server at {url} did not answer in {seconds:.0f} s")


@contextmanager
def pointed_at(url: str) -> Iterator[None]:
    """Prefect in this process talks to the shared server, as the harness does with its own."""
    import prefect.context
    from prefect.settings import PREFECT_API_URL, temporary_settings

    wait_until_answering(url)
    _migrated_copy()  # nothing of this worker's is in the copy for the tests' own servers
    # The harness also makes these the process-wide settings (for contexts copied earlier).
    make_global = getattr(prefect.context, "_temporary_global_settings_context", None)
    with temporary_settings(updates={PREFECT_API_URL: url}):
        settings = prefect.context.get_settings_context()
        with make_global(settings) if make_global else nullcontext():
            try:
                yield
            finally:
                from chipcost.cli import prefect_server

                prefect_server._drain_prefect()


# Reading back what flows sent. Several workers share one server, and Prefect answers 200
# items a page: a test reads its own flow run's items, or every page. Pages are in an order
# that what other workers add meanwhile can only repeat an item, never skip one.
PAGE = 200


def artifacts_of(state) -> list:
    """The artifacts published by the flow run that ended in `state` (return_state=True)."""
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    run = state.state_details.flow_run_id
    only = ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run]))
    return _every_page("read_artifacts", artifact_filter=only, sort=_newest_artifacts())


def task_runs_of(state) -> list:
    """The task runs of the flow run that ended in `state` (return_state=True)."""
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    only = FlowRunFilter(id=FlowRunFilterId(any_=[state.state_details.flow_run_id]))
    return _every_page("read_task_runs", flow_run_filter=only)


def every_artifact(since=None) -> list:
    """Every artifact on the server, newest first; only those created at `since` or after,
    when given (a datetime: what a test's own runs published, and what other workers' runs
    published meanwhile), read page by page until an older one."""
    if since is None:
        return _every_page("read_artifacts", sort=_newest_artifacts())
    return _every_page(
        "read_artifacts", sort=_newest_artifacts(), until=lambda a: a.created < since
    )


def every_log(since=None) -> list:
    """Every log line on the server, oldest first; only those from `since` on, when given."""
    from prefect.client.schemas.filters import LogFilter, LogFilterTimestamp
    from prefect.client.schemas.sorting import LogSort

    after = None if since is None else LogFilter(timestamp=LogFilterTimestamp(after_=since))
    return _every_page("read_logs", log_filter=after, sort=LogSort.TIMESTAMP_ASC)


def _newest_artifacts():
    from prefect.client.schemas.sorting import ArtifactSort

    return ArtifactSort.CREATED_DESC


def _every_page(method: str, until=None, **filters) -> list:
    """Every item `method` reads, page by page; with `until`, up to the first item for which
    it holds (in the pages' own order)."""
    import asyncio

    from prefect.client.orchestration import get_client

    async def read() -> list:
        found: list = []
        async with get_client() as client:
            while True:
                page = await getattr(client, method)(**filters, limit=PAGE, offset=len(found))
                if until is not None and any(until(item) for item in page):
                    return found + [item for item in page[: _first(until, page)]]
                found.extend(page)
                if len(page) < PAGE:
                    return found

    return asyncio.run(read())


def _first(holds, items: list) -> int:
    return next(i for i, item in enumerate(items) if holds(item))
