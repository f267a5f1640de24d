"""Small disks for the full-disk tests: a real tmpfs mounted for the test, unmounted after."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(disk: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` ('64k', '8m') mounted at `disk` (made); the test is skipped where
    none can be mounted (mounting needs root)."""
    disk.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.decode().strip()})")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)
