"""`chipcost sources`: every source, its last successful run and its age; its runs, and what
`remove-run --dry-run` would take out of one."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from chipcost.cli.consoles import Screen, print_fitted
from chipcost.cli.fit import Column, Styled, fit_table, plain
from chipcost.cli.formats import text_value
from chipcost.cli.render_fresh import DATED_AHEAD, ago, names, when

if TYPE_CHECKING:
    import polars as pl

    from chipcost.warehouse.remove_run import RemovalPreview

_SOURCE_COLUMNS = (
    Column("source", "source", essential=True),
    Column("provider", "provider", essential=True),
    Column("last_success_at", "last success (UTC)", essential=True),
    Column("age", "age", essential=True),
    Column("stale", "stale", essential=True),
    Column("last_status", "latest attempt", essential=True),
    Column("data", "data", essential=True),
    Column("description", "description", detail=True),
)


def print_sources(console: Screen, frame: pl.DataFrame, *, stale_days: int, wide: bool) -> None:
    """Every source, and its last successful run and age when a warehouse was read."""
    if frame["last_attempt_at"].is_null().all() and not frame["stale"].any():
        essential = ("source", "provider", "description")
        columns = [Column(c.key, c.header, essential=True) for c in _SOURCE_COLUMNS]
        columns = [c for c in columns if c.key in essential]
    else:
        columns = list(_SOURCE_COLUMNS)
    rows = []
    for r in frame.iter_rows(named=True):
        rows.append(
            {k: plain(text_value(v)) for k, v in r.items()}
            | {
                "last_success_at": when(r["last_success_at"]).removesuffix(" UTC"),
                "age": ago(None if r["age_hours"] is None else _hours(r["age_hours"])),
                # The frame's own verdict, made with the threshold the legend below says: a
                # sample source past it is stale too (the data column says it is sample).
                "stale": Styled("stale", "yellow") if r["stale"] else "",
                "last_status": plain(
                    r["last_status"] or ("never run" if r["collected"] else "not collected")
                ),
                "data": {True: "sample", False: "live"}.get(r["sample"], ""),
            }
        )
    # Too wide for the terminal: the last of these go to a second line under each row first.
    fold_last = ("last_status", "data", "provider")
    fitted = fit_table(console, columns, rows, keep_order=fold_last, wide=wide)
    print_fitted(console, fitted)
    for r in frame.filter(frame["ahead"].fill_null(False)).iter_rows(named=True):
        said = (
            f": {r['source']}'s last successful run {r['last_success_run']} is dated "
            f"{when(r['last_success_at'])}, after this machine's clock: "
            f"`chipcost remove-run {r['last_success_run']}` takes it out"
        )
        console.say([DATED_AHEAD, (said, "")])
    for r in frame.iter_rows(named=True):
        for said in filter(None, (r["format_drift"] or "").splitlines()):
            console.say(said)
    for r in frame.filter(frame["retiring"].fill_null("") != "").iter_rows(named=True):
        console.say(f"{r['source']}: reads an endpoint its provider retires: {r['retiring']}")
    sampled = frame.filter(frame["sample"].fill_null(False))
    if not sampled.is_empty():
        end = sampled["last_success_at"].max()
        console.say(
            f"sample: {sampled.height} source(s) hold the sample week, ending {end:%Y-%m-%d} "
            "(the bundled sample archive, not live prices; `chipcost collect` fetches them)",
        )
    if len(columns) > 3:
        console.say(
            f"stale: no successful run in {stale_days} days (--stale-days, else "
            "CHIPCOST_STALE_DAYS)" + ("; --wide adds the descriptions" if fitted.dropped else ""),
        )


_RUN_COLUMNS = (
    Column("run_id", "run id", essential=True),
    Column("archive_run", "archive run", essential=True),
    Column("observed_at", "observed (UTC)", essential=True),
    Column("mode", "mode"),
    Column("status", "status", essential=True),
    Column("data", "data", essential=True),
    Column("records", "records", numeric=True),
    Column("rejects", "rejects", numeric=True),
    Column("history_changes", "changes", numeric=True),
)


def print_runs(
    console: Screen, frame: pl.DataFrame, *, total: int | None = None, wide: bool
) -> None:
    """The warehouse's runs, newest first, with the ids `remove-run` takes; how many first
    (`total`, of which `frame` holds the newest: all by default)."""
    if frame.is_empty():
        console.say("no runs yet: `chipcost collect` loads the first")
        return
    total = frame.height if total is None else total
    more = total > frame.height
    cut = f", the newest {frame.height:,} shown (--limit N shows more)" if more else ""
    console.say(f"{total:,} run{'s' if total != 1 else ''}, newest first{cut}")
    rows = [
        {k: plain(text_value(v)) for k, v in r.items()}
        | {
            "observed_at": when(r["observed_at"]).removesuffix(" UTC"),
            "data": "sample" if r["sample"] else "live",
        }
        for r in frame.iter_rows(named=True)
    ]
    fitted = fit_table(console, list(_RUN_COLUMNS), rows, wide=wide)
    print_fitted(console, fitted)
    console.say("`chipcost remove-run RUN_ID` takes one out")


def print_removal(console: Screen, preview: RemovalPreview, warehouse: object) -> None:
    """remove-run --dry-run: what the removal would take out and restate, nothing changed."""
    p = preview
    statuses: dict[str, list[str]] = {}
    for source, status in p.source_runs:
        statuses.setdefault(status, []).append(source)
    sources = "; ".join(f"{len(s)} {status} ({names(s)})" for status, s in statuses.items())
    lines = [
        f"dry run: nothing was changed in {warehouse}",
        f"run {p.run_id} (archive run {p.archive_run}, observed {when(p.observed_at)}) would "
        "be removed, with:",
        f"  {len(p.source_runs)} source run(s): {sources or 'none'}",
        f"  {p.observations:,} observation(s) and {p.rejects:,} reject(s)",
    ]
    if p.since is None:
        lines.append("  price_history: unchanged (no source of the run loaded)")
    else:
        lines.append(
            f"  price_history: {p.history_restated:,} row(s) of its sources from "
            f"{when(p.since)} on restated (cut back or made again from the "
            f"{p.later_runs} later run(s) that loaded them), {p.history_opened:,} of them "
            f"opened by this run; the history of {p.offers:,} offer(s) it touched"
        )
    lines.append(f"`chipcost remove-run {p.run_id}` (without --dry-run) removes it")
    for line in lines:
        console.say(line, indent="    " if line.startswith("  ") else "  ")


def _hours(hours: float) -> timedelta:
    return timedelta(hours=hours)
