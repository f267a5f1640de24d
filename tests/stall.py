"""A load that stalls inside its open transaction, injected by tests (never by an env var).

    python -m tests.stall MARKER chipcost ARGS...   # the real CLI, with the stall injected

`stall_loads(marker)` wraps the loader's last step before COMMIT: it writes `marker` and
waits until a test removes it (at most STALL_SECONDS), so the test knows the process is
mid-load before it kills it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import chipcost.warehouse.load as load_module

STALL_SECONDS = 120


def stall_loads(marker: Path) -> None:
    real = load_module.insert_run

    def insert_then_stall(*args: object, **kwargs: object) -> None:
        real(*args, **kwargs)
        marker.write_text(str(os.getpid()))
        deadline = time.monotonic() + STALL_SECONDS
        while marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)

    load_module.insert_run = insert_then_stall


def main() -> None:
    marker, command, *args = sys.argv[1:]
    stall_loads(Path(marker))
    if command != "chipcost":
        raise SystemExit(f"unknown command {command!r}")
    from chipcost.cli.entry import main as chipcost

    sys.argv = ["chipcost", *args]
    chipcost()


if __name__ == "__main__":
    main()
