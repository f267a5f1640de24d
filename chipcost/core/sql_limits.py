"""The limits of one `chipcost sql` query: time, memory and temporary disk, each configurable
and named when hit, so a runaway query neither holds the warehouse nor fills the disk."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass

from chipcost.core.errors import ChipcostError

TIMEOUT_ENV = "CHIPCOST_SQL_TIMEOUT"  # seconds
MEMORY_ENV = "CHIPCOST_SQL_MEMORY"  # DuckDB's size words: 2GB, 512MB
TEMP_ENV = "CHIPCOST_SQL_TEMP"  # spill to disk at most this much
# A report-sized query takes well under a second; a minute is a runaway, and a collect
# waiting for the file gives up after its own lock wait (CHIPCOST_LOCK_WAIT).
DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY = "2GB"
DEFAULT_TEMP = "1GB"
_SIZE = re.compile(r"^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$", re.IGNORECASE)


@dataclass(frozen=True)
class SqlLimits:
    timeout: float = DEFAULT_TIMEOUT
    memory: str = DEFAULT_MEMORY
    temp: str = DEFAULT_TEMP

    def settings(self) -> tuple[str, ...]:
        """The DuckDB settings that hold memory and spilled data to these limits."""
        return (
            f"SET memory_limit = '{self.memory}'",
            f"SET max_temp_directory_size = '{self.temp}'",
        )


def sql_limits(environ: Mapping[str, str]) -> SqlLimits:
    """SqlLimits from CHIPCOST_SQL_TIMEOUT, _MEMORY and _TEMP; a malformed one is refused."""
    found = SqlLimits()
    text = environ.get(TIMEOUT_ENV, "").strip()
    if text:
        try:
            seconds = float(text)
        except ValueError:
            seconds = 0.0
        if not 0 < seconds <= 86400:
            raise ChipcostError(f"{TIMEOUT_ENV}={text!r}: give seconds from 1 to 86400, e.g. 60")
        found = SqlLimits(seconds, found.memory, found.temp)
    memory = _size(environ, MEMORY_ENV) or found.memory
    temp = _size(environ, TEMP_ENV) or found.temp
    return SqlLimits(found.timeout, memory, temp)


def _size(environ: Mapping[str, str], name: str) -> str:
    text = environ.get(name, "").strip()
    if text and not _SIZE.match(text):
        raise ChipcostError(f"{name}={text!r}: give a size such as 512MB or 4GB")
    return text.replace(" ", "")


# The read under way in this context: when its time limit passes, the limit, and whether it
# still runs (its connection open). Python work inside a read (a did-you-mean over thousands
# of names) checks it, as DuckDB's own work is interrupted by the reader's timer.
_READ: ContextVar[tuple[float, float, Callable[[], bool]] | None] = ContextVar(
    "chipcost_read", default=None
)


def reading(timeout: float, running: Callable[[], bool]) -> None:
    """Marks a read as started now, with `timeout` seconds and `running` saying whether it
    still runs (a read long closed is not stopped by its old limit)."""
    _READ.set((time.monotonic() + timeout, timeout, running))


def check_read_time() -> None:
    """The read's time-limit error when the read under way has run past it (nothing else)."""
    found = _READ.get()
    if found is not None and time.monotonic() > found[0] and found[2]():
        raise read_timed_out(found[1])


def read_timed_out(timeout: float) -> ChipcostError:
    return ChipcostError(
        f"the read ran past {timeout:g} s ({TIMEOUT_ENV}) and was stopped: narrow it "
        f"(fewer days, a chip, a LIMIT), or raise {TIMEOUT_ENV}"
    )
