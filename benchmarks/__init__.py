"""chipcost's benchmarks (figures in docs/performance.md), and what they share."""

from __future__ import annotations

import time
from collections.abc import Callable


def fastest(work: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` runs of `work`, in seconds: the least disturbed by the machine."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)
