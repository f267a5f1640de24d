"""A collection meets a warehouse another process holds (tests/holders.py): it says who holds
it and how long it waited, and what it fetched stays pending, loaded by `collect --pending`. The
command in-process (tests.cli_runner) on a warehouse already made (tests/warehouses.py); the
live run fetches from a local HTTP server. The processes at once: tests/e2e/test_busy_warehouse.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import warehouses
from tests.aws_stubs import collector_env
from tests.cli_runner import Ran
from tests.cli_runner import chipcost as run_chipcost
from tests.helpers import rows, words
from tests.holders import holding
from tests.paths import FIXTURES, ROOT
from tests.price_files_server import serve

FEED = "aws-spot-feed"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """A collector's environment: no AWS credentials (the public feed runs)."""
    return collector_env(tmp_path)


@pytest.fixture
def db(tmp_path) -> Path:
    return warehouses.new(tmp_path / "w.duckdb")


def chipcost(*args: str, env: dict, **changes: str) -> Ran:
    return run_chipcost(*args, env={**env, **changes}, cwd=ROOT)


def test_a_replay_that_waits_too_long_names_the_holder(db, env, sample_runs):
    with holding(db, read_only=True) as holder:
        done = chipcost(
            "collect", "--replay", str(sample_runs[0]), "--db", str(db), env=env,
            CHIPCOST_LOCK_WAIT="1",
        )  # fmt: skip
    assert done.returncode == 1
    err = words(done.stderr)
    assert f"is in use by process {holder.pid}" in err and "waited 1 s" in err
    assert "CHIPCOST_LOCK_WAIT" in err and "Traceback" not in err
    assert rows(db, "SELECT count(*) FROM runs") == [(0,)]


def test_a_refused_live_load_stays_pending_and_collect_pending_loads_it(db, env, tmp_path):
    with serve(FIXTURES) as server:
        env = {**env, "CHIPCOST_AWS_SPOT_FEED_URL": f"{server.url}/{FEED}/spot.js"}
        with holding(db, read_only=True) as holder:
            refused = chipcost(
                "collect", "--source", FEED, "--db", str(db), env=env, CHIPCOST_LOCK_WAIT="1"
            )
        assert server.hits("/spot.js"), "the feed was fetched before the load was refused"
    assert refused.returncode == 1, refused.stderr
    err = words(refused.stderr)
    assert f"process {holder.pid}" in err and "chipcost collect --pending" in err
    assert "Traceback" not in err
    [run_dir] = (tmp_path / "archive").iterdir()
    manifest = json.loads((run_dir / FEED / "manifest.json").read_text())
    assert manifest["complete"] is True and len(manifest["payloads"]) == 1
    assert [p.stem for p in (tmp_path / "pending").iterdir()] == [run_dir.name]
    assert rows(db, "SELECT count(*) FROM runs") == [(0,)]

    loaded = chipcost("collect", "--pending", "--db", str(db), env=env)
    assert loaded.returncode == 0, loaded.stderr
    assert rows(db, "SELECT archive_run, mode, status FROM runs") == [(run_dir.name, "live", "ok")]
    assert rows(db, "SELECT count(*) > 0 FROM price_history WHERE source = 'aws-spot-feed'")[0][0]
    assert not list((tmp_path / "pending").iterdir())

    again = chipcost("collect", "--pending", "--db", str(db), env=env)
    assert again.returncode == 0, again.stderr
    assert "no pending runs" in again.stdout
