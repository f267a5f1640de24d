"""`--prefect` whose Prefect server goes away mid-run (killed with SIGKILL once it has recorded
a load): the command stops within 30 s with one line naming what it loaded and how to load the
rest, no traceback; the warehouse holds exactly that, and the same command loads the rest and,
finished, leaves no process behind.

The servers are real: the temporary one `collect` starts for itself (its child), and for
`backfill` the one PREFECT_API_URL names (started here, as a team runs one). Both commands
meet a server gone the same way (chipcost.cli.prefect_server.went_away, then ServerGone with
what was loaded); each says what it loaded in its own words. The archive is the bundled
sample's.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import duckdb
import httpx
import pytest

from chipcost.cli import prefect_server
from tests import procs, shared_prefect
from tests.conftest import SAMPLE
from tests.helpers import without_progress

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
RUNS = sorted(p.name for p in SAMPLE.iterdir() if p.is_dir())
# The load tasks the server must have recorded before it is killed: mid-run, some runs in.
LOADS_BEFORE_KILL = 2
WITHIN_SECONDS = 30

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def completed_loads(client: httpx.Client, url: str) -> int:
    """How many load-run task runs the server has recorded as completed (0 if it is busy)."""
    wanted = {
        "task_runs": {"name": {"like_": "load-run"}, "state": {"type": {"any_": ["COMPLETED"]}}}
    }
    try:
        return len(client.post(f"{url}/task_runs/filter", json=wanted, timeout=5).json())
    except (httpx.TransportError, ValueError):
        return 0


def temporary_server_of(pid: int) -> tuple[int, str] | None:
    """The command's own temporary server: its pid and API URL, once it is spawned."""
    for child in procs.descendants(pid):
        line = procs.cmdline(child)
        if prefect_server.__name__ in line:
            return child, f"http://127.0.0.1:{line[line.index(prefect_server.__name__) + 1]}/api"
    return None


@pytest.fixture
def env(tmp_path):
    """A command's environment: no Prefect settings but a home of its own (its database
    migrated, as after a first run). Whatever runs with that home after the test is ended."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(
        PREFECT_HOME=str(shared_prefect.migrated_home(tmp_path / "prefect")),
        CHIPCOST_DATA_DIR=str(tmp_path / "data"),
        COLUMNS="300",  # the line unwrapped, to read it back whole
    )
    yield env
    for pid in procs.with_environment("PREFECT_HOME", env["PREFECT_HOME"]):
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def configured_server(tmp_path):
    """A Prefect server of the test's own, as `prefect server start` runs one."""
    home = shared_prefect.migrated_home(Path(tempfile.mkdtemp(prefix="chipcost-test-gone-")))
    with mock.patch.dict(os.environ, {"PREFECT_HOME": str(home)}):
        port, process = prefect_server._spawn()
    url = f"http://127.0.0.1:{port}/api"
    try:
        shared_prefect.wait_until_answering(url)
        yield process, url
    finally:
        prefect_server._stop(process)
        shutil.rmtree(home, ignore_errors=True)


def test_a_collects_own_server_killed_mid_run_ends_it_in_one_line_and_a_rerun_finishes(
    tmp_path, env
):
    command = [CHIPCOST, "collect", "--replay", str(SAMPLE), "--prefect"]
    collect = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = pid = None
    try:
        deadline = time.monotonic() + 600
        with httpx.Client() as client:  # one for every poll (each loads the CA bundle)
            while time.monotonic() < deadline and collect.poll() is None:
                if url is None and (found := temporary_server_of(collect.pid)):
                    pid, url = found
                if url is not None and completed_loads(client, url) >= LOADS_BEFORE_KILL:
                    break
                time.sleep(0.2)
        assert collect.poll() is None, "the collect ended before the server was killed"
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        _, stderr = collect.communicate(timeout=300)
        took = time.monotonic() - killed
    finally:
        if collect.poll() is None:
            collect.kill()
            collect.wait()
    said = without_progress(stderr.decode())  # collect's progress lines come first
    assert collect.returncode == 1, said[-3000:]
    assert took < WITHIN_SECONDS, f"{took:.0f} s after the kill: {said[-2000:]}"
    assert "Traceback" not in said, said[-3000:]
    assert len(said.strip().splitlines()) == 1, said
    db = tmp_path / "data" / "chipcost.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        loaded = [r[0] for r in con.sql("SELECT archive_run FROM runs ORDER BY 1").fetchall()]
    assert LOADS_BEFORE_KILL <= len(loaded) < len(RUNS)
    span = loaded[0] if len(loaded) == 1 else f"{loaded[0]} … {loaded[-1]}"
    head = re.escape(f"error: the Prefect server at {url} stopped answering during the collection")
    assert re.match(head + r" \(Connection refused\): ", said), said
    assert f"{len(loaded)} of {len(RUNS)} runs loaded ({span}) into {db}, each whole" in said
    assert "Run the same command again to load the rest (loaded runs are skipped)" in said
    assert "without --prefect it needs no server" in said

    # As it says: the same command loads the rest, on a new temporary server of its own, and
    # leaves nothing running once it has finished.
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Traceback" not in again.stderr
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT archive_run FROM runs ORDER BY 1").fetchall() == [
            (run,) for run in RUNS
        ]
    assert procs.gone(procs.with_environment("PREFECT_HOME", env["PREFECT_HOME"]), 10) == []


def test_a_configured_server_killed_mid_backfill_ends_it_in_one_line(
    tmp_path, env, configured_server
):
    """`backfill --prefect`, the server killed once the older of two versions is loaded (the
    newer one's file still coming, 16 KB a second): one line naming what was loaded."""
    from tests.pipeline.test_backfill import FIXTURES, V2, V3_CSV, _runs_in
    from tests.price_files_server import Faults, serve

    process, url = configured_server
    db = tmp_path / "data" / "chipcost.duckdb"
    env = {**env, "PREFECT_API_URL": url}
    args = [CHIPCOST, "backfill", "--since", "2025-05-01", "--region", "us-east-1", "--prefect"]
    with serve(FIXTURES, Faults(trickle={V3_CSV: 16_384})) as files:
        env["CHIPCOST_AWS_PRICE_LIST_URL"] = files.url
        backfill = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 300
            while not _runs_in(db):
                assert backfill.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            process.kill()
            killed = time.monotonic()
            _, said = backfill.communicate(timeout=300)
            took = time.monotonic() - killed
        finally:
            if backfill.poll() is None:
                backfill.kill()
                backfill.wait()
    assert backfill.returncode == 1, said[-3000:]
    assert took < WITHIN_SECONDS, f"{took:.0f} s after the kill: {said[-2000:]}"
    assert "Traceback" not in said and len(said.strip().splitlines()) == 1, said
    assert said.startswith(
        f"error: the Prefect server at {url} stopped answering during the backfill "
        "(Connection refused): "
    ), said
    loaded = _runs_in(db)
    named = "1 version loaded" if loaded == 1 else f"{loaded} versions loaded"
    assert f"{named} ({V2}" in said, said
    assert "Run the same command again: it resumes where it stopped" in said
    assert "without --prefect it needs no server" in said
