"""A collection and another process on one warehouse, all real processes: a replay waits for
a reader to let go and then loads; a live run killed mid-load is loaded, first, by the next
collect. The real `chipcost collect` command, on a warehouse already made (tests/warehouses.py);
live runs fetch from a local HTTP server. What a collector says when it waits too long and
that a refused live load stays pending: tests/cli/test_held_warehouse.py, in-process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import warehouses
from tests.aws_stubs import collector_env
from tests.helpers import rows, words
from tests.holders import holding, release
from tests.paths import FIXTURES, ROOT
from tests.price_files_server import serve

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
TIMEOUT = 240
FEED = "aws-spot-feed"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """A collector's environment: no AWS credentials (the public feed runs)."""
    return collector_env(tmp_path)


@pytest.fixture
def db(tmp_path) -> Path:
    return warehouses.new(tmp_path / "w.duckdb")


def chipcost(*args: str, env: dict, **changes: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHIPCOST, *args],
        cwd=ROOT,
        env={**env, **changes},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_a_replay_waits_for_a_reader_then_loads(db, env, sample_runs, tmp_path):
    with holding(db, read_only=True) as holder, open(tmp_path / "stdout", "w") as stdout:
        collector = subprocess.Popen(
            [CHIPCOST, "collect", "--replay", str(sample_runs[0]), "--db", str(db)],
            cwd=ROOT,
            env={**env, "CHIPCOST_LOCK_WAIT": "200"},
            stdout=stdout,  # the child keeps its own copy
            stderr=subprocess.PIPE,
            text=True,
        )
        seen = []
        # The reader lets go only once the collector says it is waiting for it.
        while not any(line.startswith("waiting for") for line in seen):
            line = collector.stderr.readline()
            assert line or collector.poll() is None, "".join(seen)
            seen.append(line)
        assert f"process {holder.pid}" in words("".join(seen))
        release(holder)
        _, err = collector.communicate(timeout=TIMEOUT)
    assert collector.returncode == 0, "".join(seen) + err
    assert "is free: going on" in err
    assert rows(db, "SELECT archive_run, status FROM runs") == [(sample_runs[0].name, "ok")]


def test_a_live_run_killed_mid_load_is_loaded_by_the_next_collect_first(db, env, tmp_path):
    marker = tmp_path / "loading"
    with serve(FIXTURES) as server:
        env = {**env, "CHIPCOST_AWS_SPOT_FEED_URL": f"{server.url}/{FEED}/spot.js"}
        victim = subprocess.Popen(
            [sys.executable, "-m", "tests.stall", str(marker), "chipcost"]
            + ["collect", "--source", FEED, "--db", str(db)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + TIMEOUT
        while not marker.exists():
            assert victim.poll() is None and time.monotonic() < deadline, "never reached the load"
            time.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=TIMEOUT)
        marker.unlink()
        [killed] = [p.stem for p in (tmp_path / "pending").iterdir()]
        assert rows(db, "SELECT count(*) FROM runs") == [(0,)]
        time.sleep(1)  # the next run's archive stamp is a second later at least
        nxt = chipcost("collect", "--source", FEED, "--db", str(db), env=env)
    assert nxt.returncode == 0, nxt.stderr
    runs = rows(db, "SELECT archive_run, mode, status FROM runs ORDER BY observed_at")
    assert len(runs) == 2 and runs[0] == (killed, "live", "ok") and runs[1][1:] == ("live", "ok")
    loaded_in_order = rows(db, "SELECT archive_run FROM runs ORDER BY finished_at")
    assert [r[0] for r in loaded_in_order] == [killed, runs[1][0]], "the pending run loads first"
    assert killed in nxt.stdout and runs[1][0] in nxt.stdout
    assert not list((tmp_path / "pending").iterdir())
