"""`chipcost collect`: today's prices (or an archive replayed) into the warehouse, via Prefect."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.status import Status

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
) -> None:
    """Collect today's prices (or replay an archive) into the warehouse."""
    # The summary table and the error line say what the flow's log says; keep the console to
    # one account of it (the log still reaches the Prefect server).
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "CRITICAL")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from chipcost.cli.render import print_outcomes
    from chipcost.flows import collect as collect_flow

    settings = load_settings(db=db, data_dir=data_dir)
    _preflight(settings, replay, source)
    with err.status("collecting…", spinner="dots") as status, _shown_on(status):
        try:
            outcomes = collect_flow.run_collect(
                replay=replay,
                db=settings.warehouse.url,
                data_dir=str(settings.data_dir),
                sources=source or None,
            )
        except collect_flow.CollectFailed as exc:
            if exc.outcomes:
                print_outcomes(out, exc.outcomes, settings.warehouse)
            raise
    print_outcomes(out, outcomes, settings.warehouse)


@contextmanager
def _shown_on(status: Status) -> Iterator[None]:
    """Each source's progress (the flow logs it to chipcost.progress) on the status line."""
    handler = _StatusHandler(status)
    logger = logging.getLogger("chipcost.progress")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)


class _StatusHandler(logging.Handler):
    def __init__(self, status: Status) -> None:
        super().__init__()
        self.status = status

    def emit(self, record: logging.LogRecord) -> None:
        self.status.update(f"[dim]{record.getMessage()}")


def _preflight(settings: Settings, replay: str | None, sources: list[str] | None) -> None:
    """Catch a wrong path or name before Prefect starts, with the same words the flow uses."""
    from chipcost.archive import run_directories
    from chipcost.pipeline.collect import select_sources
    from chipcost.warehouse.db import check_writable

    select_sources(sources)
    if replay is not None:
        run_directories(replay)
    check_writable(settings)
