"""`chipcost collect`: today's prices (or an archive replayed) into the warehouse.

In this process on a thread pool (chipcost.pipeline.collection); with --prefect, as the
deployed collect flow, recorded by a Prefect server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from chipcost.cli.options import DataDir, Db
from chipcost.cli.parser import command
from chipcost.core.questions import Opt

if TYPE_CHECKING:
    from chipcost.core.settings import Settings


def _collect(
    replay: Annotated[
        str | None,
        Opt("Parse an archive (root or one run directory, or s3://...) instead of fetching."),
    ] = None,
    db: Db = None,
    data_dir: DataDir = None,
    source: Annotated[
        list[str] | None, Opt("Run only this source (repeatable).", kind="names")
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
    settings = load_settings(db=db, data_dir=data_dir)
    runs = preflight(settings, replay, source, pending)
    asked = {"replay": replay, "sources": source or None, "pending": pending}
    if prefect:
        outcomes = _through_prefect(
            settings, runs, asked, notify=notify, alert_pct=alert_pct, verbose=verbose
        )
    else:
        outcomes = _here(settings, runs, asked, notify=notify, alert_pct=alert_pct, verbose=verbose)
    from chipcost.cli.render_collect import print_outcomes

    if not outcomes:
        out.say(f"no pending runs: every run archived for {settings.warehouse} is loaded")
        return
    print_outcomes(out, outcomes, settings.warehouse, verbose=verbose, again=settings.again())


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

    check_sources(settings, asked["sources"], notify)
    shown = Shown(runs)
    with (
        interruptible(lambda: _after_interrupt(settings, runs, shown.loaded)),
        shown_on(shown, first_line(runs, asked["replay"])),
        runners.ThreadRunner() as runner,
    ):
        try:
            outcomes = collection.collect(settings, runner, **asked)
        except collection.CollectFailed as exc:
            _print_failed(settings, exc.outcomes, verbose)
            raise
        if failure := _alerts(settings, outcomes, notify, alert_pct):
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
        from chipcost.cli.render_collect import print_outcomes

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
        check_sources(settings, asked["sources"], notify)
        _import_flow()

    shown = Shown(runs)
    with (
        interruptible(lambda: _after_interrupt(settings, runs, shown.loaded)),
        shown_on(shown, "starting Prefect…"),
        flow_server(
            "the collection", meanwhile, lambda: _after_interrupt(settings, runs, shown.loaded)
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
            raise


def _import_flow() -> None:
    import chipcost.cli.render
    import chipcost.flows.collect  # noqa: F401


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


collect = command(_collect, "collect")
