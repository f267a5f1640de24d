"""Archived live runs not loaded yet: a marker from before the fetch until the load commits.

A live collection archives what it fetches before it opens the warehouse. If its load is
refused (the file stayed busy), fails or the process is killed, the marker stays in
<data dir>/pending/, and the next collection (or `chipcost collect --pending`) loads the
run from the archive, oldest first (docs/operations.md, "Pending runs").
"""

from __future__ import annotations

import json
import logging
import os
from datetime import UTC, datetime
from pathlib import Path

from chipcost import archive
from chipcost.archive.writer import replace_whole
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import Settings

PENDING_DIR = "pending"
log = logging.getLogger("chipcost.collect")


def _markers(settings: Settings) -> Path:
    """The markers' folder; a ChipcostError naming it when something else is there (a file)."""
    directory = settings.data_dir / PENDING_DIR
    if (directory.exists() or directory.is_symlink()) and not directory.is_dir():
        raise ChipcostError(
            f"{directory} is not a folder: chipcost keeps its pending-run markers there "
            '(docs/operations.md, "Pending runs"); move or remove what is there (chipcost '
            "makes the folder), then run again"
        )
    return directory


def _warehouse(settings: Settings) -> str:
    """Which warehouse a marker is for: a data directory may serve several (--db)."""
    return str(settings.db_path.resolve())


def mark_pending(settings: Settings, stamp: str) -> None:
    """Before a live fetch: the run is pending until clear_pending."""
    directory = _markers(settings)
    directory.mkdir(parents=True, exist_ok=True)
    body = {
        "run": stamp,
        "warehouse": _warehouse(settings),
        "pid": os.getpid(),
        "started_at": datetime.now(UTC).isoformat(),
    }
    # whole or not at all, named where a full disk stops it (no part left behind)
    replace_whole(directory / f"{stamp}.json", json.dumps(body, indent=1).encode("utf-8"))


def clear_pending(settings: Settings, stamp: str) -> None:
    """The run is loaded (or recorded as failed): nothing of it is left to load."""
    (_markers(settings) / f"{stamp}.json").unlink(missing_ok=True)


def pending_runs(settings: Settings) -> list[Path]:
    """Archive run directories of this warehouse's pending runs, oldest first."""
    directory = _markers(settings)
    if not directory.is_dir():
        return []
    runs = []
    for marker in sorted(directory.glob("*.json")):
        try:
            archive.parse_stamp(marker.stem)  # the name is the run; nothing else is trusted
            body = json.loads(marker.read_text("utf-8"))
        except (ValueError, OSError) as exc:
            log.warning("%s is not a pending-run marker (%s): left alone", marker, exc)
            continue
        if isinstance(body, dict) and body.get("warehouse") == _warehouse(settings):
            runs.append(settings.archive_dir / marker.stem)
    return runs


def is_archived_run(settings: Settings, run_dir: Path) -> bool:
    """True when run_dir is a run of this data directory's own archive (where markers point)."""
    return run_dir.resolve() == (settings.archive_dir / run_dir.name).resolve()
