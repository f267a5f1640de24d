"""AIPerf's process group, ended with `chipcost measure` whatever its way out.

AIPerf runs in a session of its own (its services are its children), which no signal from the
terminal reaches, so chipcost ends the whole group itself: when a run ends, fails or times out
(end_group), and on every signal whose default action would end chipcost (stopped_on_signals).
Where no handler can run (SIGKILL, a crash), the group ends without chipcost: a watcher of its
own ends it when chipcost's pipe to it closes (watched), and on Linux the kernel sends the
group's leader SIGTERM (dies_with_chipcost), on which AIPerf 0.13 ends and its services, armed
the same way by AIPerf, follow (docs/measure.md)."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from chipcost.core.stopping import signal_name

# Every signal whose default action ends a process and that a handler can take, where the
# system has it: Ctrl-C (SIGINT), SIGTERM, SIGHUP (the terminal closed), SIGQUIT (Ctrl-\), the
# user's (SIGUSR1, SIGUSR2), timers' (SIGALRM, SIGVTALRM, SIGPROF), limits' (SIGXCPU, SIGXFSZ),
# power failing (SIGPWR), I/O (SIGIO), SIGSTKFLT, SIGEMT and the real-time signals. Not the
# faults a program's own error raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS,
# SIGABRT: nothing safe runs after one), nor SIGKILL, which nothing catches: after those the
# group ends by itself (dies_with_chipcost, watched). Nor SIGPIPE, which Python ignores so
# that a write to a closed pipe fails as an error: chipcost's own writes raise it (to a
# watcher, to a closed terminal), so it is no request to stop.
_ENDING = (
    "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM",
    "SIGPROF", "SIGXCPU", "SIGXFSZ", "SIGPWR", "SIGIO", "SIGSTKFLT", "SIGEMT",
)  # fmt: skip
_REALTIME = range(signal.SIGRTMIN, signal.SIGRTMAX + 1) if hasattr(signal, "SIGRTMIN") else range(0)
STOP_SIGNALS: tuple[int, ...] = tuple(
    dict.fromkeys([*(getattr(signal, n) for n in _ENDING if hasattr(signal, n)), *_REALTIME])
)
# Python itself ignores SIGXFSZ at start (a write past the file size limit then fails with an
# error): that SIG_IGN is not the caller's, so it is taken all the same.
_PYTHON_IGNORES = frozenset([signal.SIGXFSZ] if hasattr(signal, "SIGXFSZ") else [])
# linux/prctl.h: the signal the kernel sends a process when the thread that started it ends.
PR_SET_PDEATHSIG = 1
# What a watcher runs (watched): it reads its pipe from chipcost to the end, which comes when
# chipcost closes it or dies, however it dies; an end without 'done' first means chipcost died
# with the group running, so the watcher ends the group.
_WATCH = (
    "import os, signal, sys\n"
    "if sys.stdin.buffer.read() != b'done':\n"
    "    try:\n"
    "        os.killpg(int(sys.argv[1]), signal.SIGKILL)\n"
    "    except OSError:\n"
    "        pass\n"
)


class Signalled(KeyboardInterrupt):
    """A measurement stopped by a signal of STOP_SIGNALS: raised as Ctrl-C's interrupt, so every
    signal takes its way out (AIPerf's group ended, its temporary files removed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum


@dataclass
class _Stopping:
    """The stop signals' state in this process: the AIPerf groups under way (each led by the
    process started), the signal received, whether a run is being started (its group not known
    yet), and how deep stopped_on_signals is nested (the outermost sets the handlers)."""

    groups: set[int] = field(default_factory=set)
    watchers: dict[int, tuple[subprocess.Popen, int]] = field(default_factory=dict)
    signum: int | None = None
    starting: bool = False
    depth: int = 0

    def end_groups(self) -> None:
        for pid in list(self.groups):
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):  # gone, its id maybe taken since
                self.groups.discard(pid)

    def raise_pending(self) -> None:
        if self.signum is not None:
            self.end_groups()
            raise Signalled(self.signum)


_STOP = _Stopping()


def end_group(child: subprocess.Popen) -> None:
    """The group `child` leads ended, every process of it, `child` waited for and its watcher
    sent away."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:  # the group is gone already
        pass
    _STOP.groups.discard(child.pid)
    if child.returncode is None:
        child.wait()
    if watcher := _STOP.watchers.pop(child.pid, None):
        process, pipe = watcher
        try:
            os.write(pipe, b"done")
        except OSError:  # the watcher is gone: nothing to tell it
            pass
        os.close(pipe)
        process.wait()


@contextmanager
def starting() -> Iterator[Callable[[int], None]]:
    """While a group is started: a stop signal meanwhile is raised once its leader is known;
    yields what to call with the leader's id (the group is then ended on a stop signal, and
    watched)."""
    _STOP.starting = True

    def started(pid: int) -> None:
        _STOP.groups.add(pid)
        if watcher := watched(pid):
            _STOP.watchers[pid] = watcher

    try:
        yield started
    finally:
        _STOP.starting = False


def watched(group: int) -> tuple[subprocess.Popen, int] | None:
    """A watcher of `group` and the pipe chipcost holds to it: a process in a session of its
    own (no signal to chipcost's terminal or group reaches it) that ends the group when the pipe
    ends without 'done', as it does when chipcost dies, SIGKILL included. AIPerf's leader is
    signalled by the kernel then too (dies_with_chipcost), but its services only if AIPerf
    arranged it, and only on Linux. None when no watcher could be started."""
    read, write = os.pipe()  # neither end inherited by AIPerf, started before
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCH, str(group)], stdin=read,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError:  # no process to spare: the kernel's signal to the leader stands alone
        os.close(write)
        return None
    finally:
        os.close(read)
    return process, write


def raise_pending() -> None:
    """Signalled when a stop signal came while the group was being started (its group ended)."""
    _STOP.raise_pending()


def dies_with_chipcost() -> Callable[[], None] | None:
    """For Popen's preexec_fn on Linux: the child asks the kernel for SIGTERM when chipcost
    (the thread that starts it) dies, however it dies, SIGKILL included, and ends at once if
    chipcost died before it asked. None elsewhere, or where libc has no prctl."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent, death = os.getpid(), ctypes.c_ulong(signal.SIGTERM)

    def arm() -> None:  # between fork and exec, in the child: these calls and nothing else
        prctl(PR_SET_PDEATHSIG, death, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)

    return arm


@contextmanager
def stopped_on_signals() -> Iterator[None]:
    """While the block runs, a signal of STOP_SIGNALS ends every AIPerf group under way at
    once and is raised as Signalled (a KeyboardInterrupt), once: a second signal on the way
    out ends the groups again without cutting the way out short. A signal the process was
    started ignoring (`nohup chipcost measure`) stays ignored. Outside the main thread no
    handler can be set: the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _STOP.depth:  # within a sweep's block: its handlers stand
        _STOP.depth += 1
        try:
            yield
        finally:
            _STOP.depth -= 1
        return

    def stop(signum: int, frame: object) -> None:
        _STOP.end_groups()
        if _STOP.signum is None:
            _STOP.signum = signum
            if not _STOP.starting:  # else raised as soon as the run's group is known
                raise Signalled(signum)

    before = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    taken = [s for s, was in before.items() if was != signal.SIG_IGN or s in _PYTHON_IGNORES]
    for signum in taken:
        signal.signal(signum, stop)
    _STOP.depth, _STOP.signum = 1, None
    try:
        yield
    finally:
        _STOP.depth = 0
        for signum in taken:
            was = before[signum]
            signal.signal(signum, signal.SIG_DFL if was is None else was)
