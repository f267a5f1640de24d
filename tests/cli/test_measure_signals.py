"""`chipcost measure` as a process of its own, stopped by a signal or ending on its own: AIPerf
runs in a session of its own (its services are its children), which no signal from the terminal
reaches, so chipcost must end its whole process group on every way out: Ctrl-C, SIGTERM,
SIGHUP (the terminal closed), SIGQUIT, every other signal whose default action ends a process
(SIGUSR1, SIGALRM, SIGXCPU, a real-time signal...), SIGKILL (no handler runs: the group ends
without chipcost), a run that fails, a run that ends. AIPerf is a stand-in
(CHIPCOST_AIPERF) that starts a service of its own and says both process ids; the endpoint is
tests.openai_server; the warehouse is the shipped catalogue's (tests.cli.test_measure)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_measure import _nothing_recorded, _shipped
from tests.openai_server import serving
from tests.paths import ROOT
from tests.procs import alive, gone, with_environment

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
# AIPerf's stand-in: a service of its own in its group, both ids written where the test reads
# them, then a hang (`hang`) or an end leaving the service behind (`leave`), no report written.
STAND_IN = """#!{python}
import os, pathlib, subprocess, sys, time
service = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
pathlib.Path(os.environ["STAND_IN_PIDS"]).write_text(f"{{os.getpid()}} {{service.pid}}")
if os.environ["STAND_IN_MODE"] == "hang":
    time.sleep(300)
"""


# One signal of each kind whose default action ends a process, beside the four of a terminal:
# the user's, timers', limits' (SIGXFSZ, which Python itself ignores at start), power failing,
# I/O and a real-time signal (which has no name of its own).
OTHER_ENDING = [
    getattr(signal, name)
    for name in ("SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGXFSZ",
                 "SIGPWR", "SIGIO")
    if hasattr(signal, name)
] + ([signal.SIGRTMIN + 3] if hasattr(signal, "SIGRTMIN") else [])  # fmt: skip


def _name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"SIGRTMIN+{signum - signal.SIGRTMIN}"


def _as_from_a_shell(ignored: tuple[int, ...] = ()) -> Callable[[], None]:
    """Every stop signal at its default, as in a terminal's shell (a suite started in the
    background, `&` or `nohup`, passes its ignored SIGHUP and SIGQUIT down, and chipcost rightly
    leaves a signal it was started ignoring ignored), but `ignored`."""

    def reset() -> None:
        for signum in (signal.SIGHUP, signal.SIGQUIT, signal.SIGINT, signal.SIGTERM, *OTHER_ENDING):
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)

    return reset


def _measure(
    tmp_path: Path, url: str, mode: str, ignored: tuple[int, ...] = ()
) -> tuple[subprocess.Popen, Path]:
    """`chipcost measure` started against `url` with the stand-in, `ignored` signals ignored;
    (the process, the file the stand-in writes its ids to)."""
    tool = tmp_path / "aiperf"
    tool.write_text(STAND_IN.format(python=sys.executable))
    tool.chmod(0o755)
    (tmp_path / "tmp").mkdir()
    pids = tmp_path / "pids"
    db = _shipped(tmp_path / "w.duckdb")
    env = {
        **os.environ, "CHIPCOST_DATA_DIR": str(tmp_path / "data"), "CHIPCOST_AIPERF": str(tool),
        "STAND_IN_PIDS": str(pids), "STAND_IN_MODE": mode, "TMPDIR": str(tmp_path / "tmp"),
    }  # fmt: skip
    command = [
        CHIPCOST, "measure", "--endpoint", url, "--model", "llama-3-70b", "--tokenizer", "t",
        "--precision", "fp8", "--software", "x", "--chip", "H100-SXM", "--chips", "8",
        "--input-tokens", "32", "--output-tokens", "8", "--concurrency", "1", "--requests", "1",
        "--request-timeout", "5", "--max-seconds", "60", "--db", str(db),
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_as_from_a_shell(ignored),
    )  # fmt: skip
    return process, pids


def _started(process: subprocess.Popen, pids: Path) -> list[int]:
    """The stand-in's and its service's ids, once it has started both."""
    end = time.monotonic() + 120
    while not (pids.exists() and len(pids.read_text().split()) == 2):
        if process.poll() is not None or time.monotonic() > end:
            process.kill()
            raise AssertionError(f"AIPerf's stand-in never started: {process.communicate()}")
        time.sleep(0.1)
    return [int(p) for p in pids.read_text().split()]


@pytest.mark.parametrize(
    "signum", [signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM, signal.SIGINT, *OTHER_ENDING],
    ids=_name,
)  # fmt: skip
def test_a_stop_signal_ends_aiperfs_whole_group(tmp_path, signum):
    with serving(45.0) as double:
        process, marker = _measure(tmp_path, double.url, "hang")
        pids = _started(process, marker)
        assert all(alive(p) for p in pids)
        process.send_signal(signum)
        try:
            _, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    left = gone(pids, 10)
    for pid in left:  # a failing test leaves nothing loading the machine
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"AIPerf's group outlived {_name(signum)}"
    assert process.returncode == 128 + signum, err
    said = "interrupted:" if signum == signal.SIGINT else f"stopped ({_name(signum)}):"
    assert f"{said} AIPerf's run ended; nothing recorded" in err
    assert "Traceback" not in err
    assert list((tmp_path / "tmp").iterdir()) == []  # AIPerf's temporary folder removed
    _nothing_recorded(tmp_path / "w.duckdb")


def test_sigkill_ends_aiperfs_whole_group_without_chipcost(tmp_path):
    """SIGKILL runs no handler: the group's leader is signalled by the kernel (Linux) and a
    watcher of chipcost's own ends the whole group, the stand-in's service included, which
    ends with nobody (AIPerf's own services end with their leader); then the watcher ends."""
    with serving(45.0) as double:
        process, marker = _measure(tmp_path, double.url, "hang")
        pids = _started(process, marker)
        process.kill()
        process.communicate(timeout=30)
        left = gone(pids, 10)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == [], "AIPerf's group outlived chipcost's SIGKILL"
        # nothing of the run left: the watcher (its environment is chipcost's) gone too
        assert gone(with_environment("STAND_IN_PIDS", str(marker)), 10) == []
    assert process.returncode == -signal.SIGKILL
    _nothing_recorded(tmp_path / "w.duckdb")


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGUSR1], ids=_name)
def test_a_signal_ignored_at_start_stays_ignored(tmp_path, signum):
    """`nohup chipcost measure` (SIGHUP ignored), or a caller ignoring SIGUSR1: the signal
    neither stops the measurement nor ends AIPerf; SIGTERM still does."""
    with serving(45.0) as double:
        process, marker = _measure(tmp_path, double.url, "hang", ignored=(signum,))
        pids = _started(process, marker)
        process.send_signal(signum)
        time.sleep(2)
        still = process.poll() is None and all(alive(p) for p in pids)
        process.terminate()
        _, err = process.communicate(timeout=30)
    left = gone(pids, 10)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert still, f"{_name(signum)}, ignored at start, stopped the measurement: {err}"
    assert left == [] and process.returncode == 128 + signal.SIGTERM, err
    assert "stopped (SIGTERM): AIPerf's run ended; nothing recorded" in err


def test_a_run_that_ends_leaves_no_service_of_it_behind(tmp_path):
    """AIPerf's process ends (no report) with a service of its group still running: the
    measurement fails in one line, and the service is ended with the group."""
    with serving(45.0) as double:
        process, marker = _measure(tmp_path, double.url, "leave")
        _, err = process.communicate(timeout=120)
    pids = [int(p) for p in marker.read_text().split()]
    left = gone(pids, 10)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
    assert process.returncode == 1 and "Traceback" not in err
    assert "nothing recorded" in err
    _nothing_recorded(tmp_path / "w.duckdb")
