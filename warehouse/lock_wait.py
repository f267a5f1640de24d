"""Waiting for a DuckDB file another process holds: bounded, said aloud, the holder named."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb

from chipcost.core.errors import WarehouseBusy
from chipcost.core.settings import LOCK_WAIT_ENV

T = TypeVar("T")

# Waits go to the progress logger: the CLI prints them, a deployed flow run logs them.
wait_log = logging.getLogger("chipcost.progress.wait")
# Retries start fast (a load often ends within a second) and settle at this interval.
FIRST_RETRY = 0.05
LAST_RETRY = 2.0
# While waiting, say so again this often.
NOTICE_EVERY = 10.0
# DuckDB names the holder: 'Conflicting lock is held in /usr/bin/python3.11 (PID 1234)'.
_HOLDER = re.compile(r"held in (?P<program>.+?) \(PID (?P<pid>\d+)\)")
# A word of a command line that is safe to repeat: a program, an option, a subcommand. The
# first that is not (a query, a path, a key) ends what is shown.
_SAFE_WORD = re.compile(r"-{0,2}[A-Za-z][\w.-]*")


def open_waiting(
    open_once: Callable[[], T],
    path: Path,
    *,
    wait: float,
    writing: bool,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """open_once(), retried while another process holds `path`, for at most `wait` seconds.

    DuckDB refuses a second process at once (a reader too, while a writer holds the file),
    so waiting is retrying. Any error but a lock conflict is raised as it is.
    """
    deadline = clock() + wait
    delay, noticed = FIRST_RETRY, None
    while True:
        try:
            opened = open_once()
        except duckdb.IOException as exc:
            if not is_lock_conflict(exc):
                raise
            holder = describe_holder(str(exc))
            left = deadline - clock()
            if left <= 0:
                raise WarehouseBusy(busy_message(path, holder, wait, writing=writing)) from exc
            if noticed is None or clock() - noticed >= NOTICE_EVERY:
                wait_log.info("waiting for %s: %s holds it (%.0f s left)", path, holder, left)
                noticed = clock()
            sleep(min(delay, left))
            delay = min(delay * 2, LAST_RETRY)
            continue
        if noticed is not None:
            wait_log.info("%s is free: going on", path)
        return opened


def is_lock_conflict(error: BaseException) -> bool:
    """DuckDB's 'Could not set lock on file ...: Conflicting lock is held in ...'; not any
    message with 'lock' in it ('Failed to read block' of a damaged file is not a lock)."""
    text = str(error).lower()
    return "could not set lock" in text or "conflicting lock" in text


def describe_holder(error: str) -> str:
    """'process 1234 (python chipcost sql)' from DuckDB's lock error, as far as it is known."""
    found = _HOLDER.search(error)
    if not found:
        return "another process"
    pid = found.group("pid")
    command = _command(pid) or Path(found.group("program")).name
    return f"process {pid} ({command})"


def _command(pid: str) -> str:
    """The start of a process's command line (Linux /proc), cut before anything not a word."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words: list[str] = []
    for arg in raw.decode("utf-8", "replace").split("\0")[:3]:
        word = Path(arg).name if len(words) < 2 else arg  # the interpreter and its script
        if not _SAFE_WORD.fullmatch(word):
            break
        words.append(word)
    return " ".join(words)


def busy_message(path: Path, holder: str, waited: float, *, writing: bool) -> str:
    if writing:
        waiting = f"waited {waited:g} s for it to close the file. " if waited else ""
        return (
            f"the warehouse {path} is in use by {holder}: {waiting}Close that program (a "
            f"notebook, a duckdb shell, a long `chipcost sql`) or raise {LOCK_WAIT_ENV} "
            "(seconds to wait), then run again"
        )
    waiting = f"waited {waited:g} s; " if waited else ""
    return (
        f"the warehouse {path} is in use by {holder}, which is writing it (a collection "
        f"loading, or another writer): {waiting}retry when it is done"
    )
