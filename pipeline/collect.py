"""One source through fetch (or replay) -> parse -> validate, and one run into the warehouse.

Prefect-free: chipcost.pipeline.collection runs these for a whole collection.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from chipcost import archive
from chipcost.core.budget import ByteBudget
from chipcost.core.clean import masked, scrub
from chipcost.core.errors import ChipcostError, SourceSkipped, UsageError
from chipcost.core.names import cut, did_you_mean
from chipcost.core.network import Network
from chipcost.core.payload import Payload, sha256
from chipcost.core.record import ParseResult
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
from chipcost.core.settings import SOURCE_PAYLOADS_MAX_ENV, Settings, check_data_dir
from chipcost.core.stopping import Deadline, stopping
from chipcost.extract import FetchContext, Source, registry, source_providers
from chipcost.extract._body import Bounds
from chipcost.extract._bounds import offers_bounded
from chipcost.extract._formats import DRIFT
from chipcost.pipeline.clock import check_dates
from chipcost.pipeline.pending import BEGUN, note_source
from chipcost.pipeline.refusals import disk_message, not_empty, unexpected
from chipcost.pipeline.seed import open_warehouse
from chipcost.transform.validate import validate_batches
from chipcost.warehouse.db import checkpoint, maintain
from chipcost.warehouse.lake import lost
from chipcost.warehouse.load import LoadedFrom, load_run, loaded_sources, replay_conflict
from chipcost.warehouse.rejects import kinds_said, reason_kinds
from chipcost.warehouse.run_rows import insert_attempt

log = logging.getLogger("chipcost.collect")

Progress = Callable[[str], None]
# The WAL a held session lets grow before DuckDB checkpoints on its own (a long replay:
# every 150 or so runs of the sample's size).
HELD_WAL = "256MB"


def new_run_id(moment: datetime) -> str:
    return f"{archive.run_stamp(moment)}-{uuid.uuid4().hex[:6]}"


def select_sources(names: list[str] | None, *, providers: bool = True) -> list[Source]:
    """The registered sources to run, by name, each once; a provider's name stands for each
    of its sources ('AWS': its seven), unless not `providers` (the sources whose moves are
    accepted: each named itself, a provider's name refused with its sources); an unknown name
    is a clear error."""
    sources = registry()
    if not names:
        return list(sources.values())
    if not providers:
        from chipcost.core.names import name_among

        for name in names:
            whose = [] if name_among(name, sources) else _sources_named(name, sources)
            if len(whose) > 1:  # one provider's one source is that source: no doubt there
                raise UsageError(
                    f"{cut(name)} is a provider of {len(whose)} sources ({', '.join(whose)}): "
                    "name each source whose moves are accepted, not its provider"
                )
    named = list(dict.fromkeys(n for name in names for n in _sources_named(name, sources)))
    unknown = [n for n in named if n not in sources]
    if unknown:
        close = did_you_mean(unknown[0], sources) if len(unknown) == 1 else ""
        raise UsageError(
            f"unknown source {', '.join(cut(n) for n in unknown)}{close}: choose from "
            f"{', '.join(sources)}"
        )
    return [sources[n] for n in named]


def _sources_named(name: str, sources: Mapping[str, Source]) -> list[str]:
    """The sources a name stands for as the other name options take one: a source's name in
    any case, spaces around, in words ('Massed Compute', 'together clusters'); else a
    provider's, as --provider takes it (its code, its Source.title: 'Together AI', 'the ECB',
    'AWS'; a company's name: 'Amazon'), each of its sources: together-clusters, ecb-rates, the
    seven of aws. [name] where it names none (refused by the caller)."""
    from chipcost.core.names import name_among

    if one := name_among(name, sources):
        return [one]
    titles = {source.title: source.provider for source in sources.values() if source.title}
    provider = name_among(name, {source.provider for source in sources.values()}, titles)
    return [n for n, source in sources.items() if source.provider == provider] or [name]


def collect_source(
    source: Source,
    *,
    settings: Settings,
    stamp: str,
    replay_dir: Path | None = None,
    already_loaded: LoadedFrom | None = None,
    network: Network | None = None,
    progress: Progress = lambda message: None,
) -> SourceResult:
    """Fetch (or read from the archive), parse and validate one source; never raises.
    `network`: what the live run's requests met, shared by its sources. A live fetch notes
    its start and its outcome in the run's pending marker: what a source that archived nothing
    met is loaded from there if the run's own load does not happen."""
    live = replay_dir is None
    if live:
        note_source(settings, stamp, source.name, BEGUN)
    parsed = _fetch_and_parse(
        source, settings, stamp, replay_dir, already_loaded, progress, network
    )
    _validate([parsed], settings)
    result = _done(parsed.result, settings, progress)
    if live:
        stopped = result.status == FAILED and stopping()
        note_source(settings, stamp, source.name, result.status, result.message, stopped=stopped)
    return result


def replay_sources(
    sources: list[Source],
    *,
    settings: Settings,
    replay_dir: Path,
    already_loaded: dict[str, LoadedFrom],
    progress: Progress = lambda message: None,
) -> list[SourceResult]:
    """`collect_source` of each source of one archived run, validated together.

    A pandera validation costs about the same for a few dozen records as for a few
    thousand: a replay validates once per archived run, not once per source per run.
    """
    stamp = replay_dir.name
    budget = archive.run_budget(settings.run_payloads_max_bytes)  # the run's sources together
    parsed = [
        _fetch_and_parse(
            s, settings, stamp, replay_dir, already_loaded.get(s.name), progress, budget=budget
        )
        for s in sources
    ]
    _validate(parsed, settings)
    return [_done(p.result, settings, progress) for p in parsed]


@dataclass
class _Parsed:
    """A source's result so far and what its parser returned (None once it failed or was done)."""

    result: SourceResult
    parsed: ParseResult | None = None
    started: float = 0.0
    may_be_empty: bool = False  # the source's own word (capacity offered only at times)


def _fetch_and_parse(
    source: Source,
    settings: Settings,
    stamp: str,
    replay_dir: Path | None,
    already_loaded: LoadedFrom | None,
    progress: Progress,
    network: Network | None = None,
    *,
    budget: archive.ReadBudget | None = None,
) -> _Parsed:
    started = time.monotonic()
    result = SourceResult(source=source.name, provider=source.provider, status=OK)
    found = _Parsed(result, started=started, may_be_empty=source.may_be_empty)
    with _guarded(result, source.name, settings):
        payloads = _payloads(source, settings, stamp, replay_dir, progress, network, budget)
        result.payloads = len(payloads)
        result.payload_digest = payload_digest([sha256(p.data) for p in payloads])
        if already_loaded is not None and already_loaded.digest == result.payload_digest:
            result.status = ALREADY_LOADED
            result.message = "already loaded from this archive: nothing to do"
        elif already_loaded is not None:  # the run read again, its payloads changed since
            result.conflict = True
            named = ", ".join(p.ref or p.name for p in payloads[:3])
            more = f" and {len(payloads) - 3} more" if len(payloads) > 3 else ""
            raise ChipcostError(
                replay_conflict(
                    source.name,
                    stamp,
                    already_loaded,
                    f"{len(payloads)} payload(s) ({named}{more})",
                )
            )
        elif not payloads and replay_dir is not None:
            raise ChipcostError(
                f"{source.name}: its manifest in {replay_dir} lists no payloads, so there is "
                "nothing to replay (the fetch that archived it saved nothing)"
            )
        elif not payloads:
            raise ChipcostError(
                f"{source.name}: the fetch returned no payloads (the provider answered with "
                "nothing to save); run again later"
            )
        else:
            check_dates(source.name, stamp, payloads, now=None if replay_dir else now())
            result.observed_at = min(p.fetched_at for p in payloads)
            # Said before the parse, so a format change is named even where it fails it.
            result.notes = source.drift(payloads)
            # refused as its offers are made past the source's bound, never all held first
            with offers_bounded(source.name, source.most_offers):
                found.parsed = not_empty(source, source.parse(payloads), payloads)
    result.seconds = time.monotonic() - started
    return found


def _payloads(
    source: Source,
    settings: Settings,
    stamp: str,
    replay_dir: Path | None,
    progress: Progress,
    network: Network | None,
    budget: archive.ReadBudget | None = None,
) -> list[Payload]:
    if replay_dir is not None:
        return archive.read_payloads(
            replay_dir,
            source.name,
            max_bytes=settings.payload_max_bytes,
            max_source_bytes=settings.source_payloads_max_bytes,
            run_budget=budget,
        )
    writer = archive.ArchiveWriter(settings.archive_root, stamp, source.name, in_progress=True)
    context = FetchContext(
        archive=writer,
        progress=lambda m: progress(f"{source.name}: {m}"),
        settings=settings.sources.read(source.settings),  # the variables it declares
        download_dir=settings.data_dir / "downloads",
        deadline=Deadline.after(settings.source_deadline),
        network=network,
        bounds=_bounds(settings, network),
    )
    payloads = source.fetch(context)
    writer.finish()
    return payloads


def _bounds(settings: Settings, network: Network | None) -> Bounds:
    """What one source's fetch may take, decoded: each answer, its answers together, and the
    run's (held by the run's Network, shared by its sources)."""
    source = ByteBudget(
        settings.source_payloads_max_bytes,
        SOURCE_PAYLOADS_MAX_ENV,
        "the source's answers this run",
        "per source",
    )
    run = (network.bytes,) if network is not None else ()
    return Bounds(settings.answer_max_bytes, (source, *run))


def _validate(batch: list[_Parsed], settings: Settings) -> None:
    """Validate the parsed sources of `batch` at once; each gets its records and rejects."""
    todo = [p for p in batch if p.parsed is not None]
    if not todo:
        return
    started = time.monotonic()
    try:
        validated = validate_batches([p.parsed.records for p in todo], source_providers())
    except Exception as exc:  # a validation bug fails these sources, not the run
        for p in todo:
            _unexpected(p.result, p.result.source, exc, settings)
        return
    share = (time.monotonic() - started) / len(todo)
    for p, valid in zip(todo, validated, strict=True):
        result, parsed = p.result, p.parsed
        result.records = valid.records
        result.frame = valid.frame
        result.rejects = parsed.rejects + valid.rejects
        result.seen_keys = {r.offer_key() for r in parsed.records}
        result.notes = list(dict.fromkeys([*result.notes, *parsed.notes]))  # drift first
        result.facts = parsed.facts
        result.message = f"{len(result.records)} records, {len(result.rejects)} rejects"
        if parsed.facts:
            result.message += "".join(
                f", {len(rows)} {table} rows" for table, rows in sorted(parsed.facts.items())
            )
        elif not result.records and result.rejects and not p.may_be_empty:
            _all_refused(result)
        result.seconds += share


def _all_refused(result: SourceResult) -> None:
    """A listing whose every row was refused fails its source: a change of the provider's
    format reads so, and taking it as every offer withdrawn would empty the provider. The
    refused rows are kept in `rejects` with their reasons, said here by kind; the prices
    already held stand. The format changes found in its payloads end the message."""
    kinds = kinds_said(reason_kinds((r.reason, 1) for r in result.rejects))
    result.status, result.seen_keys = FAILED, set()
    message = (
        f"{result.source}: every one of its {len(result.rejects):,} rows was refused ({kinds}): "
        "a listing whose every row is refused is taken as a change of its format, not as "
        "every offer withdrawn; the prices already held are kept, the refused rows are in the "
        "rejects table. If it lasts, report it"
    )
    result.message = _with_drift(message, result.notes)


@contextmanager
def _guarded(result: SourceResult, name: str, settings: Settings) -> Iterator[None]:
    """Expected failures become the source's status; a parser bug must not take the others down."""
    try:
        yield
    except SourceSkipped as exc:
        result.status, result.message = SKIPPED, str(exc)
    except ChipcostError as exc:
        result.status, result.message = FAILED, _with_drift(str(exc), result.notes)
    except OSError as exc:
        result.status, result.message = FAILED, disk_message(name, exc)
    except RecursionError:  # thousands of nested tags or brackets: no provider's, unreadable
        result.status = FAILED
        result.message = (
            f"{name}: a payload is nested too deeply to read (tags or brackets inside one "
            "another, thousands of levels down): refused as malformed; if it lasts, report it"
        )
    except Exception as exc:
        _unexpected(result, name, exc, settings)


def _with_drift(message: str, notes: list[str]) -> str:
    """A failure's message with the format changes found in its payloads before the parse:
    what the provider changed is said beside what it broke."""
    drifted = [note for note in notes if note.startswith(DRIFT)]
    return "; ".join([message, *drifted])


def _unexpected(result: SourceResult, name: str, exc: Exception, settings: Settings) -> None:
    result.status = FAILED
    result.message = unexpected(name, exc, settings.secrets)


def _done(result: SourceResult, settings: Settings, progress: Progress) -> SourceResult:
    # Stored in source_runs, logged and printed: no key value, whoever echoed it.
    result.message = masked(scrub(result.message, settings.secrets))
    result.notes = scrub(result.notes, settings.secrets)
    progress(f"{result.source}: {result.status} ({result.message})")
    return result


class WarehouseSession:
    """The one writable connection of a collection, opened when needed, released after each use.

    A live collection fetches before it opens the file, so readers are not kept out while
    providers answer, and releases it after each run's load (`release`). A replay holds it
    from its first load to its last (`held`): one open and one checkpoint, where a checkpoint
    and an open per run were half its time. Opening waits for other holders up to
    settings.lock_wait. A lake keeps its connection until the session ends: its readers
    read the last commit beside a writer, and each attach costs about half a second (two
    extensions loaded and checked, the catalog read).
    """

    def __init__(self, settings: Settings, *, maintain: bool = True) -> None:
        self.settings = settings
        self._con: duckdb.DuckDBPyConnection | None = None
        self.loaded = False  # something was written: a lake is maintained when it ends
        self._maintain = maintain  # False: the caller maintains after several sessions
        self._held = False

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            prepare_data_dir(self.settings)
            self._con = open_warehouse(self.settings.warehouse, wait=self.settings.lock_wait)
            if self._held and not self.settings.is_lake:
                # DuckDB checkpoints by itself once the WAL passes 16 MB: a new file's
                # reference data and the sample's runs pass it once, and the checkpoint at
                # the end of `held` would write the same blocks again.
                self._con.execute(f"SET checkpoint_threshold = '{HELD_WAL}'")
        return self._con

    def exists(self) -> bool:
        return self._con is not None or self.settings.is_lake or self.settings.db_path.exists()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Keep a file warehouse open across several loads, each still its own transaction,
        and checkpoint once at the end instead of after each load.

        A reader waits meanwhile, as for any write (up to its wait, then refused naming the
        holder). A crash keeps every committed load: DuckDB replays its WAL at the next open;
        only a WAL torn by a crash or a full disk drops the loads since the last checkpoint,
        which replaying the archive again loads again.
        """
        self._held = True
        try:
            yield
            if self._con is not None:
                checkpoint(self._con)
        finally:
            self._held = False
            self.release()  # an error: closing checkpoints what was committed

    @property
    def checkpoints_each_load(self) -> bool:
        return not self._held

    def release(self) -> None:
        """Let readers in: a file warehouse is closed (not while `held`); a lake never keeps
        readers out."""
        if not self.settings.is_lake and not self._held:
            self.close()

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def __enter__(self) -> WarehouseSession:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        try:
            if kind is None and self.loaded and self._maintain and self.settings.is_lake:
                maintain(self.con)
        finally:
            self.close()


def already_loaded_sources(session: WarehouseSession, archive_run: str) -> dict[str, LoadedFrom]:
    """Sources loaded from this archived run; the file is released again for the parse."""
    return already_loaded_runs(session, [archive_run]).get(archive_run, {})


def already_loaded_runs(
    session: WarehouseSession, archive_runs: list[str]
) -> dict[str, dict[str, LoadedFrom]]:
    """`already_loaded_sources` of several archived runs at one open of the file."""
    if not session.exists():
        return {}
    try:
        return {run: loaded_sources(session.con, run) for run in archive_runs}
    finally:
        session.release()


def check_source_settings(settings: Settings, sources: list[Source]) -> None:
    """Read the variables the chosen sources declare once before anything runs: a malformed
    one (regions not separated by commas, a URL without http://) stops the command, named."""
    for source in sources:
        settings.sources.read(source.settings)


def prepare_data_dir(settings: Settings) -> None:
    """The data directory is ours to create; any other missing directory is the user's typo."""
    if settings.db_path.parent == settings.data_dir:
        check_data_dir(settings)  # a file in its place: said, not FileExistsError
        settings.data_dir.mkdir(parents=True, exist_ok=True)


def load(session: WarehouseSession, run: RunResult) -> LoadSummary:
    """Load a run; one whose every source was already loaded adds no run, only an attempt.

    Replaying what is loaded must change nothing users read: a `runs` row would move the
    report's default week, the freshness of prices and the sources' health.
    """
    if any(s.status != ALREADY_LOADED for s in run.sources):
        try:
            summary = load_run(
                session.con,
                run,
                observations_days=session.settings.observations_days,
                checkpointed=session.checkpoints_each_load,
            )
        except duckdb.Error as exc:
            if (gone := lost(session.settings.warehouse, exc)) is not None:
                raise gone from None
            raise
        session.loaded = True
        return summary
    if run.sources:
        insert_attempt(session.con, run)
        if session.checkpoints_each_load:
            checkpoint(session.con)
        session.loaded = True
    return LoadSummary(0, 0, 0, 0, 0)


def now() -> datetime:
    return datetime.now(UTC)
