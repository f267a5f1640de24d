"""How fresh the shown prices are, in words: as of when, stale sources, sample data."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from chipcost.core.durations import age_words
from chipcost.core.payload import AHEAD_OF_NOW

if TYPE_CHECKING:  # DuckDB is loaded by the commands that read, not by `--help`
    from chipcost.cli.consoles import Screen
    from chipcost.cli.fit import Line
    from chipcost.warehouse.freshness import Freshness

# The marks of sample data and of a run dated after the clock, in their styles.
SAMPLE = ("SAMPLE DATA", "bold yellow")
DATED_AHEAD = ("dated ahead", "bold red")
SAMPLE_BANNER = [
    SAMPLE,
    (
        ": these prices come from the bundled sample archive (synthetic, in each provider's "
        "real payload shape), not from a live fetch.",
        "",
    ),
]
# Past this many sources a list is summarised (the warehouse has about fifteen).
_LISTED = 6


def when(moment: datetime | None) -> str:
    return "never" if moment is None else f"{moment:%Y-%m-%d %H:%M} UTC"


def ago(age: timedelta | None) -> str:
    return "never" if age is None else age_words(age, AHEAD_OF_NOW)


def names(sources: list[str]) -> str:
    if len(sources) <= _LISTED:
        return ", ".join(sources)
    return f"{', '.join(sources[:_LISTED])} and {len(sources) - _LISTED} more"


def freshness_lines(fresh: Freshness, what: str | None = "prices") -> list[Line]:
    """'prices as of ...' (unless `what` is None), stale sources, failed latest attempts, and
    the sample banner."""
    groups = fresh.as_of()
    if not groups:
        return [unrated_line(fresh)] if fresh.unrated.count else []
    lines: list[Line] = []
    newest = next(iter(groups))
    if what is None:
        pass
    elif len(groups) == 1:
        count = len(groups[newest])
        said = (
            f"{what} as of {when(newest)} ({ago(fresh.now - newest if newest else None)}; "
            f"the last successful run of {_whose(count)})"
        )
        lines.append([(said, "")])
    else:
        lines.append([(f"{what} as of each source's last successful run:", "")])
        lines += [[(f"  {when(at)}: {names(sources)}", "")] for at, sources in groups.items()]
    lines += _failed_lines(fresh) + ahead_lines(fresh)
    # Sample prices are as old as the sample week, not late: said as the week, not as stale.
    stale = [s for s in fresh.stale if not s.sample]
    if stale:
        listed = [f"{s.source} ({ago(s.age(fresh.now))})" for s in stale]
        lines.append(
            [
                ("stale", "yellow"),
                (
                    f" (no successful run in {fresh.stale_days} days, CHIPCOST_STALE_DAYS): "
                    f"{names(listed)}",
                    "",
                ),
            ]
        )
    if fresh.unrated.count:
        lines.append(unrated_line(fresh))
    sample = list(fresh.sample)
    if sample and len(sample) == len(fresh.sources):
        lines.append(sample_banner(sample_week_end(fresh)))
    elif sample:
        lines.append(
            [SAMPLE, (f" from {names(sample)}: {sample_week(fresh)}, synthetic, not fetched", "")]
        )
    return lines


def unrated_line(fresh: Freshness) -> Line:
    """The prices the read left out for want of a rate, and how to get it; where the read
    listed them, each in its own currency (chipcost.reads.price_notes.unconverted_words)."""
    from chipcost.reads.price_notes import left_out_words

    said = f": {left_out_words(fresh.unrated, fresh.unconverted)}"
    return [("no exchange rate", "yellow"), (said, "")]


def sample_week_end(fresh: Freshness) -> datetime | None:
    """The day the sample's prices shown end: their sources' newest successful run."""
    days = [s.last_ok_at for s in fresh.sources if s.sample and s.last_ok_at is not None]
    return max(days, default=None)


def sample_week(fresh: Freshness) -> str:
    end = sample_week_end(fresh)
    return "the sample week" + (f", ending {end:%Y-%m-%d}" if end else "")


def sample_banner(end: datetime | None) -> Line:
    """The banner of reads whose every price is sample data, naming the week it is."""
    week = "the sample week" + (f", ending {end:%Y-%m-%d}" if end else "")
    said = (
        f": {week}. These prices come from the bundled sample archive (synthetic, in each "
        "provider's real payload shape), not from a live fetch."
    )
    return [SAMPLE, (said, "")]


def _failed_lines(fresh: Freshness) -> list[Line]:
    """Sources whose newest attempt did not succeed: their last good prices are shown."""
    failed = [s for s in fresh.sources if s.last_status not in ("ok", "already_loaded")]
    if not failed:
        return []
    latest = max(s.last_attempt_at for s in failed if s.last_attempt_at is not None)
    listed = names([f"{s.source} ({s.last_status})" for s in failed])
    return [
        [
            ("latest attempt not successful", "yellow"),
            (
                f" ({when(latest)}) for {listed}: their prices are those of their last "
                "successful run",
                "",
            ),
        ]
    ]


def ahead_lines(fresh: Freshness) -> list[Line]:
    """Sources whose shown prices are dated ahead of the clock, and the way out."""
    return [
        [
            DATED_AHEAD,
            (
                f": {s.source}'s prices are from run {s.last_ok_run}, stamped "
                f"{when(s.last_ok_at)}, after this machine's clock ({when(fresh.now)}); they "
                f"hide every real run until then: `chipcost remove-run {s.last_ok_run}` takes "
                "it out (docs/operations.md)",
                "",
            ),
        ]
        for s in fresh.ahead
    ]


def print_freshness(screen: Screen, fresh: Freshness, what: str | None = "prices") -> None:
    """The freshness lines, each wrapped to the width at spaces."""
    for line in freshness_lines(fresh, what):
        screen.say(line)


def _whose(count: int) -> str:
    """'its source', 'both sources', 'all 34 sources'."""
    return {1: "its source", 2: "both sources"}.get(count, f"all {count} sources")
