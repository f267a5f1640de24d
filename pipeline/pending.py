"""Archived live runs not loaded yet: a marker from before the fetch until the load commits.

A live collection archives what it fetches before it opens the warehouse. If its load is
refused (the file stayed busy), fails or the process is killed, the marker stays in
<data dir>/pending/, and the next collection (or `chipcost collect --pending`) loads the
run from the archive, oldest first (docs/operations.md, "Pending runs").

The marker also keeps each source's outcome as the run goes (asked, begun, then its status
and message): a source that failed, or was stopped, archives nothing, and the run loaded from
its marker records it as the live run would have.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from chipcost import archive
from chipcost.archive.writer import replace_whole
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import Settings

PENDING_DIR = "pending"
log = logging.getLogger("chipcost.collect")
# A source's place in a marker before it has an outcome: asked for, its fetch not begun yet;
# begun, not ended. Once ended: its status (ok, failed, skipped) and message.
ASKED, BEGUN = "asked", "begun"
# The run's fetches note their sources from several threads: one rewrite of a marker at a time.
_WRITING = threading.Lock()


@dataclass(frozen=True)
class Outcome:
    """A source of a pending run as the live run knew it: its status (ASKED, BEGUN, or the
    status its fetch ended with), its message, and whether the run's stop ended it."""

    status: str
    message: str = ""
    stopped: bool = False


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


def mark_pending(settings: Settings, stamp: str, sources: list[str] | None = None) -> None:
    """Before a live fetch: the run is pending until clear_pending; `sources`, the ones it
    fetches, each ASKED until note_source says more."""
    directory = _markers(settings)
    directory.mkdir(parents=True, exist_ok=True)
    body = {
        "run": stamp,
        "warehouse": _warehouse(settings),
        "pid": os.getpid(),
        "started_at": datetime.now(UTC).isoformat(),
        "sources": {name: {"status": ASKED} for name in sources or []},
    }
    _write(directory / f"{stamp}.json", body)


def _write(marker: Path, body: dict) -> None:
    # whole or not at all, named where a full disk stops it (no part left behind)
    replace_whole(marker, json.dumps(body, indent=1).encode("utf-8"))


def note_source(
    settings: Settings, stamp: str, source: str, status: str, message: str = "", *, stopped=False
) -> None:
    """A source of a pending live run begun (BEGUN) or ended (its status and message), kept in
    its marker as it happens. Nothing where the run has no marker (cleared, or none made);
    never raises: a marker that cannot be rewritten (a full disk) is said in the log, and the
    run loaded from it then says less of that source."""
    marker = _marker(settings, stamp)
    with _WRITING:
        if (body := _read(marker)) is None:
            return
        body["sources"] = sources = _sources(body) or {}
        sources[source] = {"status": status, "message": message, "stopped": stopped}
        try:
            _write(marker, body)
        except OSError as exc:
            log.warning("%s: what %s met is not kept in %s (%s)", stamp, source, marker, exc)


def note_stop(settings: Settings, stamp: str) -> None:
    """The live run was stopped (a signal) while its fetches ran: each source of its marker
    without an outcome yet is marked stopped, begun or not. A fetch that still ends after it
    notes its own outcome over this."""
    marker = _marker(settings, stamp)
    with _WRITING:
        if (body := _read(marker)) is None or (sources := _sources(body)) is None:
            return
        for entry in sources.values():
            if isinstance(entry, dict) and entry.get("status") in (ASKED, BEGUN):
                entry["stopped"] = True
        try:
            _write(marker, body)
        except OSError as exc:
            log.warning("%s: the stop is not kept in %s (%s)", stamp, marker, exc)


def outcomes(settings: Settings, stamp: str) -> dict[str, Outcome]:
    """Each source of a pending run as its marker keeps it; none of a marker written before
    markers kept them (or not readable)."""
    body = _read(_marker(settings, stamp))
    if body is None or (sources := _sources(body)) is None:
        return {}
    return {
        str(name): Outcome(
            str(entry.get("status", ASKED)),
            str(entry.get("message") or ""),
            bool(entry.get("stopped", False)),
        )
        for name, entry in sources.items()
        if isinstance(entry, dict)
    }


def _marker(settings: Settings, stamp: str) -> Path:
    """A run's marker, named without _markers' check of its folder: what reads or notes in it
    never raises."""
    return settings.data_dir / PENDING_DIR / f"{stamp}.json"


def _read(marker: Path) -> dict | None:
    """The marker's JSON object; None where it is gone, unreadable or not an object."""
    try:
        body = json.loads(marker.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def _sources(body: dict) -> dict | None:
    """The marker's sources and what each met; None in a marker written before it kept them."""
    sources = body.get("sources")
    return sources if isinstance(sources, dict) else None


def clear_pending(settings: Settings, stamp: str) -> None:
    """The run is loaded (or recorded as failed): nothing of it is left to load."""
    with _WRITING:
        (_markers(settings) / f"{stamp}.json").unlink(missing_ok=True)


def pending_runs(settings: Settings) -> list[Path]:
    """Archive run directories of this warehouse's pending runs, oldest first."""
    mine = _warehouse(settings)
    return [run for run, warehouse in _marked(settings) if warehouse == mine]


def pending_elsewhere(settings: Settings) -> list[tuple[Path, str]]:
    """The pending runs of this data directory marked for another warehouse (a run whose load
    failed, then a collection with another --db), each with that warehouse, oldest first: not
    loaded into either."""
    mine = _warehouse(settings)
    return [(run, warehouse) for run, warehouse in _marked(settings) if warehouse != mine]


def _marked(settings: Settings) -> list[tuple[Path, str]]:
    """Every marker's run directory and warehouse, oldest first."""
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
        if isinstance(body, dict) and isinstance(body.get("warehouse"), str):
            runs.append((settings.archive_dir / marker.stem, body["warehouse"]))
    return runs


def is_archived_run(settings: Settings, run_dir: Path) -> bool:
    """True when run_dir is a run of this data directory's own archive (where markers point)."""
    return run_dir.resolve() == (settings.archive_dir / run_dir.name).resolve()
