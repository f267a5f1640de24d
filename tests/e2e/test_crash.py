"""Crash safety with real processes: SIGKILL in the middle of a load, two collectors at once.

A test injects a stall into the load (tests/stall.py): it writes a marker file inside the
open transaction and waits until the file is removed, so a test knows the process is
mid-load before it kills it. What is killed or stopped runs as a process of its own (the real
`chipcost collect` command); the state before it and the checks after it are made in the test's
process.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from chipcost.core.record import PriceRecord
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.collecting import collect
from tests.fault_server import drip, fault_server, stall
from tests.helpers import day, record, run_of
from tests.paths import ROOT

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
TABLES = ("runs", "source_runs", "observations", "price_history", "rejects")
DATA_TABLES = ("observations", "price_history", "rejects")
WAIT_SECONDS = 180


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """The environment of a collector: a quiet log, its data in the test's directory."""
    return {
        **os.environ,
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "CHIPCOST_DATA_DIR": str(tmp_path),
    }


@pytest.fixture
def runs(tmp_path, sample_runs) -> list[Path]:
    """Two archived runs, each a directory on its own so it can be replayed alone."""
    copies = []
    for run in sample_runs[:2]:
        shutil.copytree(run, tmp_path / "archive" / run.name)
        copies.append(tmp_path / "archive" / run.name)
    return copies


def snapshot(db: Path, tables: tuple[str, ...] = TABLES) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}
    finally:
        con.close()


def collector(run: Path, db: Path, env: dict, stall: Path | None = None) -> subprocess.Popen:
    command = ["collect", "--replay", str(run), "--db", str(db)]
    stalled = [sys.executable, "-m", "tests.stall", str(stall), "chipcost"] if stall else None
    return subprocess.Popen(
        [*stalled, *command] if stalled else [CHIPCOST, *command],
        cwd=ROOT,
        env={**env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=WAIT_SECONDS)
    return process.returncode, out, err


def wait_for(marker: Path, *processes: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not marker.exists():
        assert time.monotonic() < deadline, f"no process reached the load within {WAIT_SECONDS} s"
        for process in processes:
            assert process.poll() is None or marker.exists(), finish(process)
        time.sleep(0.05)


def test_sigkill_mid_load_leaves_the_previous_state_and_the_next_run_succeeds(tmp_path, runs, env):
    db = warehouses.sample(tmp_path / "w.duckdb", first=1)  # runs[0] replayed
    before = snapshot(db)

    marker = tmp_path / "loading"
    victim = collector(runs[1], db, env, stall=marker)
    wait_for(marker, victim)
    os.kill(victim.pid, signal.SIGKILL)
    victim.communicate(timeout=WAIT_SECONDS)
    assert victim.returncode == -signal.SIGKILL
    marker.unlink()

    assert snapshot(db) == before, "a killed load must leave the warehouse exactly as it was"
    code, out, err = finish(collector(runs[1], db, env))
    assert code == 0, err
    after = snapshot(db)
    loaded = {row[10] for row in after["source_runs"]}  # archive_run
    assert loaded == {runs[0].name, runs[1].name}
    assert len(after["runs"]) == 2 and len(after["price_history"]) >= len(before["price_history"])

    # The same archive again adds nothing.
    [again] = collect(replay=str(runs[1]), db=str(db), data_dir=str(tmp_path))
    assert again.run.status == "already_loaded"
    assert snapshot(db, DATA_TABLES) == {t: after[t] for t in DATA_TABLES}


def test_ctrl_c_mid_replay_says_what_was_loaded_and_the_same_command_loads_the_rest(
    tmp_path, runs, env
):
    db, marker = tmp_path / "w.duckdb", tmp_path / "loading"
    archive = runs[0].parent
    replay = collector(archive, db, env, stall=marker)
    wait_for(marker, replay)
    marker.unlink()  # the first run's load commits
    wait_for(marker, replay)  # the second run's load is open
    replay.send_signal(signal.SIGINT)
    code, out, err = finish(replay)
    marker.unlink(missing_ok=True)
    assert code == 130, err
    assert "Traceback" not in err and "Query interrupted" not in err
    assert f"interrupted: 1 of 2 runs loaded ({runs[0].name}) into {db}" in err, err
    assert "nothing of the run under way. Run the same command again to load the rest" in err
    loaded = {row[10] for row in snapshot(db)["source_runs"]}  # archive_run
    assert loaded == {runs[0].name}, "the interrupted load must leave nothing of its run"

    code, out, err = finish(collector(archive, db, env))
    assert code == 0, err
    assert {row[10] for row in snapshot(db)["source_runs"]} == {r.name for r in runs}


def test_two_collectors_at_once_one_runs_the_other_says_why(tmp_path, runs, env):
    db = tmp_path / "w.duckdb"
    markers = [tmp_path / "first", tmp_path / "second"]
    both = [collector(runs[0], db, env, stall=m) for m in markers]
    deadline = time.monotonic() + WAIT_SECONDS
    # The loser may give up before the winner reaches its load: wait for the winner's marker.
    while not any(m.exists() for m in markers):
        alive = [p for p in both if p.poll() is None]
        assert alive and time.monotonic() < deadline, [p.returncode for p in both]
        time.sleep(0.05)
    running = next(i for i, m in enumerate(markers) if m.exists())
    code, _, err = finish(both[1 - running])
    assert code == 1
    assert "in use by another run" in err and "Traceback" not in err
    assert not markers[1 - running].exists()
    markers[running].unlink()  # let the first one finish its load
    code, _, err = finish(both[running])
    assert code == 0, err
    assert snapshot(db)["runs"], "the collector that ran loaded its run"


def many_offers(n: int) -> list[PriceRecord]:
    """n offers of one shape, each in a zone of its own."""
    return [
        replace(record(), region=f"r{i % 97}", zone=f"z{i}", price_per_hour=1.0 + i % 50)
        for i in range(n)
    ]


def test_sigkill_during_a_large_load(tmp_path):
    """150,000 records (large enough for DuckDB to write blocks before the commit)."""
    db = tmp_path / "w.duckdb"
    marker = tmp_path / "loading"
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from tests.e2e.test_crash import many_offers
        from tests.helpers import day, run_of
        from tests.stall import stall_loads
        from chipcost.pipeline.seed import open_warehouse
        from chipcost.warehouse.load import load_run
        stall_loads(Path(sys.argv[1]))
        con = open_warehouse({str(db)!r})
        load_run(con, run_of(many_offers(150_000), day(1)))
        """
    )
    warehouses.of_runs(db, [run_of(many_offers(1000), day(0))])
    before = snapshot(db)
    victim = subprocess.Popen([sys.executable, "-c", script, str(marker)], cwd=ROOT)
    wait_for(marker, victim)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=WAIT_SECONDS)
    marker.unlink()
    assert snapshot(db) == before
    con = open_warehouse(db)  # the next load opens the file and succeeds
    try:
        load_run(con, run_of(many_offers(2000), day(2)))
    finally:
        con.close()
    assert len(snapshot(db)["observations"]) == 3000


def fetcher(env: dict, url: str) -> subprocess.Popen:
    """`chipcost collect --source aws-spot-feed` against a local server standing in for AWS."""
    return subprocess.Popen(
        [CHIPCOST, "collect", "--source", "aws-spot-feed"],
        cwd=ROOT,
        env={**env, "CHIPCOST_AWS_SPOT_FEED_URL": url},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def asked(server, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not server.requests:
        assert time.monotonic() < deadline, "the collector never asked the server"
        assert process.poll() is None, finish(process)
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        # A byte every 2 s: no read ever times out. The fetch sees the stop at its next byte,
        # the run winds down and says what it kept.
        (drip(b" " * 5000, 2.0), "stopped (SIGTERM): nothing was loaded"),
        # Nothing at all: the read blocks; the process ends at the grace period's end.
        (stall(600), "stopped: SIGTERM received 10 s ago and a fetch is still waiting"),
    ],
    ids=["trickling", "silent"],
)
def test_sigterm_ends_a_collection_stuck_on_a_provider_within_seconds(env, answer, said):
    """On 368c4bd a collection held by a slow provider ignored SIGTERM for over 9 minutes."""
    with fault_server(answer) as server:
        process = fetcher(env, f"{server.url}/spot.js")
        asked(server, process)
        time.sleep(1)  # inside the read
        process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        code, _, err = finish(process)
        took = time.monotonic() - started
    assert code == 128 + signal.SIGTERM, err
    assert said in err and "Traceback" not in err
    assert took < 20, f"took {took:.0f} s after SIGTERM"


def test_a_closed_terminal_stops_a_collection_in_order(env, tmp_path):
    """SIGHUP (the terminal closed) ended a live collection at once, exit 129 and no word,
    while SIGTERM and Ctrl-C stopped it in order; now it stops as SIGTERM does."""
    with fault_server(drip(b" " * 5000, 2.0)) as server:
        process = fetcher(env, f"{server.url}/spot.js")
        asked(server, process)
        process.send_signal(signal.SIGHUP)
        code, _, err = finish(process)
    assert code == 128 + signal.SIGHUP, err
    assert "stopped (SIGHUP): nothing was loaded" in err and "Traceback" not in err
    assert not [p for p in (tmp_path / "archive").rglob("manifest.json")]
    # stopped inside its one source's read, nothing archived: the stop says nothing fetched is
    # waiting (a fetch still winding down when it is said may keep the run's marker, which the
    # next collect drops: collection._drop_if_empty; tests/pipeline/test_pending.py)
    assert "Nothing fetched is waiting" in err and "pending" not in err, err
    again = subprocess.run(
        [CHIPCOST, "collect", "--pending"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    assert not list((tmp_path / "pending").glob("*.json"))  # dropped: it held nothing
