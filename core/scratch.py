"""Scratch folders named with the process that made them, so that the next process removes
those a killed one left behind (a SIGKILL or a power cut runs no cleanup, and a spill folder
of DuckDB's may hold gigabytes).

A folder is `<name>-<pid>-<random>`; one is swept when its process is gone and nothing in it
changed for STALE_SECONDS (a process of another container sharing the folder, whose pid this
one cannot see, is then still left alone while it works). Never on Windows, where a signal to
test a pid would end the process.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STALE_SECONDS = 3600.0


def scratch_folder(name: str, parent: Path | None = None) -> Path:
    """A new folder `<name>-<pid>-...` in `parent` (the temporary directory by default), after
    sweeping those of `name` their processes left."""
    where = parent if parent is not None else Path(tempfile.gettempdir())
    sweep(name, where)
    return Path(tempfile.mkdtemp(prefix=f"{name}-{os.getpid()}-", dir=where))


@contextmanager
def scratch(name: str, parent: Path | None = None) -> Iterator[Path]:
    """scratch_folder, removed with what it holds on every way out of the block."""
    folder = scratch_folder(name, parent)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def sweep(name: str, where: Path, now: float | None = None) -> list[Path]:
    """Remove the folders of `name` in `where` whose process is gone and that have not changed
    for STALE_SECONDS; the folders removed."""
    if os.name == "nt":
        return []
    pattern = re.compile(rf"{re.escape(name)}-(\d+)-[^/]+")
    now = time.time() if now is None else now
    try:
        entries = list(where.iterdir())
    except OSError:
        return []
    removed = []
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is None or entry.is_symlink() or not entry.is_dir():
            continue
        pid = int(found.group(1))
        if pid == os.getpid() or _alive(pid) or now - _changed(entry) < STALE_SECONDS:
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or not a pid to judge: left alone
    return True


def _changed(folder: Path) -> float:
    """When the folder or anything directly in it last changed."""
    try:
        latest = folder.stat().st_mtime
        for entry in folder.iterdir():
            latest = max(latest, entry.lstat().st_mtime)
    except OSError:
        return time.time()
    return latest
