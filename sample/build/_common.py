"""What every sample builder shares: the run days, a fresh archive writer, labels, price moves."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from chipcost.archive import ArchiveWriter, run_stamp

# Eight daily runs at fixed times, so that rebuilding writes the same bytes.
FIRST_RUN = datetime(2026, 11, 14, 6, 0, tzinfo=UTC)
DAYS = 8
# The top-level key that labels a JSON payload as sample data (parsers ignore it).
SAMPLE_KEY = "chipcostSample"
# Pages that cannot carry a JSON key say it in a comment instead.
HTML_SAMPLE_COMMENT = (
    "<!-- chipcost sample data: synthetic prices in the page's real structure, "
    "not fetched from the provider -->"
)


def run_time(day: int) -> datetime:
    """When run day 1..DAYS started."""
    return FIRST_RUN + timedelta(days=day - 1)


def fresh_writer(out: Path, moment: datetime, source: str) -> ArchiveWriter:
    """A sample writer for one source's run, its earlier payloads removed first."""
    stamp = run_stamp(moment)
    shutil.rmtree(out / stamp / source, ignore_errors=True)
    return ArchiveWriter(out, stamp, source, sample=True)


def factor(moves: Mapping[tuple[str, int], float], name: str, day: int) -> float:
    """The factor of the latest move of `name` at or before `day`; 1.0 before any move."""
    value = 1.0
    for (moved, since), change in sorted(moves.items(), key=lambda move: move[0][1]):
        if moved == name and day >= since:
            value = change
    return value


def indented_json(body: Any) -> bytes:
    """JSON as the neocloud samples archive it (indented by one space)."""
    return json.dumps(body, indent=1).encode("utf-8")


def money(value: float) -> str:
    """A price as the provider pages print it, e.g. $1,234.50."""
    return f"${value:,.2f}"
