"""Bytes a fetch may take, counted as its answers are decoded: one answer's, a source's in one
run, a run's (every source's together). Each limit is a setting, named when it is passed."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from chipcost.core.errors import SourceError

ADVICE = "raise it if the provider really sends that much; otherwise report it"


class OverLimit(SourceError):
    """A limit on bytes passed: the source fails, never retried, and a payload the source can
    do without is not skipped for it (the next answer would pass it too)."""


def mib(size: int) -> str:
    return f"{size / (1 << 20):,g} MiB"


@dataclass(eq=False)
class ByteBudget:
    """Decoded bytes taken against `limit`, set by `variable`; shared by the threads of a
    run's sources, so taking is locked. `what` names whose bytes they are in a message."""

    limit: int
    variable: str
    what: str  # whose bytes: "the answer", "the source's answers this run"
    per: str  # "per answer", "per source", "per run"
    used: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self, size: int, where: str) -> None:
        """Count `size` more bytes, or OverLimit (nothing counted) when they pass the limit."""
        with self._lock:
            if self.used + size > self.limit:
                raise OverLimit(self.passed(where))
            self.used += size

    def give(self, size: int) -> None:
        """Bytes of an answer that is not kept (cut short, refused): no longer counted."""
        with self._lock:
            self.used -= size

    def passed(self, where: str, how: str = "decoded") -> str:
        """The one line saying this limit was passed, the variable that raises it and why."""
        return (
            f"{where}: {self.what} passed {mib(self.limit)} {how}, the limit {self.per} "
            f"({self.variable}): not read; {ADVICE}"
        )
