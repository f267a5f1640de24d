"""Processes seen through /proc (no psutil): children, descendants, alive or gone."""

from __future__ import annotations

import time
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None when it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name sits in parentheses and may hold spaces: split after the last ')'.
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def cmdline(pid: int) -> list[str]:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def descendants(pid: int) -> list[int]:
    """Every process below pid (children, their children, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))):
            parents.setdefault(stat[1], []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Running or sleeping; a zombie (dead, waiting for a reaper) counts as gone."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def with_environment(name: str, value: str) -> list[int]:
    """Live processes whose environment has name=value (a test's own marker)."""
    wanted = f"{name}={value}".encode()
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or not ours to read
            continue
        if wanted in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def gone(pids: list[int], seconds: float = 60) -> list[int]:
    """The pids still alive after waiting up to `seconds` for them to end."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.5)
    return [p for p in pids if alive(p)]
