"""Another process holding a DuckDB file, the way a notebook or a `chipcost sql` does."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def holding(db: Path, *, read_only: bool) -> Iterator[subprocess.Popen]:
    """A process with the file open until the block ends or `release` is called."""
    code = (
        f"import duckdb, sys; con = duckdb.connect({str(db)!r}, read_only={read_only}); "
        "print('ready', flush=True); sys.stdin.read(); con.close()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "ready", "the holder could not open the file"
        yield holder
    finally:
        release(holder)


def release(holder: subprocess.Popen) -> None:
    """Let the file go: the holder closes its connection and exits."""
    if holder.poll() is None:
        holder.stdin.close()
        holder.wait(timeout=60)
    for pipe in (holder.stdin, holder.stdout):
        pipe.close()
