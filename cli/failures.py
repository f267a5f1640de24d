"""How every command ends on an expected failure: one clear line on stderr, exit 1; a value
an option does not take (UsageError) as the parser ends any other usage error, exit 2.

Every command ends this way (chipcost.cli.entry runs each through `guarded`).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn

from chipcost.core.disk import no_room
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.stopping import (
    HANDLED,
    OUTPUT_GONE,
    asks_to_stop,
    quiet_dead_streams,
    signal_name,
)


class _WaitHandler(logging.Handler):
    """Waits for the warehouse file (chipcost.warehouse.lock_wait), one line each on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        from chipcost.cli.consoles import err

        err.say([(record.getMessage(), "dim")])


def show_waits() -> None:
    # Every command may wait for the file; `collect` also shows it on its status line.
    logger = logging.getLogger("chipcost.progress.wait")
    if not any(isinstance(h, _WaitHandler) for h in logger.handlers):
        logger.addHandler(_WaitHandler())
    logger.setLevel(logging.INFO)
    # Said once: not again by whatever handler Prefect's logging put on the root logger.
    logger.propagate = False


def guarded(run: Callable[[], object], prog: str = "chipcost") -> None:
    """Run a command: expected failures print one clear line, never a traceback; `prog` (the
    command as typed, `chipcost prices`) names where a usage error's help is."""
    show_waits()
    try:
        run()
    except UsageError as exc:
        fail(f"{prog}: error: {exc}; see `{prog} --help`", code=2, label=False)
    except ChipcostError as exc:
        if exc.details:
            fail(f"{exc.headline}:", details=exc.details)
        fail(str(exc))
    except OSError as exc:
        if (full := no_room(exc)) is not None:
            fail(full)
        # A path the system refuses (too long, read-only, no permission) is the user's to fix.
        name = str(exc.filename or "")
        shown = name if len(name) < 200 else name[:100] + "…" + name[-40:]
        fail(f"{shown}: {exc.strerror or exc}" if shown else str(exc.strerror or exc))
    except Exception as exc:
        # A query on a damaged file fails where it reads the damaged part, not at open.
        from chipcost.warehouse.db_file import damaged_after_open
        from chipcost.warehouse.reader import limit_hit

        if (full := no_room(exc)) is not None:  # a write with no room left (DuckDB's log)
            fail(str(damaged_after_open(exc) or full))  # the warehouse's, said as such
        if (hit := limit_hit(exc)) is not None:  # a read's time, memory or disk limit
            fail(str(hit))
        if (damage := damaged_after_open(exc)) is None:
            raise
        fail(str(damage))


def fail(
    message: str, details: tuple[str, ...] = (), *, code: int = 1, label: bool = True
) -> NoReturn:
    """One line on stderr (and one more per detail, indented), secret values scrubbed and
    control characters out of each; exit `code`. `label`: the line starts "error:" (a usage
    error's says the command before it, as the parser's do)."""
    from chipcost.cli.consoles import err
    from chipcost.core.clean import masked, printable, scrub
    from chipcost.core.settings import secret_values

    secrets = secret_values(os.environ)
    safe = printable(masked(scrub(message, secrets)))
    err.line([("error:", "bold red"), (f" {safe}", "")] if label else safe)
    for detail in details:
        line = printable(masked(scrub(detail, secrets)))
        err.line("  " + line)
    sys.exit(code)


@contextmanager
def interruptible(said: Callable[[], str]) -> Iterator[None]:
    """Ctrl-C (SIGINT), SIGTERM, SIGHUP (the terminal closed) or the reader of the command's
    output gone (`collect 2>&1 | head -1`, said as SIGPIPE: core.stopping.output_gone) ends
    the block with `said()` on stderr (where it still goes) and exit 130 (143, 129, 141),
    however the code it interrupted surfaced it: a KeyboardInterrupt, DuckDB's "Query
    interrupted", a Prefect run that crashed, or an error from a thread cut short. A SIGPIPE
    the kernel sends for a socket whose peer is gone stops nothing. Elsewhere a signal is not
    ours to take (a thread other than the main one cannot set a handler): the block runs as
    it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if not asks_to_stop(signum):
            return  # a socket's broken pipe: its write's BrokenPipeError is its fetch's error
        quiet_dead_streams()
        hit.append(signum)
        if signum == OUTPUT_GONE and len(hit) > 1:
            return  # already stopping: the output gone (or a SIGPIPE after it) adds nothing
        signal.default_int_handler(signum, frame)

    previous = {signum: signal.signal(signum, handler) for signum in HANDLED}
    try:
        yield
    except BaseException:
        if not hit:
            raise
    finally:
        for signum, was in previous.items():
            signal.signal(signum, was)
    if hit:
        interrupted(said(), hit[0])


def interrupted(message: str, signum: int = signal.SIGINT) -> NoReturn:
    """What was done and what to do, after a Ctrl-C or another stop signal (SIGTERM, SIGHUP,
    SIGQUIT, SIGUSR1...): exit 128 + the signal's number (130, 143, 129, 131, 138), as a shell
    expects."""
    from chipcost.cli.consoles import err

    word = "interrupted:" if signum == signal.SIGINT else f"stopped ({signal_name(signum)}):"
    try:
        err.line([(word, "bold yellow"), (f" {message}", "")])
    except OSError:  # the terminal is gone (SIGHUP): the exit status says it
        pass
    sys.exit(128 + signum)
