"""`chipcost collect`: today's prices (or an archive replayed) into the warehouse.

In this process on a thread pool (chipcost.pipeline.collection); with --prefect, as the
deployed collect flow, recorded by a Prefect server.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from chipcost.cli.consoles import print_fitted, print_wrapped
from chipcost.cli.fit import Cell, Column, fit_table, plain
from chipcost.cli.options import DataDir, Db
from chipcost.cli.parser import command
from chipcost.cli.render import print_note, status_cell
from chipcost.cli.render_fresh import SAMPLE_BANNER
from chipcost.core.clean import printable
from chipcost.core.counting import counted
from chipcost.core.questions import Opt

# chipcost.core.runs (the statuses) imports polars: imported where a summary is drawn
if TYPE_CHECKING:  # imported when it runs: `chipcost collect --help` stays light
    from chipcost.cli.consoles import Screen
    from chipcost.core.runs import SourceResult
    from chipcost.core.settings import Settings, Warehouse


def _collect(
    replay: Annotated[
        str | None,
        Opt("Parse an archive (root or one run directory, or s3://...) instead of fetching."),
    ] = None,
    db: Db = None,
    data_dir: DataDir = None,
    source: Annotated[
        list[str] | None,
        Opt(
            "Run only this source (repeatable); a provider's name (AWS, Together AI) runs each "
            "of its sources.",
            kind="names",
        ),
    ] = None,
    notify: Annotated[
        list[str] | None,
        Opt("Send price alerts to this apprise URL (repeatable; default $CHIPCOST_NOTIFY)."),
    ] = None,
    alert_pct: Annotated[
        str | None,
        Opt(
            "Alert on moves of at least this %, e.g. 10 or 10% (default 10 with --notify).",
            kind="text",
        ),
    ] = None,
    pending: Annotated[
        bool, Opt("Only load runs earlier collections archived but did not load.")
    ] = False,
    accept_moves: Annotated[
        list[str] | None,
        Opt(
            "Load this source (repeatable) even where most of its prices moved by one factor "
            "(else its run is held); once its page confirms them.",
            kind="names",
        ),
    ] = None,
    prefect: Annotated[
        bool,
        Opt(
            "Run it as the Prefect flow, recorded by the server in PREFECT_API_URL "
            "(else a temporary one)."
        ),
    ] = False,
    verbose: Annotated[
        bool,
        Opt(
            "Every note of every run as it was said, and the latest run's table of sources "
            "(default: one summary per source, a note said by several runs once, counted)."
        ),
    ] = False,
) -> None:
    """Collect today's prices (or replay an archive) into the warehouse."""
    from chipcost.cli.collect_checks import preflight
    from chipcost.cli.consoles import out
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.collection import alert_size

    alert_pct = alert_size(alert_pct, "--alert-pct")
    if notify:  # a target typed here that apprise cannot send to: a usage error, exit 2
        from chipcost.reports.notify import check_urls

        check_urls(notify, "--notify")
    settings = load_settings(db=db, data_dir=data_dir)
    runs = preflight(settings, replay, source, pending)
    asked = {
        "replay": replay,
        "sources": source or None,
        "pending": pending,
        "accept_moves": accept_moves or None,
    }
    if prefect:
        outcomes = _through_prefect(
            settings, runs, asked, notify=notify, alert_pct=alert_pct, verbose=verbose
        )
    else:
        outcomes = _here(settings, runs, asked, notify=notify, alert_pct=alert_pct, verbose=verbose)
    if not outcomes:
        out.say(_nothing_pending(settings))
        return
    print_outcomes(out, outcomes, settings.warehouse, verbose=verbose, again=settings.again())


def _nothing_pending(settings: Settings) -> str:
    """What `--pending` with nothing to load says: where a run of the data directory is pending
    for another warehouse (its load failed there, then --db changed: a full disk's "write
    elsewhere"), that run, and how to load it there or into this one."""
    import shlex

    from chipcost.pipeline.pending import pending_elsewhere

    elsewhere: dict[str, list[Path]] = {}
    for run_dir, warehouse in pending_elsewhere(settings):
        elsewhere.setdefault(warehouse, []).append(run_dir)
    if not elsewhere:
        return f"no pending runs: every run archived for {settings.warehouse} is loaded"
    count = sum(len(runs) for runs in elsewhere.values())
    named = "; ".join(
        f"{', '.join(run.name for run in runs)} for {db}" for db, runs in elsewhere.items()
    )
    data_dir, here = shlex.quote(str(settings.data_dir)), shlex.quote(str(settings.warehouse))
    there = "; ".join(
        f"`chipcost collect --pending --data-dir {data_dir} --db {shlex.quote(warehouse)}`"
        for warehouse in elsewhere
    )
    first = next(iter(elsewhere.values()))[0]
    one = count == 1
    return (
        f"no pending runs for {settings.warehouse}, but {counted(count, 'run')} of "
        f"{settings.data_dir} "
        f"{'is' if one else 'are'} pending for another warehouse, not loaded into either: "
        f"{named}. {there} loads {'it' if one else 'them'} there; "
        f"`chipcost collect --replay {shlex.quote(str(first))} --db {here}` loads "
        f"{'it' if one else 'one'} into this one instead (then no longer pending there)"
    )


def _here(
    settings: Settings,
    runs: int | None,
    asked: dict[str, Any],
    *,
    notify: list[str] | None,
    alert_pct: float | None,
    verbose: bool = False,
) -> list:
    """The collection in this process, on a thread pool: no Prefect, no server."""
    from chipcost.cli.collect_checks import check_sources
    from chipcost.cli.collect_progress import Shown, first_line, shown_on
    from chipcost.cli.failures import interruptible
    from chipcost.pipeline import collection, runners

    check_sources(settings, asked["sources"], notify, asked["accept_moves"])
    shown = Shown(runs)
    with (
        interruptible(lambda: _after_interrupt(settings, shown.runs, shown.loaded)),
        shown_on(shown, first_line(runs, asked["replay"])),
        runners.ThreadRunner() as runner,
    ):
        try:
            outcomes = collection.collect(settings, runner, **asked)
        except collection.CollectFailed as exc:
            _print_failed(settings, exc.outcomes, verbose)
            raise
        alerts = _alerts(settings, outcomes, notify, alert_pct)
        # A conflict (a run loaded before from other payloads) fails it, the rest loaded.
        if failure := "; ".join(f for f in (collection.conflicts(outcomes), alerts) if f):
            _print_failed(settings, outcomes, verbose)
            raise collection.CollectFailed(failure, outcomes)
    return outcomes


def _alerts(
    settings: Settings, outcomes: list, notify: list[str] | None, alert_pct: float | None
) -> str | None:
    """Price notifications on what was loaded (apprise targets); what failed, or None."""
    urls = list(dict.fromkeys(notify or settings.notify))
    if not outcomes or not urls:
        return None
    from chipcost.reports.collected import alert_after_collect

    return alert_after_collect(settings, [o.run for o in outcomes], alert_pct, None, urls)


def _print_failed(settings: Settings, outcomes: list, verbose: bool) -> None:
    if outcomes:
        from chipcost.cli.consoles import out

        print_outcomes(out, outcomes, settings.warehouse, verbose=verbose, again=settings.again())


def _through_prefect(
    settings: Settings,
    runs: int | None,
    asked: dict[str, Any],
    *,
    notify: list[str] | None,
    alert_pct: float | None,
    verbose: bool = False,
) -> list:
    """The collect flow, its runs and tasks recorded by a Prefect server: the one
    PREFECT_API_URL names, else a temporary one for this command."""
    from chipcost.cli.collect_checks import check_sources
    from chipcost.cli.collect_progress import Shown, first_line, shown_on
    from chipcost.cli.failures import interruptible
    from chipcost.cli.prefect_server import flow_server

    def meanwhile() -> None:
        # While the temporary server starts, on the other core: the checks that import the
        # sources, then Prefect and the flow. An error here stops the server.
        check_sources(settings, asked["sources"], notify, asked["accept_moves"])
        _import_flow()

    shown = Shown(runs)
    with (
        interruptible(lambda: _after_interrupt(settings, shown.runs, shown.loaded)),
        shown_on(shown, "starting Prefect…"),
        flow_server(
            "the collection",
            meanwhile,
            lambda: _after_interrupt(settings, shown.runs, shown.loaded),
        ),
    ):
        from chipcost.flows import collect as collect_flow

        shown.describe(first_line(runs, asked["replay"]))
        try:
            return collect_flow.run_collect(
                db=settings.warehouse.url,
                data_dir=str(settings.data_dir),
                notify=notify or None,
                alert_pct=alert_pct,
                **asked,
            )
        except collect_flow.CollectFailed as exc:
            _print_failed(settings, exc.outcomes, verbose)
            raise  # the collection's own error (a replay's full disk: pipeline/replay_stop.py)


def _import_flow() -> None:
    import chipcost.cli.render
    import chipcost.flows.collect  # noqa: F401


def _after_interrupt(settings: Settings, runs: int | None, loaded: list[str]) -> str:
    """What a Ctrl-C left: each load is all or nothing, so the warehouse holds the runs that
    were loaded, whole, and nothing of the one under way."""
    from chipcost.pipeline.pending import pending_runs
    from chipcost.pipeline.replay_stop import loaded_words, replay_left

    if runs is not None:
        return replay_left(settings, runs, loaded, "Run the same command again")
    done = loaded_words(settings, runs, loaded)
    # the pending runs something of which was archived (a run stopped inside its first
    # fetch keeps its marker while a thread may still write; the next collect drops it)
    from chipcost.archive import archived_sources

    waiting = [r for r in pending_runs(settings) if r.is_dir() and archived_sources(r)]
    if waiting:
        return (
            f"{done}. What was fetched is archived in {settings.archive_dir}, "
            f"{counted(len(waiting), 'run')} pending: `chipcost collect --pending` loads "
            f"{'them' if len(waiting) > 1 else 'it'}, and so does the next `chipcost collect`, "
            "first"
        )
    return f"{done}. Nothing fetched is waiting: run `chipcost collect` again"


# What `chipcost collect` prints at its end: the runs it loaded with their total, then one
# summary per source over every run (its statuses, its notes said once with the number of runs
# that said them). With --verbose, the latest run's table of sources and every note as each
# run said it.
_NUMBERS = ("records", "rejects", "new", "changed", "withdrawn")
# The runs listed in the table; a longer replay's earlier runs share one row (--verbose: all).
RUNS_LISTED = 10
# A note's last parenthesis, when it holds no other: the ids or versions it names, which
# differ run by run ("... left out of the medians (18402628)"): notes are grouped without it.
_DETAIL = re.compile(r"\s\([^()]*\)$")


def print_outcomes(
    console: Screen,
    outcomes: list,
    db_path: Path | Warehouse,
    *,
    verbose: bool = False,
    again: str = "",
) -> None:
    """The runs (and their total), then each source's summary over them, or with `verbose`
    the latest run's sources and every note; the sample banner and the warehouse last, with a
    read to try (`again`: what it must be given to find this warehouse, Settings.again)."""
    _print_runs(console, outcomes, every=verbose)
    if verbose:
        _print_latest_sources(console, outcomes[-1].run)
        notes = [f"{s.source}: {n}" for o in outcomes for s in o.run.sources for n in s.notes]
        for note in dict.fromkeys(notes):
            print_note(console, note, label=("note", "yellow"))
    else:
        _print_source_summaries(console, outcomes)
    if any(o.run.sample for o in outcomes):
        console.say(SAMPLE_BANNER)
    if outcomes and all(o.run.status == "failed" for o in outcomes):
        console.say(f"warehouse: {db_path}  (nothing was loaded: see the messages above)")
    else:
        console.say(f"warehouse: {db_path}")
        console.command("try: chipcost", f"prices --chip H100-SXM{again}")


def _print_runs(console: Screen, outcomes: list, *, every: bool) -> None:
    """A row per run (past RUNS_LISTED, the earlier ones share a row), and their total."""
    columns = [
        Column("run", "archive run", essential=True),
        Column("status", "status", essential=True),
        *(Column(n, n, numeric=True, essential=True) for n in _NUMBERS),
    ]
    listed = outcomes if every or len(outcomes) <= RUNS_LISTED else outcomes[-RUNS_LISTED:]
    earlier = outcomes[: len(outcomes) - len(listed)]
    cells: list[dict[str, Cell]] = []
    if earlier:
        cells.append(_row(f"{len(earlier)} earlier runs (--verbose lists them)", earlier))
    for outcome in listed:
        run = outcome.run
        label = f"{run.archive_run}{' (sample)' if run.sample else ''}"
        cells.append({"run": plain(label), "status": status_cell(run.status)} | _sums([outcome]))
    if len(outcomes) > 1:
        cells.append(_row(f"total, {len(outcomes)} runs", outcomes))
    print_fitted(console, fit_table(console, columns, cells))


def _row(label: str, outcomes: list) -> dict[str, Cell]:
    statuses = Counter(o.run.status for o in outcomes)
    said = ", ".join(f"{n} {status}" for status, n in statuses.items())
    return {"run": plain(label), "status": plain(said)} | _sums(outcomes)


def _sums(outcomes: list) -> dict[str, Cell]:
    return {n: str(sum(getattr(o.summary, n) for o in outcomes)) for n in _NUMBERS}


def _print_latest_sources(console: Screen, run) -> None:
    """--verbose: the latest run's table of sources, each with its message."""
    columns = [
        Column("source", "source", essential=True),
        Column("status", "status", essential=True),
        Column("records", "records", numeric=True, essential=True),
        Column("rejects", "rejects", numeric=True, essential=True),
        Column("seconds", "seconds", numeric=True, essential=True),
        Column("message", "message", essential=True, prose=True),  # wraps: a URL is never cut
    ]
    cells: list[dict[str, Cell]] = [
        {
            "source": plain(s.source),
            "status": status_cell(s.status),
            "records": str(len(s.records)),
            "rejects": str(len(s.rejects)),
            "seconds": f"{s.seconds:.2f}",
            "message": plain(s.message),
        }
        for s in run.sources
    ]
    title = f"sources in {run.archive_run}"
    print_fitted(console, fit_table(console, columns, cells, title=title))


@dataclass
class _Said:
    """One thing a source said in several runs: how many, and the latest run's words."""

    runs: int = 0
    latest: str = ""
    alike: bool = True
    message: bool = False  # why it failed or was skipped, not a note: said first
    refused: bool = False  # its rows refused, counted by reason: said next, never counted

    def add(self, text: str) -> None:
        self.alike = self.alike and (not self.latest or text == self.latest)
        self.runs, self.latest = self.runs + 1, text

    def shown(self, of_runs: int) -> str:
        if of_runs <= 1 or self.runs <= 1:
            return self.latest
        count = f"{self.runs} runs" if self.alike else f"{self.runs} runs, as the latest said it"
        return f"{self.latest} ({count})"


@dataclass
class _Source:
    """A source over the runs: its statuses, and its messages (where not ok) and notes."""

    name: str
    statuses: Counter = field(default_factory=Counter)
    said: dict[str, _Said] = field(default_factory=dict)

    def add(self, result: SourceResult) -> None:
        from chipcost.core.runs import ALREADY_LOADED, OK
        from chipcost.warehouse.rejects import is_refused_said

        self.statuses[result.status] += 1
        failed = result.status not in (OK, ALREADY_LOADED)
        # A note its failure message ends with (a format change, sources.md) is said there once.
        notes = [n for n in dict.fromkeys(result.notes) if not (failed and n in result.message)]
        texts = [(printable(n), False) for n in notes]
        if failed:
            texts.insert(0, (f"{result.status}: {printable(result.message)}", True))
        for text, message in texts:
            said = _Said(message=message, refused=is_refused_said(text))
            self.said.setdefault(_DETAIL.sub("", text), said).add(text)

    @property
    def quiet(self) -> bool:
        from chipcost.core.runs import ALREADY_LOADED, OK

        return not self.said and set(self.statuses) <= {OK, ALREADY_LOADED}

    def line(self, runs: int, room: int) -> str:
        """Its statuses, then what it said, each once: its failure and its rows refused, then
        as many as fit in `room` characters (one at least), the rest counted."""
        statuses = ", ".join(f"{status} {n}" for status, n in self.statuses.items())
        if len(self.statuses) == 1:  # one status in every run: its word alone
            statuses = next(iter(self.statuses))
        # Why it failed, then its rows refused (a layout change shows there first), then what
        # fewer runs said: news (a price that jumped) before what every run says.
        ordered = sorted(self.said.values(), key=lambda s: (not s.message, not s.refused, s.runs))
        said = [s.shown(runs) for s in ordered]
        if len(self.statuses) == 1 and ordered[:1] and ordered[0].message:
            said[0] = said[0].removeprefix(f"{statuses}: ")  # "failed: failed: ..." once
        if not said:
            return statuses
        line = f"{statuses}: {said[0]}"
        for n, more in enumerate(said[1:], start=1):
            left = len(said) - n
            counted = f"; {left} more note{'s' if left > 1 else ''}"
            fits = len(line) + len(more) + 2 + (len(counted) if left > 1 else 0) <= room
            if not fits and not ordered[n].refused:
                return line + counted
            line += f"; {more}"
        return line


def _print_source_summaries(console: Screen, outcomes: list) -> None:
    """One summary per source over every run: those with nothing to say in one list, each
    other a line of its own (what it said, each once, with the runs that said it)."""
    from chipcost.core.runs import ALREADY_LOADED, OK

    sources: dict[str, _Source] = {}
    for outcome in outcomes:
        for result in outcome.run.sources:
            sources.setdefault(result.source, _Source(result.source)).add(result)
    runs = len(outcomes)
    over = f"over the {runs} runs" if runs > 1 else "in this run"
    statuses = Counter(
        "ok" if set(s.statuses) <= {OK, ALREADY_LOADED} else "not ok" for s in sources.values()
    )
    # Runs of different archives hold different sources: one absent from some runs is ok in
    # those that held it, not in every run.
    some = sum(1 for s in sources.values() if s.statuses.total() < runs)
    every = " in every run" if runs > 1 else ""
    held = f" ({some} of them in only some runs)" if some else ""
    every += " that held them" if some else ""
    counted = "what several runs said, once with their count; " if runs > 1 else ""
    failed = statuses["not ok"]
    console.say(
        f"sources {over}: {len(sources)}{held}, {statuses['ok']} ok{every}"
        + (f", {failed} failed or skipped{' in some' if runs > 1 else ''}" if failed else "")
        + f" ({counted}--verbose: every note, and the table of sources)"
    )
    for source in sorted(sources.values(), key=lambda s: s.quiet):
        if not source.quiet:
            head = (f"  {source.name}", "bold")
            room = console.width - len(head[0]) - 1
            print_wrapped(console, source.line(runs, room), indent="    ", head=head)
    quiet = [s.name for s in sources.values() if s.quiet]
    if quiet:
        head = (f"  ok, nothing to note ({len(quiet)}):", "dim")
        print_wrapped(console, ", ".join(quiet), indent="    ", head=head)


collect = command(_collect, "collect")
