"""The process-wide stop: handlers chained and restored, an ignored signal left ignored, a
closed pipe taken as a stop."""

from __future__ import annotations

import signal
import subprocess
import sys

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


# A collection's shape: the CLI's stop around the run, the run's own stop inside, progress
# lines on stderr while a fetch waits for the stop.
CHILD = """
import sys
from pathlib import Path
from chipcost.cli.failures import interruptible
from chipcost.core import stopping

said = Path(sys.argv[1])
def after() -> str:
    said.write_text("stopped in order" if stopping.stopping() else "not stopped")
    return "what was kept"

with interruptible(after), stopping.on_signals(grace=3600):
    for n in range(1000):
        sys.stderr.write(f"progress line {n}\\n")
        sys.stderr.flush()
        if stopping.STOP.wait(0.01):
            break
said.write_text("ran to its end")
"""


def test_a_closed_pipe_stops_the_run_in_order_as_sigterm_does(tmp_path):
    # `chipcost collect 2>&1 | head -1`: its second progress line met the closed pipe, and the
    # BrokenPipeError ended the run where it was (exit 141, the stop never said); now the
    # closed pipe is a stop like SIGTERM's: the run winds down and the stop's words are said
    # (to nowhere, the pipe being gone), exit 141.
    said = tmp_path / "said"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(said)], stderr=subprocess.PIPE, cwd=ROOT
    )
    assert child.stderr.readline() == b"progress line 0\n"
    child.stderr.close()  # head -1 has read its line
    assert child.wait(timeout=60) == 128 + signal.SIGPIPE
    assert said.read_text() == "stopped in order"
