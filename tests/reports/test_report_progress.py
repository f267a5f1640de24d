"""`chipcost report` says its steps on a terminal (its reads take seconds), and nothing on a
pipe: a process of its own, its stderr a pseudo-terminal or a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests import warehouses

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
STEPS = (
    "opening the warehouse",
    "reading the cheapest prices now",
    "reading what changed",
    "reading the price history",
    "reading the price index",
    "writing chipcost-changes_2026-11-15_2026-11-21.csv",
    "laying out the page and writing chipcost-report_2026-11-15_2026-11-21.html",
    "writing the e-mail",
)


def _environment() -> dict[str, str]:
    """This process's environment without what says a terminal is or is not one."""
    said = ("TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR", "TERM", "COLUMNS")
    env = {key: value for key, value in os.environ.items() if key not in said}
    return env | {"TERM": "xterm-256color", "COLUMNS": "120"}


def _report(tmp_path: Path, *, terminal: bool) -> tuple[int, str, str]:
    """The sample week's report with --dry-run: its exit, stdout (a pipe) and stderr."""
    db = warehouses.sample(tmp_path / "w.duckdb")
    args = [CHIPCOST, "report", "--db", str(db), "--out", str(tmp_path / "r"), "--dry-run"]
    if not terminal:
        ran = subprocess.run(args, capture_output=True, text=True, env=_environment(), timeout=300)
        return ran.returncode, ran.stdout, ran.stderr
    main, side = pty.openpty()
    with subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=side, stdin=subprocess.DEVNULL, env=_environment()
    ) as proc:
        os.close(side)
        said = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the command's end of the terminal is closed
                break
            if not chunk:
                break
            said += chunk
        stdout = proc.stdout.read().decode() if proc.stdout else ""
        code = proc.wait(timeout=300)
    os.close(main)
    return code, stdout, said.decode(errors="replace")


def test_on_a_terminal_each_step_is_said_on_stderr(tmp_path):
    """On 697f5e5 the report ran about 7 s with nothing shown."""
    code, stdout, stderr = _report(tmp_path, terminal=True)
    assert code == 0, stderr
    for step in STEPS:
        assert step in stderr, step
    # The steps go with the command: what it made is on stdout, as on a pipe.
    said = " ".join(stdout.split())  # a long temporary path goes on the next line, whole
    assert "report: /" in said and "e-mail: /" in said
    assert not any(step in stdout for step in STEPS)


def test_on_a_pipe_nothing_is_said_of_the_steps(tmp_path):
    code, stdout, stderr = _report(tmp_path, terminal=False)
    assert code == 0, stderr
    assert stderr == ""
    said = " ".join(stdout.split())
    assert "report: /" in said and not any(step in said for step in STEPS)
