"""A whole collection: today's fetch, the pending runs, or a replay, each run loaded in order.

Plain Python, run by the Runner it is given: `ThreadRunner` (a thread pool) for a one-off
`chipcost collect`, Prefect tasks for a deployed run (chipcost.flows.collect). What a run
checks before its load, and the order of loads, live here and only here.
"""

from __future__ import annotations

import math
import shlex
from datetime import datetime
from pathlib import Path

from chipcost import archive
from chipcost.core.commands import PENDING, REPLAY_DIR, rebuilt
from chipcost.core.counting import counted
from chipcost.core.disk import NO_ROOM_WORDS
from chipcost.core.errors import ChipcostError, Stopped, UsageError, WarehouseBusy
from chipcost.core.network import Network
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.runs import ALREADY_LOADED, FAILED, SKIPPED, LoadSummary, RunResult, SourceResult
from chipcost.core.settings import Settings
from chipcost.core.stopping import on_signals
from chipcost.extract import Source
from chipcost.pipeline.collect import (
    WarehouseSession,
    already_loaded_runs,
    already_loaded_sources,
    check_source_settings,
    new_run_id,
    now,
    prepare_data_dir,
    select_sources,
)
from chipcost.pipeline.jumps import flag_price_jumps
from chipcost.pipeline.pending import (
    ASKED,
    BEGUN,
    Outcome,
    clear_pending,
    is_archived_run,
    mark_pending,
    note_stop,
    pending_runs,
)
from chipcost.pipeline.pending import outcomes as pending_outcomes
from chipcost.pipeline.refused_rows import note_kept, note_refused
from chipcost.pipeline.replay_stop import replay_on_full_disk
from chipcost.pipeline.runners import (
    LOADED,
    NOTE,
    REPLAYING,
    STARTED,
    Future,
    Runner,
    ThreadRunner,
    progress,
    progress_log,
)
from chipcost.warehouse.db_file import damaged_after_open, run_lock
from chipcost.warehouse.load import LoadedFrom, is_replay_conflict

# Up to this many sources, the failure message carries each one's own message.
DETAILED_FAILURES = 2
# No source asked to be loaded whatever its prices moved by (accept_moves).
NONE: frozenset[str] = frozenset()


class RunOutcome:
    """A run and what its load changed.

    A plain class, not a dataclass: Prefect walks a flow's return value through lists, dicts
    and dataclasses looking for futures, and a run holds thousands of records.
    """

    __slots__ = ("run", "summary")

    def __init__(self, run: RunResult, summary: LoadSummary) -> None:
        self.run = run
        self.summary = summary

    def __repr__(self) -> str:
        return f"RunOutcome(run={self.run.run_id!r}, summary={self.summary!r})"


class CollectFailed(Stopped):
    """The collection failed; `outcomes` holds the runs it loaded before deciding so."""


def collect(
    settings: Settings,
    runner: Runner | None = None,
    *,
    replay: str | None = None,
    sources: list[str] | None = None,
    pending: bool = False,
    accept_moves: list[str] | None = None,
) -> list[RunOutcome]:
    """Collect today's prices (or replay an archive, or load the pending runs) into the
    warehouse, on `runner` (a ThreadRunner of its own if none); ChipcostError when it cannot
    run, CollectFailed when every source failed or was skipped. A source in conflict with an
    earlier load beside others loaded fails the collection too, decided by the caller after
    its alerts (`conflicts`). `accept_moves`: sources loaded even where most of their prices
    moved by one factor (pipeline/jumps.py, TABLE_SHARE).

    A live collection also loads, before its own run, the runs earlier live collections
    archived but did not load (docs/operations.md, "Pending runs").
    """
    if runner is None:
        with ThreadRunner() as own:
            return collect(
                settings,
                own,
                replay=replay,
                sources=sources,
                pending=pending,
                accept_moves=accept_moves,
            )
    chosen = select_sources(sources)
    accept = (
        frozenset(s.name for s in select_sources(accept_moves, providers=False))
        if accept_moves
        else NONE
    )
    check_source_settings(settings, chosen)
    if replay and pending:
        raise UsageError(
            f"{COMMAND_LINE.name('pending')} loads the runs a live collection archived but did "
            f"not load; it does not go with {COMMAND_LINE.name('replay')}"
        )
    run_dirs = list(archive.run_directories(replay)) if replay else []
    if sources and run_dirs:
        run_dirs = _holding(run_dirs, chosen)
    prepare_data_dir(settings)
    network = Network(run_bytes=settings.run_payloads_max_bytes)
    done: list[str] = []  # the replayed runs whose load committed, for what a stop says
    try:
        # SIGTERM/SIGINT: every fetch stops at its next wait or chunk (chipcost.core.stopping).
        with on_signals(), run_lock(settings.warehouse), WarehouseSession(settings) as session:
            if replay:
                outcomes = _replay(settings, runner, session, chosen, run_dirs, accept, done)
            else:
                outcomes = _live(
                    settings, runner, session, chosen, network, fetch=not pending, accept=accept
                )
    except ChipcostError as exc:
        if (left := _left(settings, replay, len(run_dirs), done, exc)) is not None:
            raise left from exc
        raise
    except Exception as exc:
        # A damaged warehouse fails where a query reads the damaged part, not at open.
        if (damage := damaged_after_open(exc)) is None:
            raise
        if (left := _left(settings, replay, len(run_dirs), done, damage)) is not None:
            raise left from None
        raise damage from None
    ran = [s for o in outcomes for s in o.run.sources if s.status != ALREADY_LOADED]
    if ran and all(s.status in (FAILED, SKIPPED) for s in ran):
        raise CollectFailed(_all_failed_message(ran, network), outcomes)
    return outcomes


def _left(
    settings: Settings, replay: str | None, runs: int, done: list[str], error: ChipcostError
) -> ChipcostError | None:
    """A full disk's error with what the collection left: a replay's runs loaded and its own
    next step (replay_on_full_disk), a live collection's pending runs (_stranded); None: as
    `error` says it."""
    if replay:
        return replay_on_full_disk(settings, runs, done, error)
    return _stranded(settings, error)


def _stranded(settings: Settings, error: ChipcostError) -> ChipcostError | None:
    """A live collection whose warehouse's disk is full: its error, and what of its runs is
    pending (archived, not loaded) with how to load it into another warehouse, as the full
    disk's "write elsewhere" advises; a --pending with another --db does not load it, as its
    marker names this warehouse. None: no full disk, or nothing pending."""
    if isinstance(error, Stopped) or not any(words in str(error) for words in NO_ROOM_WORDS):
        return None
    try:
        runs = pending_runs(settings)
    except ChipcostError:  # the markers' folder is not one: the error says what it says
        return None
    if not runs:
        return None
    one = len(runs) == 1
    said = (
        f"{error}. Pending for {settings.warehouse}: {', '.join(r.name for r in runs)}; to "
        f"write elsewhere instead, `{rebuilt(shlex.quote(str(runs[0])), 'OTHER.duckdb')}` loads "
        f"{'it' if one else 'the first, and so on for each,'} there, then no longer pending "
        f"here (`{PENDING}` with another {COMMAND_LINE.name('db')} does not load "
        f"{'it: it is' if one else 'them: they are'} {settings.warehouse}'s)"
    )
    try:
        return type(error)(said)
    except TypeError:  # an error of its own arguments
        return ChipcostError(said)


def _replay(
    settings: Settings,
    runner: Runner,
    session: WarehouseSession,
    sources: list[Source],
    run_dirs: list[Path],
    accept: frozenset[str] = NONE,
    done: list[str] | None = None,
) -> list[RunOutcome]:
    """Archived runs in order, on one open of the file: which sources every run has loaded
    already, then each run's load, each its own transaction, and one checkpoint at the end
    (WarehouseSession.held). Pending-run markers of the runs are cleared after it. `done`
    gets each run's name as its load commits (what a stop before the end says was loaded).

    The next run is parsed while this one loads (DuckDB's load and polars' checks run
    outside Python's lock); one run ahead at most, so a long replay holds two runs' records.
    """

    def parse(run_dir: Path) -> tuple[datetime, Future[list[SourceResult]]]:
        chosen, here = _archived(sources, run_dir), loaded.get(run_dir.name, {})
        return now(), runner.archived(chosen, settings, run_dir, here)

    outcomes: list[RunOutcome] = []
    loaded: dict[str, dict[str, LoadedFrom]] = {}
    try:
        with session.held():
            # A new file has nothing loaded: its first run is parsed while it is made.
            ahead = parse(run_dirs[0]) if run_dirs and not session.exists() else None
            loaded = already_loaded_runs(session, [d.name for d in run_dirs])
            ahead = ahead or (parse(run_dirs[0]) if run_dirs else None)
            for run_dir, following in zip(run_dirs, [*run_dirs[1:], None], strict=True):
                started, parsing = ahead
                ahead = parse(following) if following else None
                run = _archived_run(started, run_dir, "replay", parsing.result())
                loaded_run = _load(settings, runner, session, run, run_dir, accept, clear=False)
                outcomes.append(loaded_run)
                if done is not None:
                    done.append(run.archive_run)
    finally:
        for outcome, run_dir in zip(outcomes, run_dirs, strict=False):
            _clear_pending(settings, outcome.run, run_dir)
    return outcomes


def _holding(run_dirs: list[Path], sources: list[Source]) -> list[Path]:
    """The runs of a replay asked for some sources that hold a payload of one of them; the
    others are named (a warning) and not loaded. None: ChipcostError, nothing is loaded."""
    names = {s.name for s in sources}
    asked = ", ".join(sorted(names))
    held = {d: archive.sources_in(d) for d in run_dirs}
    holding = [d for d in run_dirs if names & set(held[d])]
    if not holding:
        if len(run_dirs) == 1:
            there = ", ".join(held[run_dirs[0]]) or "none"
            where = (
                f"the archive run {run_dirs[0]} holds no payload of {asked} (its sources: {there})"
            )
        else:
            there = ", ".join(sorted({n for h in held.values() for n in h})) or "none"
            where = (
                f"none of the {len(run_dirs)} archive runs under {run_dirs[0].parent} holds a "
                f"payload of {asked} (their sources: {there})"
            )
        raise ChipcostError(
            f"{where}: nothing was loaded; give {COMMAND_LINE.name('source')} a source the "
            "archive holds, or replay an archive that holds it"
        )
    if without := [d.name for d in run_dirs if d not in holding]:
        progress_log.warning(
            "%s",
            f"not replayed: {', '.join(without)} (no payload of {asked})",
            extra={NOTE: True, REPLAYING: len(holding)},
        )
    return holding


def _archived(sources: list[Source], run_dir: Path) -> list[Source]:
    """The sources an archived run directory holds payloads of; one whose payloads have no
    manifest is kept too, so that it fails with the reason, not in silence."""
    archived = set(archive.sources_in(run_dir))
    return [s for s in sources if s.name in archived]


def _archived_run(
    started: datetime, run_dir: Path, mode: str, results: list[SourceResult]
) -> RunResult:
    """The run of an archived run directory's results (dated by its stamp if none observed)."""
    stamp = run_dir.name
    dated, sample = archive.parse_stamp(stamp), archive.is_sample(run_dir)
    return _run(started, stamp, mode, results, dated=dated, sample=sample)


def _live(
    settings: Settings,
    runner: Runner,
    session: WarehouseSession,
    sources: list[Source],
    network: Network,
    *,
    fetch: bool,
    accept: frozenset[str] = NONE,
) -> list[RunOutcome]:
    """Today's fetch, then every pending run (oldest first) and today's loaded in order.

    Today's run is pending from before its fetch until its load commits: if the load is
    refused or the process dies, the next collection loads it from the archive.
    """
    pending = pending_runs(settings)
    today = None
    if fetch:
        started = now()
        stamp = archive.run_stamp(started)
        mark_pending(settings, stamp, [s.name for s in sources])
        progress_log.info(
            "fetching %s", counted(len(sources), "source"), extra={STARTED: len(sources)}
        )
        fetches: list[Future[SourceResult]] = []
        try:
            fetches.extend(runner.source(s, settings, stamp, network) for s in sources)
            today = _run(started, stamp, "live", [f.result() for f in fetches], dated=started)
        except BaseException:  # stopped (a signal) before any load: a run with nothing
            note_stop(settings, stamp)  # the sources it cut short, for the run's pending load
            _drop_if_empty(settings, stamp, fetches)  # archived is not left pending
            raise
    outcomes = []
    try:
        for run_dir in pending:
            if (outcome := _pending(settings, runner, session, run_dir, accept)) is not None:
                outcomes.append(outcome)
        if today is not None:
            outcomes.append(_load(settings, runner, session, today, None, accept))
    except WarehouseBusy as exc:
        if today is None and not pending:
            raise
        raise WarehouseBusy(
            f"{exc}. The fetched payloads are archived in {settings.archive_dir}: the next "
            f"`chipcost collect` loads them first, or run `{PENDING}`"
        ) from exc
    return outcomes


def _drop_if_empty(settings: Settings, stamp: str, fetches: list[Future[SourceResult]]) -> None:
    """The pending marker of today's run, cleared where nothing of it was archived and every
    fetch has ended: a stop before any source's payloads were kept leaves nothing for the next
    collection to load. A fetch still winding down may yet archive a payload (the page it had
    read), so while one runs the marker stays; the next collection drops the run if it holds
    nothing. A future that cannot say whether it is done (a Prefect task run's) counts as
    running."""
    if not all(callable(done := getattr(f, "done", None)) and done() for f in fetches):
        return
    run_dir = settings.archive_dir / stamp
    if not run_dir.is_dir() or not archive.archived_sources(run_dir):
        clear_pending(settings, stamp)


def _pending(
    settings: Settings,
    runner: Runner,
    session: WarehouseSession,
    run_dir: Path,
    accept: frozenset[str],
) -> RunOutcome | None:
    """A pending live run parsed from its archive and loaded, as a live run. The sources its
    marker says failed or were skipped are recorded as the live run knew them (what a failed
    fetch archived is no payload to parse), and so are those that archived nothing (stopped,
    never begun). A run with nothing archived whose fetches were all cut short (a stop, a
    crash) is dropped; one where a source ended on its own (failed) is loaded as failed."""
    stamp = run_dir.name
    marked = pending_outcomes(settings, stamp)
    said = {name for name, o in marked.items() if o.status in (FAILED, SKIPPED) and o.message}
    there = run_dir.is_dir()
    archived = there and bool(set(archive.archived_sources(run_dir)) - said)
    if not archived and not any(_ended(o) for o in marked.values()):
        progress(f"pending run {stamp}: nothing was archived; dropped")
        clear_pending(settings, stamp)
        return None
    registered = select_sources(None)
    # Every source it archived, whatever this collection was asked to fetch.
    chosen = [s for s in _archived(registered, run_dir) if s.name not in said] if there else []
    providers = {s.name: s.provider for s in registered}
    held = {s.name for s in chosen}
    unheld = {name: o for name, o in marked.items() if name not in held}
    if unheld:  # a load committed before its marker was cleared recorded them already
        unheld = {n: o for n, o in unheld.items() if n not in _recorded(session, stamp)}
    if not chosen and not unheld:
        progress(f"pending run {stamp}: loaded before; nothing to add")
        clear_pending(settings, stamp)
        return None
    progress(f"loading pending run {stamp}")
    started = now()
    results = []
    if chosen:
        loaded = already_loaded_sources(session, stamp)
        results = runner.archived(chosen, settings, run_dir, loaded).result()
    results += [
        _not_archived(name, providers.get(name, name), outcome, run_dir)
        for name, outcome in unheld.items()
    ]
    order = {name: i for i, name in enumerate(providers)}
    results.sort(key=lambda r: order.get(r.source, len(order)))
    if there:
        run = _archived_run(started, run_dir, "live", results)
    else:  # its sources' failures alone, dated by its stamp (no archive to read)
        run = _run(started, stamp, "live", results, dated=archive.parse_stamp(stamp))
    return _load(settings, runner, session, run, run_dir, accept)


def _recorded(session: WarehouseSession, stamp: str) -> set[str]:
    """The sources source_runs holds of an archived run, whatever their status."""
    if not session.exists():
        return set()
    try:
        query = "SELECT DISTINCT source FROM source_runs WHERE archive_run = ?"
        return {row[0] for row in session.con.execute(query, [stamp]).fetchall()}
    finally:
        session.release()


def _ended(outcome: Outcome) -> bool:
    """The source's fetch ended on its own (not cut short by a stop or a crash)."""
    return outcome.status not in (ASKED, BEGUN) and not outcome.stopped


def _not_archived(name: str, provider: str, outcome: Outcome, run_dir: Path) -> SourceResult:
    """A source of a pending run with nothing archived, as its marker keeps it: failed or
    skipped with the live run's message; cut short by a stop or a crash, failed saying so."""
    if outcome.status in (FAILED, SKIPPED) and outcome.message:
        return SourceResult(name, provider, outcome.status, outcome.message)
    if outcome.status == ASKED:
        why = "the run was asked to stop" if outcome.stopped else "the collector ended"
        message = f"{name}: not begun: {why} before its fetch started; run again"
    elif outcome.status == BEGUN:
        why = (
            "as the run was asked to stop (a signal)"
            if outcome.stopped
            else "the collector ended first (killed, or its machine stopped)"
        )
        message = (
            f"{name}: stopped before its fetch ended, {why}; nothing of it was archived: run again"
        )
    else:  # ended ok, its payloads since gone from the archive
        message = f"{name}: fetched, but nothing of it is archived in {run_dir}: run again"
    return SourceResult(name, provider, FAILED, message)


def _run(
    started: datetime,
    stamp: str,
    mode: str,
    results: list[SourceResult],
    *,
    dated: datetime,
    sample: bool = False,
) -> RunResult:
    """The run of these results, dated `dated` when no source observed anything.

    An archived run whose sources all failed is dated by its archive stamp, not today:
    `runs` by observed_at is what the report's default week and freshness follow.
    """
    observed = [r.observed_at for r in results if r.observed_at]
    return RunResult(
        run_id=new_run_id(started),
        started_at=started,
        observed_at=min(observed) if observed else dated,
        mode=mode,
        archive_run=stamp,
        sample=sample,
        sources=results,
    )


def _load(
    settings: Settings,
    runner: Runner,
    session: WarehouseSession,
    run: RunResult,
    run_dir: Path | None,
    accept: frozenset[str] = NONE,
    *,
    clear: bool = True,
) -> RunOutcome:
    """Every run, live, pending or replayed, goes into the warehouse here. `accept`: the
    sources loaded even where their whole table moved (flag_price_jumps). `clear`: its
    pending-run marker is cleared now (False: the caller clears it once the load is
    checkpointed)."""
    where = str(run_dir) if run_dir is not None else f"{settings.archive_root}/{run.archive_run}"
    try:
        # Before the load: a jump is judged against the prices the warehouse held until now.
        for source, note in flag_price_jumps(
            session.con, run.sources, run_dir=where, again=settings.again(), accept=accept
        ):
            progress_log.warning("%s: %s", source, note)
        note_refused(run.sources)  # after the jumps: a source held says why, not this
        summary = runner.load(session, run)
        for source, note in note_kept(session.con, run.sources):
            progress_log.warning("%s: %s", source, note)
    finally:
        session.release()  # readers get in between a live collection's runs
    progress_log.info("loaded run %s", run.archive_run, extra={LOADED: run.archive_run})
    if clear:
        _clear_pending(settings, run, run_dir)
    runner.loaded(run, summary)
    return RunOutcome(run, summary)


def _clear_pending(settings: Settings, run: RunResult, run_dir: Path | None) -> None:
    if run_dir is None or is_archived_run(settings, run_dir):
        clear_pending(settings, run.archive_run)


def conflicts(outcomes: list[RunOutcome]) -> str | None:
    """What fails a collection that loaded the rest: a source of an archived run loaded
    before from other payloads, refused (warehouse.load.replay_conflict). Data asked to be
    loaded and not loaded, unlike a source that failed to fetch: the collection exits 1, the
    runs it loaded kept. None: no conflict."""
    refused = [
        f"{s.source} in {o.run.archive_run}"
        for o in outcomes
        for s in o.run.sources
        if is_replay_conflict(s)
    ]
    if not refused:
        return None
    one = len(refused) == 1
    shown = ", ".join(refused[:5]) + (f" and {len(refused) - 5} more" if len(refused) > 5 else "")
    return (
        f"{counted(len(refused), 'source')} of archived runs loaded before from other "
        f"payloads {'was' if one else 'were'} not loaded ({shown}): the first "
        f"load{'' if one else 's'} {'stands' if one else 'stand'}, and "
        f"{'its' if one else 'each'} message names the run to `chipcost remove-run` to take the "
        "new payloads instead; the rest was loaded"
    )


def _all_failed_message(ran: list[SourceResult], network: Network) -> str:
    if network.down():
        return (
            f"the network is unreachable ({network.said()}), so every source failed or was "
            "skipped: check the connection, DNS or proxy and run again, or replay an archive "
            f"with `{REPLAY_DIR}`"
        )
    if len(ran) <= DETAILED_FAILURES:
        details = dict.fromkeys(f"{s.source}: {s.status}: {s.message}" for s in ran)
        return "every source failed or was skipped: " + "; ".join(details)
    groups = []
    for status in (FAILED, SKIPPED):
        names = [s.source for s in ran if s.status == status]
        if names:
            groups.append(f"{len(names)} {status} ({', '.join(names)})")
    return (
        f"every source failed or was skipped: {'; '.join(groups)}. Each source's message is "
        "in the run summary; most often the network is down or the credentials are missing"
    )


def alert_size(value: object, name: str = "alert_pct") -> float | None:
    """The size of move to alert on, in percent: '10', '10%' or 10 -> 10.0, above 0 and at
    most 1,000 (a move of -5% or of NaN% alerted on every move, or on none); None: none
    asked. Every way a collection is asked (the command, the flow) checks it here."""
    if value is None:
        return None
    try:
        number = float(str(value).strip().removesuffix("%").strip())
    except ValueError:
        number = math.nan
    if isinstance(value, bool) or not 0 < number <= 1000:
        raise UsageError(
            f"{name} {value!r}: give a percent above 0 and at most 1000, e.g. 10 or 10%"
        )
    return number
