"""`chipcost collect`: today's prices (or an archive replayed) into the warehouse, via Prefect."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.status import Status

from chipcost.cli.failures import interruptible
from chipcost.cli.options import DbOption, err, out
from chipcost.core.settings import Settings, load_settings


def collect(
    replay: Annotated[
        str | None,
        typer.Option(
            help="Parse an archive (root or one run directory, or s3://...) instead of fetching."
        ),
    ] = None,
    db: DbOption = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default: $CHIPCOST_DATA_DIR or ./data).")
    ] = None,
    source: Annotated[
        list[str] | None, typer.Option("--source", help="Run only this source (repeatable).")
    ] = None,
    notify: Annotated[
        list[str] | None,
        typer.Option(
            "--notify",
            help="Send price alerts to this apprise URL (repeatable; default $CHIPCOST_NOTIFY).",
        ),
    ] = None,
    alert_pct: Annotated[
        float | None,
        typer.Option(help="Alert on moves of at least this % (default 10 with --notify)."),
    ] = None,
    pending: Annotated[
        bool,
        typer.Option(
            "--pending", help="Only load runs earlier collections archived but did not load."
        ),
    ] = False,
) -> None:
    """Collect today's prices (or replay an archive) into the warehouse."""
    from chipcost.cli.prefect_server import command_defaults, temporary_server

    command_defaults()

    settings = load_settings(db=db, data_dir=data_dir)
    runs = _preflight(settings, replay, source, pending)

    def meanwhile() -> None:
        # While the temporary server starts, on the other core: the checks that import the
        # sources, then Prefect and the flow. An error here stops the server.
        _check_sources(settings, source, notify)
        _import_flow()

    loaded = _LoadedRuns()
    with (
        interruptible(lambda: _after_interrupt(settings, runs, loaded.runs)),
        err.status("starting Prefect…", spinner="dots") as status,
        _shown_on(status, loaded),
        temporary_server(meanwhile=meanwhile),
    ):
        from chipcost.cli.render import print_outcomes
        from chipcost.flows import collect as collect_flow

        status.update("collecting…")
        try:
            outcomes = collect_flow.run_collect(
                replay=replay,
                db=settings.warehouse.url,
                data_dir=str(settings.data_dir),
                sources=source or None,
                notify=notify or None,
                alert_pct=alert_pct,
                pending=pending,
            )
        except collect_flow.CollectFailed as exc:
            if exc.outcomes:
                print_outcomes(out, exc.outcomes, settings.warehouse)
            raise
    if not outcomes:
        out.print(f"no pending runs: every run archived for {settings.warehouse} is loaded")
        return
    print_outcomes(out, outcomes, settings.warehouse)


def _import_flow() -> None:
    import chipcost.cli.render
    import chipcost.flows.collect  # noqa: F401


@contextmanager
def _shown_on(status: Status, loaded: _LoadedRuns) -> Iterator[None]:
    """Each source's progress (the flow logs it to chipcost.progress) on the status line, and
    each committed load in `loaded`."""
    handler = _StatusHandler(status)
    logger = logging.getLogger("chipcost.progress")
    logger.addHandler(handler)
    logger.addHandler(loaded)
    logger.setLevel(logging.INFO)
    # Shown on the status line only: not printed again by the handler Prefect's logging puts
    # on the root logger (a timestamped line per source, hundreds in a replay).
    propagate, logger.propagate = logger.propagate, False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.removeHandler(loaded)
        logger.propagate = propagate


class _LoadedRuns(logging.Handler):
    """The archive runs whose load committed, in order (the flow logs each with its stamp)."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        # The flow's name for the field (chipcost.flows.collect.LOADED), without importing
        # Prefect to read it.
        if run := getattr(record, "loaded_run", None):
            self.runs.append(run)


def _after_interrupt(settings: Settings, runs: int | None, loaded: list[str]) -> str:
    """What a Ctrl-C left: each load is all or nothing, so the warehouse holds the runs that
    were loaded, whole, and nothing of the one under way."""
    from chipcost.pipeline.pending import pending_runs

    if loaded:
        span = loaded[0] if len(loaded) == 1 else f"{loaded[0]} … {loaded[-1]}"
        count = f"{len(loaded)} of {runs} runs" if runs else _runs(len(loaded))
        done = (
            f"{count} loaded ({span}) into {settings.warehouse}, each whole; nothing of the "
            "run under way"
        )
    else:
        done = f"nothing was loaded: {settings.warehouse} is as it was"
    if runs is not None:
        rest = "the rest (loaded runs are skipped)" if loaded else "them"
        return f"{done}. Run the same command again to load {rest}"
    if waiting := pending_runs(settings):
        return (
            f"{done}. What was fetched is archived in {settings.archive_dir}, "
            f"{_runs(len(waiting))} pending: `chipcost collect --pending` loads "
            f"{'them' if len(waiting) > 1 else 'it'}, and so does the next `chipcost collect`, "
            "first"
        )
    return f"{done}. Nothing fetched is waiting: run `chipcost collect` again"


def _runs(count: int) -> str:
    return f"{count} run{'s' if count != 1 else ''}"


class _StatusHandler(logging.Handler):
    def __init__(self, status: Status) -> None:
        super().__init__()
        self.status = status

    def emit(self, record: logging.LogRecord) -> None:
        self.status.update(f"[dim]{record.getMessage()}")


def _preflight(
    settings: Settings, replay: str | None, sources: list[str] | None, pending: bool
) -> int | None:
    """Catch a wrong path or option before Prefect starts, in the words the flow uses; the
    number of archived runs a replay loads.

    Only what is quick to check: the server is not started for a command that cannot run.
    """
    from chipcost.archive import location, run_directories
    from chipcost.core.errors import ChipcostError
    from chipcost.core.settings import check_data_dir
    from chipcost.warehouse.db import check_writable

    if pending and (replay or sources):
        raise ChipcostError(
            "--pending loads every run earlier collections archived but did not load: it "
            "takes neither --replay nor --source"
        )
    runs = len(run_directories(replay)) if replay is not None else None
    if replay is None or settings.db_path.parent == settings.data_dir:
        # A live run archives and downloads there; the warehouse's default place is in it.
        check_data_dir(settings)
    check_writable(settings)
    # The warehouse's directory takes its lock file and write-ahead log; a live run writes
    # the archive. A read-only one is said here, not as an OSError once Prefect runs.
    _check_can_write(settings.db_path.parent, "the warehouse's directory", "--db")
    if settings.db_path.is_file():
        _check_can_write(settings.db_path, "the warehouse", "--db")
    if replay is None:
        location(settings.archive_root)  # an s3:// archive needs the `lake` extra
        _check_can_write(settings.archive_dir, "the archive directory", "--data-dir")
    return runs


def _check_sources(settings: Settings, sources: list[str] | None, notify: list[str] | None) -> None:
    """Source names and notification URLs: these checks import every source module."""
    from chipcost.pipeline.collect import select_sources

    select_sources(sources)
    if notify or settings.notify:
        from chipcost.reports.notify import check_urls

        check_urls(notify or settings.notify)


def _check_can_write(path: Path, what: str, option: str) -> None:
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
