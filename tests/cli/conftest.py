"""The command line in this process: `run` calls chipcost's entry point as the console script
does (chipcost.cli.entry: the command line parsed, the command run), so an exception
escaping main() is the traceback a user would see."""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass

import pytest

from chipcost.cli.entry import main


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(monkeypatch, capsys, tmp_path):
    """Run `chipcost ARGS` in this process (a subprocess each would take seconds to start);
    an exception escaping main() fails the test as the traceback it would be."""
    monkeypatch.setenv("CHIPCOST_DATA_DIR", str(tmp_path / "data"))
    # What `chipcost collect` sets for itself: set here so that the test undoes it after.
    quiet = {
        "PREFECT_LOGGING_LEVEL": "CRITICAL",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    for name, value in quiet.items():
        monkeypatch.setenv(name, os.environ.get(name, value))

    def invoke(*args: str, env: dict[str, str] | None = None) -> Ran:
        with monkeypatch.context() as patched:
            for name, value in (env or {}).items():
                patched.setenv(name, value)
            patched.setattr(sys, "argv", ["chipcost", *args])
            before = _prefect_console_to(sys.stderr)
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            finally:
                for handler, stream in before:
                    _point(handler, stream)
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return invoke


def _prefect_console_to(stream) -> list:
    """Prefect sets up its console logging once per process, on the stderr of that moment: in
    a test worker, an earlier test's capture, closed since. A process of its own (what users
    run) has one stderr; here the handlers are pointed at this test's for one command, and
    back after it (a later test must not write to this test's capture once it is closed).
    Returns each handler with the stream it had."""
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)]
    handlers = {
        id(h): h
        for logger in [logging.root, *loggers]
        for h in getattr(logger, "handlers", [])
        if type(h).__name__ == "PrefectConsoleHandler"
    }  # one handler may serve several loggers: each is saved once, as it was
    before = [(h, h.stream) for h in handlers.values()]
    for handler in handlers.values():
        _point(handler, stream)
    return before


def _point(handler, stream) -> None:
    handler.stream = stream  # not setStream: it flushes the old one, which may be closed
    handler.console.file = stream
