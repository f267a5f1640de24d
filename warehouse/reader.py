"""The one way a read opens the warehouse: read-only, waiting for a writer up to the reader
wait, within the read limits (time, memory, temporary disk) and spilling into a temporary
directory of its own, never beside the warehouse.

Every read goes through `open_reader`: prices, history, index, cost, compare, sql, sources,
site, report, the alerts and the Python API (docs/operations.md, "Reads have limits").
"""

from __future__ import annotations

import atexit
import functools
import heapq
import itertools
import os
import shutil
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.core.scratch import scratch_folder
from chipcost.core.settings import READ_WAIT, Settings, Warehouse
from chipcost.core.sql_limits import (
    MEMORY_ENV,
    TEMP_ENV,
    SqlLimits,
    read_timed_out,
    reading,
    size_in_bytes,
    sql_limits,
)
from chipcost.warehouse.db import connect

T = TypeVar("T")
# What a read that scans every offer to keep a few (the cuts to the cheapest of the offers
# alike: warehouse/cost_per_token.py, warehouse/snapshot.py) holds DuckDB's memory to, beyond
# which DuckDB spills to the read's temporary directory: its memory stays flat in the number
# of offers (docs/performance.md).
CUT_MEMORY = "256MB"
_SPILL: list[Path] = []
# The limits each open read was given (what working_memory returns it to).
_LIMITS: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, SqlLimits] = (
    weakref.WeakKeyDictionary()
)


def spill_directory() -> Path:
    """This process's spill directory in the system's temporary directory ($TMPDIR), made on
    first use and removed at exit (one a killed process left is removed by the next:
    chipcost.core.scratch); DuckDB keeps it under the temporary-disk limit."""
    if not _SPILL:
        _SPILL.append(scratch_folder("chipcost-spill"))
        atexit.register(shutil.rmtree, _SPILL[0], True)
    return _SPILL[0]


def open_reader(
    warehouse: Path | Warehouse, *, wait: float = READ_WAIT, limits: SqlLimits | None = None
) -> duckdb.DuckDBPyConnection:
    """A read-only connection within `limits` (default: those CHIPCOST_SQL_TIMEOUT/_MEMORY/
    _TEMP set; the report's writers are given a warehouse, not settings): past the time the
    running query is interrupted (`limit_hit` names it), past the memory or disk it fails."""
    return within_limits(connect(warehouse, read_only=True, wait=wait), limits)


def within_limits(
    con: duckdb.DuckDBPyConnection, limits: SqlLimits | None = None
) -> duckdb.DuckDBPyConnection:
    """`con` held to the read limits (a writer that reads first, as an alert claiming its
    recipients does, reads within them too)."""
    limits = limits or sql_limits()
    spill = str(spill_directory())
    try:
        for setting in limits.settings():
            con.execute(setting).fetchall()
        # Set once per database: DuckDB refuses to set it again, even to the same directory,
        # once a read of the same file in this process has spilled into it.
        (now,) = con.execute("SELECT current_setting('temp_directory')").fetchone()
        if now != spill:
            quoted = spill.replace("'", "''")
            con.execute(f"SET temp_directory = '{quoted}'").fetchall()
    except BaseException:
        con.close()
        raise
    _LIMITS[con] = limits
    # Both hold the connection weakly: a read its caller has dropped (the Python API's, in a
    # process that goes on) is freed then, not when its time limit is up.
    _WATCH.interrupt_at(time.monotonic() + limits.timeout, weakref.ref(con))
    reading(limits.timeout, functools.partial(_interrupt, weakref.ref(con)))
    return con


@contextmanager
def working_memory(con: duckdb.DuckDBPyConnection, size: str) -> Iterator[bool]:
    """Within the block, DuckDB's memory on the read `con` is held to `size` where its read
    limit is larger (what goes beyond is spilled to the read's temporary directory), then
    returned to the read limit; yields whether it was lowered (not for a connection that is
    no read's, nor under a smaller read limit)."""
    limits = _LIMITS.get(con)
    if limits is None or size_in_bytes(limits.memory) <= size_in_bytes(size):
        yield False
        return
    con.execute(f"SET memory_limit = '{size}'").fetchall()
    try:
        yield True
    finally:
        con.execute(f"SET memory_limit = '{limits.memory}'").fetchall()


def in_working_memory(con: duckdb.DuckDBPyConnection, read: Callable[[], T]) -> T:
    """`read()` with DuckDB's memory held to CUT_MEMORY (working_memory); a read that does not
    fit even so, spilling, is run again within the read limit."""
    lowered = False
    try:
        with working_memory(con, CUT_MEMORY) as lowered:
            return read()
    except duckdb.OutOfMemoryException:
        if not lowered:
            raise
    return read()


def read_connection(settings: Settings) -> duckdb.DuckDBPyConnection:
    """`open_reader` of the settings' warehouse, reader wait and read limits."""
    return open_reader(settings.warehouse, wait=settings.read_wait, limits=settings.read_limits)


class _Watch:
    """One thread for every read's time limit, started with the first: it sleeps until the
    nearest deadline and interrupts that read's query if its connection is still there, so a
    process holds one such thread however many reads it makes (the Python API's, a thousand
    in a minute)."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, weakref.ref]] = []  # a heap: the nearest first
        self._added = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def interrupt_at(self, deadline: float, con: weakref.ref) -> None:
        with self._changed:
            heapq.heappush(self._due, (deadline, next(self._added), con))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="chipcost-read-limit", daemon=True
                )
                self._thread.start()
            self._changed.notify()

    def _run(self) -> None:
        while True:
            with self._changed:
                # reads whose connection is gone need no interrupt
                while self._due and self._due[0][2]() is None:
                    heapq.heappop(self._due)
                if not self._due:
                    self._changed.wait()
                    continue
                left = self._due[0][0] - time.monotonic()
                if left > 0:
                    self._changed.wait(left)
                    continue
                _, _, con = heapq.heappop(self._due)
            _interrupt(con)

    def after_fork(self) -> None:
        """A child process starts with no thread and no reads of its parent's to watch."""
        self._due = []
        self._changed = threading.Condition()
        self._thread = None


_WATCH = _Watch()
os.register_at_fork(after_in_child=_WATCH.after_fork)


def _interrupt(con: duckdb.DuckDBPyConnection | weakref.ref) -> bool:
    """Interrupts the read's query; False when its connection is closed (or gone): the read
    ended in time."""
    found = con() if isinstance(con, weakref.ref) else con
    if found is None:
        return False
    try:
        found.interrupt()
    except duckdb.Error:
        return False
    return True


def limit_hit(exc: BaseException, limits: SqlLimits | None = None) -> ChipcostError | None:
    """The read limit `exc` says was reached, named with its variable (the limits: those given,
    else the environment's); None for other errors."""
    if not isinstance(exc, duckdb.InterruptException | duckdb.OutOfMemoryException):
        return None
    try:
        limits = limits or sql_limits()
    except ChipcostError:
        limits = SqlLimits()
    if isinstance(exc, duckdb.InterruptException):
        return read_timed_out(limits.timeout)
    if isinstance(exc, duckdb.OutOfMemoryException):
        return ChipcostError(
            f"the read needed more than {limits.memory} of memory ({MEMORY_ENV}) or "
            f"{limits.temp} of temporary disk ({TEMP_ENV}): narrow it, or raise them "
            f"({str(exc).splitlines()[0]})"
        )
    return None
