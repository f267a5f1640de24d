"""The `chipcost` console script: the command line read by chipcost.cli.parser, the command
run; expected failures end in one line (chipcost.cli.failures), Ctrl-C with exit 130, a closed
pipe quietly with exit 141."""

from __future__ import annotations

import atexit
import errno
import gc
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

# Registered first (the console script imports this module before anything else), so it runs
# last of the exit handlers: what is still alive then is left to the operating system instead
# of walked by the collector's passes at interpreter exit. Prefect's import alone leaves 0.3 s
# of such work, a sample replay about 1 s.
atexit.register(gc.freeze)


def _tolerant_streams() -> None:
    """On a stdout or stderr that cannot hold every character (PYTHONIOENCODING=ascii, a C
    locale on an old system), write what it can't as escapes instead of failing mid-output;
    JSON output escapes them itself (chipcost.cli.formats). A UTF-8 stream cannot hold a
    lone surrogate either (a byte of a path or variable that is not UTF-8, as Python keeps
    it): it is written as its escape too, never raw, never a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def _absent_streams() -> None:
    """A stdout or stderr closed before chipcost started (`chipcost prices >&-`), which Python
    leaves as None: /dev/null in its place, so that the command does its work and says nothing
    there. Its descriptor is taken too, so that no file the command opens (the warehouse)
    lands on 1 or 2, where a library's print would write into it."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd and not _is_open(fd):
            os.dup2(null, fd)
            os.close(null)
            null = fd
        setattr(sys, name, open(null, "w", encoding="utf-8", errors="backslashreplace"))


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def main() -> None:
    _absent_streams()
    _tolerant_streams()
    _refuse_undecodable(sys.argv[1:])
    from chipcost.cli.parser import parse

    run, given, prog = parse(sys.argv[1:])
    from chipcost.cli.failures import guarded

    guarded(lambda: _ended(run, given), prog)


def _refuse_undecodable(args: list[str]) -> None:
    """A usage error (exit 2) naming the option whose value is not UTF-8 (a Latin-1 byte
    typed into `--region`): Python keeps such bytes as lone surrogates, which DuckDB and the
    terminal cannot take."""
    for n, arg in enumerate(args):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            continue
        option, _, value = arg.partition("=")
        if arg.startswith("-") and "=" in arg and option.isascii():
            what, arg = f"the value of {option}", value
        elif n and args[n - 1].startswith("-") and not arg.startswith("-"):
            what = f"the value of {args[n - 1]}"
        else:
            what = "the argument"
        raw = arg.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
        command = args[0] if args[0].isidentifier() or args[0].replace("-", "").isalnum() else ""
        where = f"chipcost {command}".strip() if n else "chipcost"
        sys.stderr.write(
            f"{where}: error: {what} ({raw[:80]}) is not UTF-8 text: give it in UTF-8 (the "
            f"terminal's or the script's encoding); see `{where} --help`\n"
        )
        sys.exit(2)


def _ended(run: Callable[..., object], given: dict[str, Any]) -> None:
    """Run the command; Ctrl-C exits 130, end of input 1. A reader that closed the pipe
    (`chipcost prices | head -2`) ends it quietly with exit 141 (128 + SIGPIPE), as grep,
    cat or sort are ended by the signal: no message, and not 1, which says nothing matched."""
    try:
        run(**given)
        sys.stdout.flush()  # what is still buffered: a pipe closed now is closed as above
    except KeyboardInterrupt:
        sys.exit(130)
    except EOFError:
        sys.stderr.write("\nAborted!\n")
        sys.exit(1)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = _QuietFlush(sys.stdout)
        sys.stderr = _QuietFlush(sys.stderr)
        sys.exit(PIPE_CLOSED)


# A shell's status for a command ended by SIGPIPE (128 + 13).
PIPE_CLOSED = 128 + signal.SIGPIPE


class _QuietFlush:
    """A stream whose flush ignores a closed pipe."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
