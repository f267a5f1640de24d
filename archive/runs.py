"""The runs of an archive and the sources of a run, listed: what a replay reads, what it
does not (named, never skipped in silence), and a run stamped ahead of the clock refused."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path

from chipcost.archive.store import (
    CHECK_REMOTE,
    MANIFEST,
    check_kind,
    failure,
    is_dir,
    is_remote,
    location,
    parse_stamp,
)
from chipcost.core.errors import ArchiveError
from chipcost.core.payload import AHEAD_OF_NOW


def run_directories(root: Path) -> list[Path]:
    """The run directories under an archive root, oldest first; root itself if it is one."""
    root = location(root)
    if not is_dir(root):
        there = not is_remote(root) and root.exists()
        what = "is not a directory" if there else "does not exist"
        raise ArchiveError(
            f"archive directory {root} {what}: pass the archive root or one run "
            "directory under it (see docs/archive.md)"
        )
    if _is_run_dir(root):
        return check_not_ahead(_no_links([root]))
    try:
        runs = sorted(
            (p for p in root.iterdir() if _is_run_dir(p) and is_dir(p)), key=lambda p: p.name
        )
    except ArchiveError:
        raise
    except Exception as exc:  # an object store that refuses (no credentials) or is not there
        raise ArchiveError(f"cannot list {root} ({failure(exc)}): {CHECK_REMOTE}") from exc
    if not runs:
        raise ArchiveError(
            f"{root} holds no archived runs (expected <run stamp>/<source>/manifest.json, "
            "see docs/archive.md)"
        )
    return check_not_ahead(_no_links(runs))


def _no_links(runs: list[Path]) -> list[Path]:
    """`runs`, or a refusal naming the first that is a symbolic link, before anything loads
    (each of its sources would fail alone, and the run be stored as failed)."""
    for run in runs:
        if not is_remote(run) and run.is_symlink():
            check_kind(run, stat.S_ISDIR, "a directory")
    return runs


def check_not_ahead(runs: list[Path], now: datetime | None = None) -> list[Path]:
    """`runs`, or a refusal naming the first run stamped ahead of the clock beyond
    AHEAD_OF_NOW and both times: nothing of a replay loads when one of its runs is."""
    now = now or datetime.now(UTC)
    for run in runs:
        stamped = parse_stamp(run.name)
        if stamped > now + AHEAD_OF_NOW:
            raise ArchiveError(
                f"archived run {run} is stamped {stamped:%Y-%m-%d %H:%M:%S} UTC, ahead of this "
                f"machine's clock ({now:%Y-%m-%d %H:%M:%S} UTC) by more than "
                f"{int(AHEAD_OF_NOW.total_seconds() // 60)} minutes: nothing was loaded. A clock "
                "was wrong or the archive was edited: fix the clock, or move that run directory "
                "out of the archive, and replay again"
            )
    return runs


def not_runs(root: Path) -> list[str]:
    """The directories at an archive root a replay does not read, not being named as runs are
    (`2026-11-21T060000Z.restored`, `backup`): named to the user, never skipped in silence.
    Hidden ones (a leading dot) and a root that is itself a run have none."""
    root = location(root)
    if is_remote(root) or _is_run_dir(root) or not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
        and not _is_run_dir(p)
    )  # fmt: skip


def _is_run_dir(path: Path) -> bool:
    try:
        parse_stamp(path.name)
    except ValueError:
        return False
    return True


def archived_sources(run_dir: Path) -> list[str]:
    """The sources archived in this run: those whose directory holds a manifest."""
    return sorted(name for name, files in _source_files(run_dir).items() if MANIFEST in files)


def unfinished_sources(run_dir: Path) -> list[str]:
    """Sources with payload files but no manifest (lost, or never written: the run stopped
    right after its first payload): they cannot be replayed, and say so."""
    return sorted(
        name for name, files in _source_files(run_dir).items() if files and MANIFEST not in files
    )


def sources_in(run_dir: Path) -> list[str]:
    """Every source with anything archived in this run: archived, or unfinished."""
    return sorted(name for name, files in _source_files(run_dir).items() if files)


def _source_files(run_dir: Path) -> dict[str, set[str]]:
    """The file names in each directory of a run."""
    run_dir = location(run_dir)
    if is_remote(run_dir):
        # One listing of the run's keys, not one request per source (object storage answers
        # each request in tens of milliseconds).
        try:
            keys = run_dir.fs.find(run_dir.path)
        except Exception as exc:  # an object store that refuses or is not there
            raise ArchiveError(f"cannot list {run_dir} ({failure(exc)}): {CHECK_REMOTE}") from exc
        base = run_dir.path.rstrip("/") + "/"
        found: dict[str, set[str]] = {}
        for key in keys:
            parts = key[len(base) :].split("/") if key.startswith(base) else []
            if len(parts) == 2:
                found.setdefault(parts[0], set()).add(parts[1])
        return found
    # scandir: the kind of each entry comes with the listing, not a stat per file.
    with os.scandir(run_dir) as entries:
        dirs = [e for e in entries if e.is_dir()]
    found = {}
    for entry in dirs:
        with os.scandir(entry.path) as files:
            found[entry.name] = {f.name for f in files if f.is_file()}
    return found
