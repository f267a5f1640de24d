"""The limits of one `chipcost sql` query: time, memory and temporary disk, each configurable
and named when hit, so a runaway query neither holds the warehouse nor fills the disk."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated

from chipcost.core.errors import ChipcostError
from chipcost.core.variables import Reading, Variables, seconds, variable, whole

TIMEOUT_ENV = "CHIPCOST_SQL_TIMEOUT"  # seconds
MEMORY_ENV = "CHIPCOST_SQL_MEMORY"  # DuckDB's size words: 2GB, 512MB
TEMP_ENV = "CHIPCOST_SQL_TEMP"  # spill to disk at most this much
# What a result may hold once out of DuckDB, in Python: rows, and bytes of them (default: the
# memory limit, so a result held outside DuckDB stays inside the memory configured for it).
ROWS_ENV = "CHIPCOST_SQL_ROWS"
RESULT_ENV = "CHIPCOST_SQL_RESULT"  # DuckDB's size words, as CHIPCOST_SQL_MEMORY
DEFAULT_ROWS = 1_000_000
# A report-sized query takes well under a second; a minute is a runaway, and a collect
# waiting for the file gives up after its own lock wait (CHIPCOST_LOCK_WAIT).
DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY = "2GB"
DEFAULT_TEMP = "1GB"
_SIZE = re.compile(r"^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$", re.IGNORECASE)


_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS |= {"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


@dataclass(frozen=True)
class SqlLimits:
    timeout: float = DEFAULT_TIMEOUT
    memory: str = DEFAULT_MEMORY
    temp: str = DEFAULT_TEMP
    rows: int = DEFAULT_ROWS  # rows of one result, fetched in batches and cut there
    result: str = ""  # bytes of one result held in Python; "" for the memory limit's

    def result_bytes(self) -> int:
        """The bytes one result may hold once fetched (CHIPCOST_SQL_RESULT, else _MEMORY)."""
        return size_in_bytes(self.result or self.memory)

    def result_variable(self) -> str:
        return RESULT_ENV if self.result else f"{RESULT_ENV}, default {MEMORY_ENV}"

    def settings(self) -> tuple[str, ...]:
        """The DuckDB settings that hold memory and spilled data to these limits."""
        return (
            f"SET memory_limit = '{self.memory}'",
            f"SET max_temp_directory_size = '{self.temp}'",
        )


def _size(text: str) -> str:
    """DuckDB's size words (512MB, 4 GiB), blanks aside."""
    if not _SIZE.match(text.strip()):
        raise ValueError(text)
    return text.strip().replace(" ", "")


_A_SIZE = "give a size such as 512MB or 4GB"


class SqlVariables(Variables):
    """The CHIPCOST_SQL_* variables (core/variables.py): unset or blank, the default."""

    timeout: Annotated[
        float,
        Reading(seconds(0, 86400, above_low=True), "give seconds from 1 to 86400, e.g. 60"),
    ] = variable(TIMEOUT_ENV, DEFAULT_TIMEOUT)
    memory: Annotated[str, Reading(_size, _A_SIZE)] = variable(MEMORY_ENV, DEFAULT_MEMORY)
    temp: Annotated[str, Reading(_size, _A_SIZE)] = variable(TEMP_ENV, DEFAULT_TEMP)
    rows: Annotated[
        int, Reading(whole(1, 9_999_999_999), "give a whole number of rows, e.g. 100000")
    ] = variable(ROWS_ENV, DEFAULT_ROWS)
    result: Annotated[str, Reading(_size, _A_SIZE)] = variable(RESULT_ENV, "")


def sql_limits() -> SqlLimits:
    """SqlLimits from the process's CHIPCOST_SQL_* variables; a malformed one is refused."""
    found = SqlVariables()
    return SqlLimits(found.timeout, found.memory, found.temp, found.rows, found.result)


def size_in_bytes(text: str) -> int:
    """'512MB' -> 512000000, '2GiB' -> 2147483648: DuckDB's size words as bytes."""
    match = re.match(r"^(\d+(?:\.\d+)?)\s*([A-Za-z]+)$", text.strip())
    if match is None or match[2].lower() not in _UNITS:
        raise ChipcostError(f"{text!r} is not a size such as 512MB or 4GB")
    return int(float(match[1]) * _UNITS[match[2].lower()])


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
