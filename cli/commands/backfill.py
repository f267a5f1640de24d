"""`chipcost backfill`: years of AWS on demand and reserved history from AWS's past price lists."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from chipcost.cli.options import DataDir, Db
from chipcost.cli.parser import command
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.questions import Opt

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress

    from chipcost.core.settings import Settings, Warehouse
    from chipcost.pipeline.backfill import Outcome, Version
    from chipcost.pipeline.backfill import Progress as BackfillProgress

STATUS_STYLE = {"loaded": "green", "already loaded": "dim", "skipped": "yellow", "failed": "red"}


def _backfill(
    since: Annotated[str, Opt("Load the versions in effect on or after this date (YYYY-MM-DD).")],
    region: Annotated[
        list[str] | None, Opt("Only this region (repeatable; default: every region).")
    ] = None,
    db: Db = None,
    data_dir: DataDir = None,
    workers: Annotated[int, Opt("Region files downloaded at once.", low=1)] = 2,
    prefect: Annotated[
        bool,
        Opt(
            "Run it as the Prefect flow (each file a task run), recorded by the server in "
            "PREFECT_API_URL (else a temporary one)."
        ),
    ] = False,
    spot: Annotated[
        bool,
        Opt(
            "Instead: AWS's spot prices of the last 90 days (DescribeSpotPriceHistory, "
            "AWS credentials), one run a day."
        ),
    ] = False,
) -> None:
    """Load AWS's past EC2 price lists (on demand, reserved) as history, oldest first.

    Each version becomes a run dated when its prices took effect.
    Region files download concurrently; versions load one by one, oldest first.
    It resumes where it stopped; versions already loaded are skipped.
    It downloads about 300 MB per region and version.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from chipcost.cli.consoles import live_on_stderr
    from chipcost.cli.failures import interruptible
    from chipcost.cli.prefect_server import ServerGone
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.backfill import BackfillStopped, parse_since

    settings = load_settings(db=db, data_dir=data_dir)
    parse_since(since)  # a wrong date is said before anything starts
    _check_regions(region)
    _preflight(settings)
    if spot:
        _spot(settings, parse_since(since), region)
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    loaded: list[Outcome] = []
    under_way: list[Version] = []
    began = datetime.now(UTC)
    err = live_on_stderr()
    with (
        interruptible(lambda: _after_interrupt(settings, loaded, under_way, began)),
        # Drawn on a terminal only: elsewhere rich would leave just an empty line behind.
        Progress(
            *columns,
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        ) as bar,
    ):
        run = _through_prefect if prefect else _here
        try:
            outcomes = run(settings, since, region, workers, _shown(bar, loaded, under_way))
        except BackfillStopped as exc:
            if exc.outcomes:
                bar.stop()
                _print(exc.outcomes, settings.warehouse)
            raise ChipcostError(str(exc)) from None
        except ServerGone as exc:  # what it loaded, as after a Ctrl-C
            after = _after_interrupt(settings, loaded, under_way, began)
            raise ServerGone(f"{exc}: {after}; without --prefect it needs no server") from None
    _print(outcomes, settings.warehouse)


def _here(
    settings: Settings,
    since: str,
    regions: list[str] | None,
    workers: int,
    progress: BackfillProgress,
) -> list[Outcome]:
    """The backfill in this process: region files downloaded on `workers` threads."""
    from chipcost.core.stopping import on_signals
    from chipcost.pipeline.backfill import backfill, check_stopped, parse_since
    from chipcost.pipeline.runners import Threads

    chosen = tuple(regions) if regions else None
    with on_signals(), Threads(workers) as pool:
        outcomes = backfill(settings, parse_since(since), chosen, progress=progress, pool=pool)
    check_stopped(outcomes)
    return outcomes


def _through_prefect(
    settings: Settings,
    since: str,
    regions: list[str] | None,
    workers: int,
    progress: BackfillProgress,
) -> list[Outcome]:
    """The backfill flow, each region file a task run, on the server PREFECT_API_URL names
    or else a temporary one (started while Prefect and the flow are imported)."""
    from chipcost.cli.prefect_server import flow_server

    # The server going away mid-run is said by the caller, with what loaded.
    with flow_server("the backfill", _import_flow):
        from chipcost.flows.backfill import run_backfill

        return run_backfill(
            since=since,
            regions=regions or None,
            db=settings.warehouse.url,
            data_dir=str(settings.data_dir),
            workers=workers,
            progress=progress,
        )


def _spot(settings: Settings, since, regions: list[str] | None) -> None:
    """The spot backfill: API calls and a load a day, no Prefect (pipeline/spot_backfill.py)."""
    from chipcost.cli.consoles import err, out, print_fitted
    from chipcost.cli.failures import interruptible
    from chipcost.cli.fit import Column, Styled, fit_table
    from chipcost.pipeline.spot_backfill import spot_backfill

    with interruptible(lambda: None):
        days = spot_backfill(
            settings,
            since,
            tuple(regions) if regions else None,
            progress=lambda message: err.say(message),
        )
    columns = [
        Column("day", "day", essential=True),
        Column("status", "status", essential=True),
        Column("offers", "zone prices", numeric=True, essential=True),
        Column("changes", "took effect that day", numeric=True, essential=True),
    ]
    cells = [
        {
            "day": str(day.day),
            "status": Styled(day.status, STATUS_STYLE.get(day.status, "")),
            "offers": str(day.offers),
            "changes": str(day.changes),
        }
        for day in days
    ]
    title = "spot backfill (aws-spot, one run a day)"
    print_fitted(out, fit_table(out, columns, cells, title=title))
    out.say(f"warehouse: {settings.warehouse}")
    out.command("try: chipcost", "history --chip H100-SXM --pricing-model spot")


def _check_regions(regions: list[str] | None) -> None:
    """A region that cannot be an AWS code is said before anything is downloaded."""
    from chipcost.core.settings import REGION_NAME

    for region in regions or []:
        if not REGION_NAME.match(region):
            raise UsageError(
                f"--region {region!r} is not a region code: give one code per --region, "
                "e.g. --region us-east-1 --region eu-west-1"
            )


def _preflight(settings: Settings) -> None:
    """Where it downloads, archives and loads, checked before Prefect starts, in the words of
    the options and variables that gave them (the flow is handed them as --db, --data-dir)."""
    from chipcost.archive import location
    from chipcost.core.settings import check_data_dir
    from chipcost.warehouse.db_file import check_writable

    check_data_dir(settings)  # the downloads go there
    check_writable(settings)
    location(settings.archive_root)  # an s3:// archive needs the `lake` extra


def _import_flow() -> None:
    import chipcost.flows.backfill  # noqa: F401


def _after_interrupt(
    settings: Settings, loaded: list[Outcome], under_way: list[Version], began: datetime
) -> str:
    """What a Ctrl-C left: each version loads all or nothing. A version whose load committed
    in the instant before the command counted it is found in the warehouse."""
    from chipcost.pipeline.backfill import LOADED, Outcome, loaded_since

    counted = {o.version.stamp for o in loaded}
    current = under_way[-1] if under_way else None
    if current and current.stamp not in counted and loaded_since(settings, current, began):
        loaded = [*loaded, Outcome(current, LOADED)]
    warehouse = settings.warehouse
    if not loaded:
        done = f"no version was loaded: {warehouse} is as it was"
    else:
        first, last = loaded[0].version.version, loaded[-1].version.version
        span = first if len(loaded) == 1 else f"{first} … {last}"
        count = f"{len(loaded)} version{'s' if len(loaded) > 1 else ''}"
        done = f"{count} loaded ({span}) into {warehouse}; nothing of the version under way"
    return f"{done}. Run the same command again: it resumes where it stopped"


def _shown(bar: RichProgress, loaded: list[Outcome], under_way: list[Version]) -> BackfillProgress:
    """Draws the backfill's progress: versions done of total, and what is happening now;
    each version begun goes in `under_way`, each version loaded in `loaded`."""
    from chipcost.pipeline.backfill import Progress

    class Shown(Progress):
        def __init__(self) -> None:
            self.task = bar.add_task("listing versions", total=None)
            self.label = ""

        def start(self, total: int) -> None:
            bar.update(self.task, total=total, description="versions")

        def version(self, version: Version, position: int) -> None:
            under_way.append(version)
            self.label = f"{version.version} (from {version.begin:%Y-%m-%d})"
            bar.update(self.task, description=self.label)

        def message(self, text: str) -> None:
            # Downloads run concurrently: each message names its own region.
            bar.update(self.task, description=f"{self.label}: {text}")

        def done(self, outcome: Outcome) -> None:
            if outcome.status == "loaded":
                loaded.append(outcome)
            bar.advance(self.task)

    return Shown()


def _print(outcomes: list[Outcome], db_path: Path | Warehouse) -> None:
    from chipcost.cli.consoles import out, print_fitted
    from chipcost.cli.fit import Column, Styled, fit_table, plain

    if not outcomes:
        out.say("no EC2 price list version is in effect on or after that date")
        return
    numbers = ("records", "rejects", "changes")
    columns = [
        Column("version", "version", essential=True),
        Column("effective", "effective", essential=True),
        Column("status", "status", essential=True),
        *(Column(n, n, numeric=True, essential=True) for n in numbers),
        Column("message", "message", essential=True),
    ]
    cells = []
    for o in sorted(outcomes, key=lambda o: (o.version.begin, o.version.version)):
        end = f"{o.version.end:%Y-%m-%d}" if o.version.end else "now"
        cells.append(
            {
                "version": plain(o.version.version),
                "effective": f"{o.version.begin:%Y-%m-%d} to {end}",
                "status": Styled(o.status, STATUS_STYLE.get(o.status, "white")),
                "message": plain(o.message),
            }
            | {n: str(getattr(o, n)) for n in numbers}
        )
    print_fitted(out, fit_table(out, columns, cells, title="EC2 price list versions"))
    out.say(f"warehouse: {db_path}")
    out.command(
        "try: chipcost",
        "sql \"select * from price_changes where source = 'aws-bulk' order by changed_at\"",
    )


backfill = command(_backfill, "backfill")
