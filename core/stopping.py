"""Stopping on time: the process-wide stop (SIGTERM, SIGINT, SIGHUP, the command's own output
gone) and a fetch's own deadline.

A signal (or the output's reader gone) during a collection or a backfill sets `STOP`: every
fetch ends its next wait or read chunk with a SourceError, so the run winds down, closes the
warehouse and says what it loaded. A thread blocked in a read that nothing arrives on cannot
see it; `GRACE_SECONDS` after the signal the process ends anyway (a load cut off is rolled
back by the warehouse, and a run archived but not loaded is loaded by the next collection).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

from chipcost.core.errors import SourceError
from chipcost.core.settings import SOURCE_DEADLINE_ENV

STOP = threading.Event()
# Seconds between a signal and the end of the process, whatever still runs.
GRACE_SECONDS = 10.0
# What stops a collection or a backfill in order: a scheduler's or a person's stop (SIGTERM,
# Ctrl-C's SIGINT), the terminal closed (SIGHUP). Those a system lacks are left out.
SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)
)
# The reader of the command's own output gone (`collect 2>&1 | head -1`) stops it too, said as
# SIGPIPE (exit 141), as a shell says it. Not the signal itself: the kernel sends SIGPIPE to
# any thread writing to a pipe or socket whose other end is gone (a provider resetting a
# kept-alive connection, S3 closing an upload early), which Python's sockets and OpenSSL do
# not hold back, and that write's BrokenPipeError is its own fetch's network error. A write to
# the standard output or error that finds its reader gone (output_gone) is the stop; it is
# told to the main thread as this signal, whose handlers take it then only (asks_to_stop).
OUTPUT_GONE: int | None = getattr(signal, "SIGPIPE", None)
# The signals a stop block handles: SIGNALS, and OUTPUT_GONE's, which Python starts ignoring
# whatever its parent did (so its SIG_IGN is not the caller's).
HANDLED = (*SIGNALS, OUTPUT_GONE) if OUTPUT_GONE is not None else SIGNALS
_OUTPUT_LOST = threading.Event()


def signal_name(signum: int) -> str:
    """'SIGTERM' for 15; a real-time signal, which has no name of its own, as 'SIGRTMIN+3'."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        low = getattr(signal, "SIGRTMIN", None)
        return f"SIGRTMIN+{signum - low}" if low is not None and signum > low else str(signum)


def stopping() -> bool:
    return STOP.is_set()


def asks_to_stop(signum: int) -> bool:
    """Whether a signal a stop block's handler got stops the run: any of SIGNALS; OUTPUT_GONE
    (SIGPIPE) only once a write found the command's own output gone, not the kernel's for a
    socket whose peer is gone."""
    return signum != OUTPUT_GONE or _OUTPUT_LOST.is_set()


def output_gone(fd: int) -> bool:
    """A write to the standard output (1) or error (2) failed with EPIPE, its reader gone. While
    a stop block runs (a collection, a backfill), from whatever thread wrote: the stream is
    pointed at the null device (the wind-down and its last words then write nowhere) and the
    run stops as a signal stops it, said as SIGPIPE; True. Elsewhere False: the write's error
    ends the command as on any closed pipe (exit 141, nothing said)."""
    if OUTPUT_GONE is None or fd not in (1, 2) or not callable(signal.getsignal(OUTPUT_GONE)):
        return False
    _to_null(fd)
    quiet_dead_streams()  # the other stream too, where it is the same pipe (2>&1)
    if not _OUTPUT_LOST.is_set():
        _OUTPUT_LOST.set()
        # Sent, not simulated (_thread.interrupt_main): only a signal wakes a main thread
        # blocked waiting on a fetch's result.
        signal.pthread_kill(threading.main_thread().ident, OUTPUT_GONE)
    return True


def check(where: str, deadline: Deadline | None, stop: threading.Event | None = None) -> None:
    """SourceError when the process (or the `stop` of whoever runs the fetch) is stopping, or
    the fetch's deadline has passed: called before each request, wait, page and chunk."""
    if STOP.is_set() or (stop is not None and stop.is_set()):
        raise SourceError(f"{where}: stopped, as the run was asked to stop: run again")
    if deadline is not None and deadline.left() <= 0:
        raise SourceError(
            f"{where}: not done within the source's {deadline.seconds:,.0f} s deadline "
            f"({SOURCE_DEADLINE_ENV}): the provider is slow or stalling; run again later, or "
            "raise the deadline"
        )


def pause(seconds: float) -> None:
    """time.sleep that ends at once when the process is asked to stop."""
    STOP.wait(max(seconds, 0.0))


@dataclass(frozen=True)
class Deadline:
    """A fetch's whole budget: connect, reads, retry waits and downloads together."""

    seconds: float
    ends: float  # on time.monotonic's clock

    @classmethod
    def after(cls, seconds: float, clock: Callable[[], float] = time.monotonic) -> Deadline:
        return cls(seconds, clock() + seconds)

    def left(self, clock: Callable[[], float] = time.monotonic) -> float:
        return self.ends - clock()


@contextmanager
def on_signals(grace: float = GRACE_SECONDS) -> Iterator[None]:
    """While the block runs (in the main thread), SIGTERM, SIGINT, SIGHUP and the output gone
    (output_gone) set STOP and then do what they did before (Prefect's bridge raises in the
    flow, the CLI's handler says what was done); a process still alive `grace` seconds later
    ends with 128 + the signal's number. Elsewhere than the main thread a handler cannot be
    set: the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A signal the process was started ignoring (SIGINT in a background job) stays ignored.
    previous = {
        signum: handler
        for signum in HANDLED
        if (handler := signal.getsignal(signum)) != signal.SIG_IGN or signum == OUTPUT_GONE
    }

    def handler(signum: int, frame: FrameType | None) -> None:
        if not asks_to_stop(signum):
            return  # a socket's broken pipe: its write's BrokenPipeError is its fetch's error
        quiet_dead_streams()
        if not STOP.is_set():
            STOP.set()
            _watchdog(signum, grace)
        chained = previous[signum]
        if callable(chained):
            chained(signum, frame)
        elif chained == signal.SIG_DFL:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            _end(signum)

    for signum in previous:
        signal.signal(signum, handler)
    try:
        yield
    finally:
        # The watchdog, once started, stays: what keeps a process from ending after the block
        # (a thread pool waiting on a stalled read) is what it is there for.
        for signum, was in previous.items():
            signal.signal(signum, was)


def quiet_dead_streams() -> None:
    """Point the standard output and error at the null device where what read them is gone (a
    pipe whose reader closed, a terminal hung up): the run's wind-down and its last words then
    write nowhere, instead of failing each write with BrokenPipeError or EIO."""
    import select

    if not hasattr(select, "poll"):
        return
    for fd in (1, 2):
        watch = select.poll()
        try:
            watch.register(fd, 0)
            gone = any(events & (select.POLLERR | select.POLLHUP) for _, events in watch.poll(0))
            if gone:
                _to_null(fd)
        except (OSError, ValueError):  # closed, or not a descriptor that can be watched
            continue


def _to_null(fd: int) -> None:
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def _watchdog(signum: int, grace: float) -> None:
    def end_late() -> None:
        time.sleep(grace)
        name = signal.Signals(signum).name
        sys.stderr.write(
            f"stopped: {name} received {grace:g} s ago and a fetch is still waiting on its "
            "provider; ending now. The warehouse keeps what was committed; runs archived but "
            "not loaded are loaded by the next `chipcost collect`.\n"
        )
        sys.stderr.flush()
        _end(signum)

    threading.Thread(target=end_late, name="chipcost-stop", daemon=True).start()


def _end(signum: int) -> None:
    os._exit(128 + signum)
