"""The process-wide stop: handlers chained and restored, an ignored signal left ignored."""

from __future__ import annotations

import signal

from chipcost.core import stopping


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
