"""One source through fetch (or replay) -> parse -> validate, and one run into the warehouse.

Prefect-free: flows/collect.py wraps these in tasks; tests and benchmarks call them directly.
"""

from __future__ import annotations

import logging
import time
import traceback
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from chipcost import archive
from chipcost.core.clean import scrub
from chipcost.core.errors import ChipcostError, SourceSkipped
from chipcost.core.payload import sha256
from chipcost.core.runs import (
    ALREADY_LOADED,
    FAILED,
    OK,
    SKIPPED,
    LoadSummary,
    RunResult,
    SourceResult,
    payload_digest,
)
from chipcost.core.settings import Settings
from chipcost.extract import FetchContext, Source, registry
from chipcost.pipeline.seed import open_warehouse
from chipcost.transform.validate import validate_records
from chipcost.warehouse.db import checkpoint
from chipcost.warehouse.load import load_run, loaded_sources
from chipcost.warehouse.run_rows import insert_attempt

log = logging.getLogger("chipcost.collect")

Progress = Callable[[str], None]


def new_run_id(moment: datetime) -> str:
    return f"{archive.run_stamp(moment)}-{uuid.uuid4().hex[:6]}"


def select_sources(names: list[str] | None) -> list[Source]:
    """The registered sources to run, by name; an unknown name is a clear error."""
    sources = registry()
    if not names:
        return list(sources.values())
    unknown = [n for n in names if n not in sources]
    if unknown:
        raise ChipcostError(
            f"unknown source {', '.join(unknown)}: choose from {', '.join(sources)}"
        )
    return [sources[n] for n in names]


def collect_source(
    source: Source,
    *,
    settings: Settings,
    stamp: str,
    replay_dir: Path | None = None,
    already_loaded: str | None = None,
    progress: Progress = lambda message: None,
) -> SourceResult:
    """Fetch (or read from the archive), parse and validate one source; never raises."""
    started = time.monotonic()
    result = SourceResult(source=source.name, provider=source.provider, status=OK)
    try:
        if replay_dir is not None:
            payloads = archive.read_payloads(
                replay_dir, source.name, max_bytes=settings.payload_max_bytes
            )
        else:
            writer = archive.ArchiveWriter(
                settings.archive_root, stamp, source.name, in_progress=True
            )
            context = FetchContext(
                archive=writer,
                progress=lambda m: progress(f"{source.name}: {m}"),
                settings=settings.sources,
                download_dir=settings.data_dir / "downloads",
            )
            payloads = source.fetch(context)
            writer.finish()
        result.payloads = len(payloads)
        result.payload_digest = payload_digest([sha256(p.data) for p in payloads])
        if already_loaded is not None and already_loaded == result.payload_digest:
            result.status = ALREADY_LOADED
            result.message = "already loaded from this archive: nothing to do"
            return result
        if not payloads:
            raise ChipcostError(f"{source.name}: the fetch returned no payloads")
        result.observed_at = min(p.fetched_at for p in payloads)
        parsed = source.parse(payloads)
        validated = validate_records(parsed.records, frozenset(registry()))
        result.records = validated.records
        result.frame = validated.frame
        result.rejects = parsed.rejects + validated.rejects
        result.seen_keys = {r.offer_key() for r in parsed.records}
        result.notes = list(dict.fromkeys(parsed.notes))
        result.message = f"{len(result.records)} records, {len(result.rejects)} rejects"
    except SourceSkipped as exc:
        result.status, result.message = SKIPPED, str(exc)
    except ChipcostError as exc:
        result.status, result.message = FAILED, str(exc)
    except Exception as exc:  # a parser bug must not take the other sources down
        trace = "".join(traceback.format_exception(exc))
        log.error("unexpected error in source %s\n%s", source.name, scrub(trace, settings.secrets))
        result.status = FAILED
        result.message = (
            f"unexpected {type(exc).__name__} in {source.name}: {exc}. This is a bug in "
            "chipcost: the raw payloads are archived; please report it with the run directory"
        )
    finally:
        result.seconds = time.monotonic() - started
    # Stored in source_runs, logged and printed: no key value, whoever echoed it.
    result.message = scrub(result.message, settings.secrets)
    result.notes = scrub(result.notes, settings.secrets)
    progress(f"{source.name}: {result.status} ({result.message})")
    return result


class WarehouseSession:
    """The one writable connection of a collection, opened when needed, closed after each use.

    A live collection fetches before it opens the file, so readers are not kept out while
    providers answer; a replay opens it for each run's already-loaded check and for its
    load, and closes it in between (`close`), so that readers get in between runs. Opening
    waits for other holders up to settings.lock_wait.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._con: duckdb.DuckDBPyConnection | None = None

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            prepare_data_dir(self.settings)
            self._con = open_warehouse(self.settings.warehouse, wait=self.settings.lock_wait)
        return self._con

    def exists(self) -> bool:
        return (
            self._con is not None or self.settings.is_lake or self.settings.db_path.exists()
        )

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def __enter__(self) -> WarehouseSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def already_loaded_sources(session: WarehouseSession, archive_run: str) -> dict[str, str]:
    """Sources loaded from this archived run; the file is released again for the parse."""
    if not session.exists():
        return {}
    try:
        return loaded_sources(session.con, archive_run)
    finally:
        session.close()


def prepare_data_dir(settings: Settings) -> None:
    """The data directory is ours to create; any other missing directory is the user's typo."""
    if settings.db_path.parent == settings.data_dir:
        settings.data_dir.mkdir(parents=True, exist_ok=True)


def load(session: WarehouseSession, run: RunResult) -> LoadSummary:
    """Load a run; one whose every source was already loaded adds no run, only an attempt.

    Replaying what is loaded must change nothing users read: a `runs` row would move the
    report's default week, the freshness of prices and the sources' health.
    """
    if any(s.status != ALREADY_LOADED for s in run.sources):
        return load_run(session.con, run, observations_days=session.settings.observations_days)
    if run.sources:
        insert_attempt(session.con, run)
        checkpoint(session.con)
    return LoadSummary(0, 0, 0, 0, 0)


def now() -> datetime:
    return datetime.now(UTC)
