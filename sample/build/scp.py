"""Sample runs of scp: none, since the source collects no prices (docs/sources.md)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.archive import run_stamp
from chipcost.extract.scp import SOURCE_NAME


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """Writes nothing: a replay finds no scp directory and leaves the source out."""
    return out / run_stamp(moment) / SOURCE_NAME
