"""The command line in this process: `chipcost(*args)` runs chipcost's entry point as the console
script does and returns what a subprocess would have shown (exit code, stdout, stderr), without
a second's start of a new interpreter. What a process of its own would have to itself is set
for the command and put back after it: the environment, the working directory, sys.argv, the
standard streams (pipes: not a terminal, UTF-8), the consoles' width, the warning filters and
Prefect's console logging. An exception escaping main() fails the test as the traceback a user
would see. Tests whose subject is the process itself (signals, exit, terminals, encodings,
imports, two processes at once) start one."""

from __future__ import annotations

import io
import logging
import os
import sys
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# The filters of a Python started without -W or PYTHONWARNINGS, as the console script is: what
# a command warns about is on its stderr there, not collected by the test run's own filters.
_PYTHON_DEFAULT_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def chipcost(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path | str | None = None
) -> Ran:
    """`chipcost ARGS` in this process. `env` is the command's whole environment, as a
    subprocess's (None: this process's); `cwd` its working directory."""
    from chipcost.cli.entry import main

    stdout, stderr = _pipe(), _pipe()
    with (
        _environment(env),
        _directory(cwd),
        _streams(stdout, stderr),
        _consoles(),
        _warnings(),
        _own_loggers(),
    ):
        sys.argv = ["chipcost", *args]
        before = _prefect_console_to(stderr)
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = _exit_status(exc.code)
        finally:
            for handler, stream in before:
                _point(handler, stream)
    return Ran(code, _text(stdout), _text(stderr))


def _exit_status(code: object) -> int:
    """The status the interpreter would exit with for sys.exit(code); a message is printed."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _pipe() -> io.TextIOWrapper:
    """A stream as a pipe's end is to Python: UTF-8, not a terminal, with a binary buffer."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return raw.decode("utf-8").replace("\r\n", "\n")  # as text=True reads a pipe


@contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """The command's environment; whatever it set or removed is undone after it."""
    saved = dict(os.environ)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _directory(cwd: Path | str | None) -> Iterator[None]:
    saved = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


@contextmanager
def _streams(stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> Iterator[None]:
    """Standard streams of the command's own; stdin at its end, as /dev/null is. The
    interpreter's originals too: shutil.get_terminal_size (click's help) measures those."""
    saved = sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__, sys.argv
    sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__ = stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__, sys.argv = saved


@contextmanager
def _consoles() -> Iterator[None]:
    """chipcost's consoles measure their stream when they write; a command may fix their width
    (--wide), which a process of its own would not keep: each command starts and ends
    measuring."""
    from chipcost.cli.consoles import err, out

    for console in (out, err):
        console.width = None
    try:
        yield
    finally:
        for console in (out, err):
            console.width = None


@contextmanager
def _warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category, module in reversed(_PYTHON_DEFAULT_FILTERS):
            warnings.filterwarnings(action, category=category, module=module)
        warnings.showwarning = _show_warning
        yield


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Python's own display of a warning, on the stderr of the moment."""
    text = warnings.formatwarning(message, category, filename, lineno, line)
    (file or sys.stderr).write(text)


@contextmanager
def _own_loggers() -> Iterator[None]:
    """chipcost's loggers as they were: a command sets its own up (chipcost.cli.failures turns
    the wait log's propagation off), which a later test in this process must not inherit."""
    names = [n for n in logging.root.manager.loggerDict if n.partition(".")[0] == "chipcost"]
    saved = {n: _logger_state(logging.getLogger(n)) for n in names}
    try:
        yield
    finally:
        for name in list(logging.root.manager.loggerDict):
            if name.partition(".")[0] == "chipcost":
                handlers, level, propagate = saved.get(name, ([], logging.NOTSET, True))
                logger = logging.getLogger(name)
                logger.handlers[:] = handlers
                logger.setLevel(level)
                logger.propagate = propagate


def _logger_state(logger: logging.Logger) -> tuple[list[logging.Handler], int, bool]:
    return list(logger.handlers), logger.level, logger.propagate


def _prefect_console_to(stream) -> list:
    """Prefect sets up its console logging once per process, on the stderr of that moment: in
    a test worker, an earlier test's capture, closed since. A process of its own (what users
    run) has one stderr; here the handlers are pointed at this command's for its run, and back
    after it. Returns each handler with the stream it had."""
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
