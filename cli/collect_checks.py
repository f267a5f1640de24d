"""What `chipcost collect` checks before it runs: paths it must write, sources, options.

Only what is quick to check, and said in the words the collection would use, before a
thread pool or a Prefect server starts for a command that cannot run.
"""

from __future__ import annotations

from pathlib import Path

from chipcost.core.settings import Settings


def preflight(
    settings: Settings, replay: str | None, sources: list[str] | None, pending: bool
) -> int | None:
    """Catch a wrong path or option before Prefect starts, in the words the flow uses; the
    number of archived runs a replay loads.

    Only what is quick to check: the server is not started for a command that cannot run.
    """
    from chipcost.archive import location, run_directories
    from chipcost.core.errors import UsageError
    from chipcost.core.settings import check_data_dir
    from chipcost.warehouse.db_file import check_writable

    if pending and (replay or sources):
        raise UsageError(
            "--pending loads every run earlier collections archived but did not load: it "
            "takes neither --replay nor --source"
        )
    if replay is not None and not replay.strip():  # it read '.', the working directory
        raise UsageError("--replay is empty: give the archive root or one run directory under it")
    runs = None
    if replay is not None:
        run_dirs = run_directories(replay)
        runs = len(run_dirs)
        _say_what_is_not_replayed(replay, run_dirs)
    if replay is None or settings.db_path.parent == settings.data_dir:
        # A live run archives and downloads there; the warehouse's default place is in it.
        check_data_dir(settings)
    check_writable(settings)
    # The warehouse's directory takes its lock file and write-ahead log; a live run writes
    # the archive. A read-only one is said here, not as an OSError once Prefect runs.
    check_can_write(settings.db_path.parent, "the warehouse's directory", "--db")
    if settings.db_path.is_file():
        check_can_write(settings.db_path, "the warehouse", "--db")
    if replay is None:
        location(settings.archive_root)  # an s3:// archive needs the `lake` extra
        root = Path(str(settings.archive_root))
        if "://" not in str(settings.archive_root) and root.exists() and not root.is_dir():
            # each source would fetch, then fail writing its payloads under a file
            raise UsageError(
                f"the archive directory {root} is not a directory: set CHIPCOST_ARCHIVE (or "
                "--data-dir) to a directory"
            )
        check_can_write(settings.archive_dir, "the archive directory", "--data-dir")
    return runs


def check_sources(
    settings: Settings,
    sources: list[str] | None,
    notify: list[str] | None,
    accept_moves: list[str] | None = None,
) -> None:
    """Source names (--source, --accept-moves) and notification URLs, before the run's first
    line: these checks import every source module."""
    from chipcost.core.errors import UsageError
    from chipcost.pipeline.collect import select_sources

    select_sources(sources)
    if accept_moves:
        try:
            select_sources(accept_moves)
        except UsageError as exc:
            raise UsageError(f"--accept-moves: {exc}") from None
    if settings.notify and not notify:  # --notify's own are checked as the command reads them
        from chipcost.core.settings import NOTIFY_ENV
        from chipcost.reports.notify import check_urls

        check_urls(settings.notify, variable=NOTIFY_ENV)


def check_can_write(path: Path, what: str, option: str) -> None:
    """Create a file in `path` (or its nearest existing parent), or open it for writing."""
    import tempfile

    from chipcost.core.errors import ChipcostError

    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        if path.is_dir():
            with tempfile.TemporaryFile(dir=path):
                pass
        else:
            with path.open("r+b"):
                pass
    except OSError as exc:
        raise ChipcostError(
            f"cannot write to {what} {path} ({exc.strerror}): make it writable (or mount it "
            f"read-write), or choose another place with {option}"
        ) from None


def _say_what_is_not_replayed(replay: str, run_dirs: list[Path]) -> None:
    """A note on stderr naming what under the archive a replay leaves unread: directories not
    named as runs are, and source directories of no registered source (a misspelt `Lambda/`)
    in `run_dirs`, the runs it replays."""
    from chipcost.archive import not_runs, sources_in
    from chipcost.cli.consoles import err
    from chipcost.extract import registry

    known = set(registry())
    skipped = [
        f"{name} (not a run: a run is named YYYY-MM-DDTHHMMSSZ)" for name in not_runs(replay)
    ]
    for run_dir in run_dirs:
        skipped += [
            f"{run_dir.name}/{name} (no source of that name)"
            for name in sources_in(run_dir)
            if name not in known
        ]
    if skipped:
        shown = ", ".join(skipped[:10]) + (
            f" and {len(skipped) - 10} more" if len(skipped) > 10 else ""
        )
        err.say(f"note: not replayed: {shown}")
