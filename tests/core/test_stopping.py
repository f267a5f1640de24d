"""The process-wide stop: handlers chained and restored, an ignored signal left ignored, the
command's closed output taken as a stop, a broken socket not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from chipcost.core import stopping
from tests.paths import ROOT


def test_handlers_are_chained_while_the_block_runs_and_restored_after():
    seen = []

    def before(signum, frame):
        seen.append(signum)

    old = signal.signal(signal.SIGTERM, before)
    try:
        with stopping.on_signals(grace=3600):
            assert signal.getsignal(signal.SIGTERM) is not before
        assert signal.getsignal(signal.SIGTERM) is before
    finally:
        signal.signal(signal.SIGTERM, old)
        stopping.STOP.clear()


def test_a_signal_the_process_ignores_stays_ignored():
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with stopping.on_signals(grace=3600):
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)


def test_a_deadline_counts_down():
    deadline = stopping.Deadline.after(100)
    assert 99 < deadline.left() <= 100 and deadline.seconds == 100


# A collection's shape: the CLI's stop around the run, its progress shown (collect's), the
# run's own stop inside, a fetch on a worker thread saying its progress as it goes (as each
# source's outcome is said from the thread that fetched it) until the stop.
CHILD = """
import logging, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from chipcost.cli.collect_progress import Shown, shown_on
from chipcost.cli.failures import interruptible
from chipcost.core import stopping

said = Path(sys.argv[1])
def say(what: str) -> None:
    with said.open("a") as file:
        file.write(what + "\\n")

def after() -> str:
    say("stopped in order" if stopping.stopping() else "not stopped")
    return "what was kept"

def fetch() -> None:
    for n in range(1000):
        done = SimpleNamespace(status="ok", seconds=0.0, source=f"source{n}", message="fetched")
        logging.getLogger("chipcost.progress").info("done", extra={"source_finished": done})
        if stopping.STOP.wait(0.01):
            say("the fetch saw the stop")
            return
    say("the fetch ran to its end")

with interruptible(after), shown_on(Shown(None), "collecting"), stopping.on_signals(grace=3600):
    with ThreadPoolExecutor(1) as pool:
        pool.submit(fetch).result()
say("the run ran to its end")
"""


@pytest.mark.parametrize("bar", [False, True], ids=["plain lines", "rich's bar"])
def test_a_closed_output_pipe_stops_the_run_in_order_as_sigterm_does(tmp_path, bar):
    # `chipcost collect 2>&1 | head -1`: its second progress line met the closed pipe, and the
    # BrokenPipeError ended the run where it was (exit 141, the stop never said); now the
    # closed pipe is a stop like SIGTERM's: the run winds down and the stop's words are said
    # (to nowhere, the pipe being gone), exit 141. The lines are written from a worker thread,
    # plainly or through rich's bar (a terminal said to be one: TTY_COMPATIBLE=1), while the
    # main thread waits on its result, as a collection's does.
    said = tmp_path / "said"
    env = {**os.environ, "TTY_COMPATIBLE": "1" if bar else "0"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(said)], stderr=subprocess.PIPE, cwd=ROOT, env=env
    )
    assert child.stderr.readline()
    child.stderr.close()  # head -1 has read its line
    assert child.wait(timeout=60) == 128 + signal.SIGPIPE
    # Both, in either order: the stop can land while the main thread is still starting the
    # worker (its first line is the main thread's "collecting", so the pipe may close before
    # the worker's first write), before the pool counts the thread it started, and the pool
    # then leaves without waiting for it, as the collection's runner never waits for a fetch
    # a stop left (pipeline/runners.py): the fetch sees the stop all the same.
    assert sorted(said.read_text().splitlines()) == ["stopped in order", "the fetch saw the stop"]


# A fetch on a worker thread writing to a connection its provider has closed (a kept-alive
# connection reset, S3 ending an upload early), within the CLI's and the run's stops.
SOCKET = """
import socket, sys, threading
from pathlib import Path
from chipcost.cli.failures import interruptible
from chipcost.core import stopping

said = Path(sys.argv[1])
errors = []
def fetch() -> None:
    ours, providers = socket.socketpair()
    providers.close()
    try:
        for _ in range(3):
            ours.sendall(b"x" * 65536)
    except OSError as exc:
        errors.append(type(exc).__name__)

with interruptible(lambda: "what was kept"), stopping.on_signals(grace=3600):
    worker = threading.Thread(target=fetch)
    worker.start()
    worker.join()
    for _ in range(1000):  # the main thread runs on: a signal pending is handled meanwhile
        pass
    stop = stopping.stopping()
said.write_text(f"{errors} stop={stop}")
"""


def test_a_broken_socket_in_a_fetch_is_its_own_error_not_a_stop(tmp_path):
    # SIGPIPE was a stop: the kernel sends it to a thread writing to a socket whose peer is
    # gone, so one provider resetting a connection stopped every source ('stopped (SIGPIPE)',
    # exit 141). The write's BrokenPipeError is that fetch's network error; the run goes on.
    said = tmp_path / "said"
    child = subprocess.run(
        [sys.executable, "-c", SOCKET, str(said)], capture_output=True, cwd=ROOT, timeout=60
    )
    assert child.returncode == 0, child.stderr
    assert said.read_text() == "['BrokenPipeError'] stop=False"
