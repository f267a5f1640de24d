"""PostgreSQL killed in the middle of a load into the lake: one line that says what happened
and what to do, nothing committed, and the same command loads the run once it is back.

On main at 368c4bd the collection ended with the postgres extension's own words
("Failed to execute query "ROLLBACK"", or "Flow run encountered an exception: IOException:
... Failed to query most recent snapshot for DuckLake"), as an unexpected crash of the flow.
A cluster of its own: the session's is shared by every lake test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import pg_server as pg
from tests.paths import ROOT

WAIT_SECONDS = 180


@pytest.fixture
def own_server():
    if not pg.available():
        pytest.skip("PostgreSQL 15 is not installed (apt-get install postgresql-15)")
    with pg.running() as server:
        yield server


def collector(env: dict, run: Path, url: str, marker: Path | None = None) -> subprocess.Popen:
    command = ["collect", "--replay", str(run), "--db", url]
    stalled = [sys.executable, "-m", "tests.stall", str(marker), "chipcost"] if marker else None
    chipcost = str(Path(sys.executable).with_name("chipcost"))
    return subprocess.Popen(
        [*stalled, *command] if stalled else [chipcost, *command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_postgres_killed_mid_load_is_one_line_and_the_same_command_recovers(
    own_server, tmp_path, sample_runs
):
    env = {
        **os.environ,
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "CHIPCOST_DATA_DIR": str(tmp_path),
        "CHIPCOST_LAKE_DATA": str(tmp_path / "lake-data"),
    }
    url = "ducklake:postgres:" + own_server.conninfo(own_server.new_database())
    marker = tmp_path / "loading"
    process = collector(env, sample_runs[0], url, marker)
    deadline = time.monotonic() + WAIT_SECONDS
    while not marker.exists():
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.05)
    own_server.stop("immediate")  # a crash: every connection cut, no shutdown
    marker.unlink()
    _, err = process.communicate(timeout=WAIT_SECONDS)

    assert process.returncode == 1, err
    assert "stopped answering during the load: its PostgreSQL catalog was stopped" in err, err
    assert "Nothing of the run was committed; check that PostgreSQL is running" in err
    assert "Traceback" not in err and "Flow run encountered an exception" not in err
    assert pg.PASSWORD not in err

    own_server.start()
    again = collector(env, sample_runs[0], url)
    out, err = again.communicate(timeout=WAIT_SECONDS)
    assert again.returncode == 0, err
    assert "records" in out


@pytest.mark.parametrize(
    ("said", "phrase"),
    [
        ('Failed to execute query "ROLLBACK": no connection to the server', "ROLLBACK"),
        ("server closed the connection unexpectedly", "server closed the connection"),
        ("FATAL: terminating connection due to administrator command", "terminating connection"),
    ],
)
def test_each_way_postgres_goes_away_is_told_as_such(said, phrase):
    from chipcost.core.settings import Warehouse
    from chipcost.warehouse.lake import lost

    lake = Warehouse("ducklake:postgres:dbname=w host=db password=hunter22", "/tmp/x")
    error = lost(lake, RuntimeError(f"IO Error: {said}"))
    assert error is not None and phrase in str(error) and "hunter22" not in str(error)
    assert lost(lake, RuntimeError("Binder Error: column x not found")) is None


def test_a_failed_maintenance_says_the_loads_stand_and_masks_the_password():
    from chipcost.warehouse.lake import maintenance_failed

    text = maintenance_failed(RuntimeError("IO Error: at postgresql://u:hunter22@db/w: boom"))
    assert "The loads stand and nothing is lost; the next collection tries again" in text
    assert "hunter22" not in text
