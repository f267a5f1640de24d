"""How fresh the explorer's prices are, judged as every read judges them
(chipcost.warehouse.freshness): each source's prices dated by its last successful run, never by
a run that failed or was skipped; the sources stale, dated ahead of the clock, or whose latest
attempt failed named, as `chipcost prices` names them under its table."""

from __future__ import annotations

from datetime import datetime, timedelta

from chipcost.core.durations import age_words
from chipcost.core.payload import AHEAD_OF_NOW
from chipcost.core.settings import STALE_DAYS_ENV
from chipcost.warehouse.freshness import Freshness, SourceFreshness

# A run that loaded nothing new (a replay of a run already held) is a success too.
SUCCEEDED = ("ok", "already_loaded")
# What a line says of its sources, first, as the reads mark it.
FAILED, AHEAD, STALE = "latest attempt not successful", "dated ahead", "stale"


def when(moment: datetime | None) -> str:
    return "never" if moment is None else f"{moment:%Y-%m-%d %H:%M} UTC"


def freshness_data(fresh: Freshness) -> dict[str, object]:
    """What offers.json says of the prices' freshness: `as_of` (the newest last successful run,
    as the reads' 'prices as of'), each source's last success and latest attempt, the sources
    stale and dated ahead, and `freshness`, the lines the page shows."""
    ahead = {s.source for s in fresh.ahead}
    stale = {s.source for s in fresh.stale if not s.sample}  # sample prices are the sample week
    dated = [at for at in fresh.as_of() if at is not None]
    return {
        "as_of": when(dated[0]) if dated else "",
        "sources": [
            {
                "source": s.source,
                "last_success": when(s.last_ok_at),
                "latest_attempt": s.last_status,
                "stale": s.source in stale,
                "dated_ahead": s.source in ahead,
                "sample": s.sample,
            }
            for s in fresh.sources
        ],
        "stale": sorted(stale),
        "dated_ahead": sorted(ahead),
        "freshness": freshness_lines(fresh),
    }


def freshness_lines(fresh: Freshness) -> list[str]:
    """'prices as of ...', then the sources whose latest attempt failed, those dated ahead of
    the clock and those stale, each line naming them: what the reads say under their table."""
    groups = fresh.as_of()
    if not groups:
        return []
    dated = [at for at in groups if at is not None]
    if len(groups) == 1:
        count = len(fresh.sources)
        whose = {1: "its source", 2: "both sources"}.get(count, f"all {count:,} sources")
        at = dated[0] if dated else None
        old = f"{_before(fresh.now - at)} this page was made; " if at else ""
        lines = [f"prices as of {when(at)} ({old}the last successful run of {whose})"]
    else:
        span = f"{when(dated[-1])} to {when(dated[0])}" if dated else "never"
        lines = [f"prices as of each source's last successful run ({span}; each in offers.json)"]
    failed = [s for s in fresh.sources if s.last_status not in SUCCEEDED]
    if failed:
        latest = max((s.last_attempt_at for s in failed if s.last_attempt_at), default=None)
        lines.append(
            f"{FAILED} ({when(latest)}) for "
            f"{', '.join(f'{s.source} ({s.last_status})' for s in failed)}: their prices are "
            "those of their last successful run"
        )
    lines += [_ahead(s, fresh.now) for s in fresh.ahead]
    stale = [s for s in fresh.stale if not s.sample]
    if stale:
        lines.append(
            f"{STALE} when this page was made ({when(fresh.now)}; no successful run in "
            f"{fresh.stale_days} days, {STALE_DAYS_ENV}): "
            + ", ".join(f"{s.source} (last success {when(s.last_ok_at)})" for s in stale)
        )
    return lines


def _before(age: timedelta) -> str:
    """'7 days before', as the reads say '7 days ago' (a page is read later than it is made)."""
    said = age_words(age, AHEAD_OF_NOW, since="before")
    return said + " when" if said.startswith("AHEAD") else said


def _ahead(source: SourceFreshness, now: datetime) -> str:
    run = source.last_ok_run
    return (
        f"{AHEAD}: {source.source}'s prices are from run {run}, stamped "
        f"{when(source.last_ok_at)}, after this machine's clock ({when(now)}); they hide every "
        f"real run until then: `chipcost remove-run {run}` takes it out (docs/operations.md)"
    )


def marked(line: str) -> tuple[str, str]:
    """('stale', ' when this page was made ...'): a line's mark apart from the rest ('' for
    none), for the page to set it off as the reads do."""
    for mark in (FAILED, AHEAD, STALE):
        if line.startswith(mark):
            return mark, line[len(mark) :]
    return "", line
