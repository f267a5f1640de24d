"""What every sample builder shares: the run days, a fresh archive writer, labels."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

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
