"""What ends AIPerf's group when chipcost cannot (chipcost.pipeline.aiperf_group), each on its
own, with real processes: the kernel's signal to the leader when its parent dies
(dies_with_chipcost, Linux) and the watcher that ends the group when its pipe ends without
'done'. tests/cli/test_measure_signals.py kills a real `chipcost measure` with both at work."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chipcost.pipeline.aiperf_group import dies_with_chipcost, watched
from tests.procs import alive, gone

# A stand-in for AIPerf's leader: says which signal ended it in the file it is given.
LEADER = """
import pathlib, signal, sys, time
said = pathlib.Path(sys.argv[1])
def ended(signum, frame):
    said.write_text(signal.Signals(signum).name)
    sys.exit(0)
signal.signal(signal.SIGTERM, ended)
said.write_text("ready")
time.sleep(300)
"""
# chipcost's part: the leader started in a session of its own with dies_with_chipcost, its id
# printed, then a wait for the test to kill it.
PARENT = """
import subprocess, sys, time
from chipcost.pipeline.aiperf_group import dies_with_chipcost
leader = subprocess.Popen(
    [sys.executable, "-c", sys.argv[1], sys.argv[2]], start_new_session=True,
    preexec_fn=dies_with_chipcost(),
)
print(leader.pid, flush=True)
time.sleep(300)
"""


def _until(check, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while not check() and time.monotonic() < end:
        time.sleep(0.1)
    return check()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_leader_is_sent_sigterm_when_chipcost_is_killed(tmp_path):
    said = tmp_path / "said"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, LEADER, str(said)], stdout=subprocess.PIPE, text=True
    )
    leader = int(parent.stdout.readline())
    try:
        assert _until(lambda: said.exists() and said.read_text() == "ready")
        parent.kill()  # no handler runs: the kernel signals the leader
        parent.wait()
        assert _until(lambda: said.read_text() == "SIGTERM"), said.read_text()
        assert gone([leader], 10) == []
    finally:
        if alive(leader):
            os.kill(leader, signal.SIGKILL)
        parent.stdout.close()


def test_elsewhere_than_linux_nothing_is_armed(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert dies_with_chipcost() is None


def _group(tmp_path: Path) -> tuple[subprocess.Popen, list[int]]:
    """A group led by a process with a child of its own, neither armed against its parent's
    death: (the leader, both ids)."""
    ids = tmp_path / "ids"
    script = (
        "import os, pathlib, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"pathlib.Path({str(ids)!r}).write_text(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(300)\n"
    )
    leader = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    assert _until(lambda: ids.exists() and len(ids.read_text().split()) == 2)
    return leader, [int(p) for p in ids.read_text().split()]


def test_a_watcher_ends_the_group_when_its_pipe_ends_without_done(tmp_path):
    leader, pids = _group(tmp_path)
    try:
        watcher, pipe = watched(leader.pid)
        os.close(pipe)  # as when chipcost dies
        assert watcher.wait(10) == 0
        assert gone(pids, 10) == []
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        leader.wait()


def test_a_watcher_sent_away_leaves_the_group_alone(tmp_path):
    leader, pids = _group(tmp_path)
    try:
        watcher, pipe = watched(leader.pid)
        os.write(pipe, b"done")
        os.close(pipe)
        assert watcher.wait(10) == 0
        assert all(alive(p) for p in pids)
    finally:
        os.killpg(leader.pid, signal.SIGKILL)
        leader.wait()
