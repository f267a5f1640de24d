"""Time is checked: a payload is dated by its run's stamp, and one whose clock disagrees is
refused for its source before anything of it is parsed or loaded."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import duckdb

from chipcost import archive
from chipcost.core.errors import ChipcostError
from chipcost.core.payload import AHEAD_OF_NOW, Payload
from chipcost.core.questions import Voice
from chipcost.warehouse.history import newest_day

# A run's fetches start at its stamp; the slowest (every AWS price file) take a few hours.
# A payload dated before the stamp, beyond a clock's small drift, or long after it was not
# fetched by that run: its clock was wrong, or the archive was edited.
BEFORE_STAMP = timedelta(minutes=10)
AFTER_STAMP = timedelta(hours=12)


def run_moment(stamp: str) -> datetime | None:
    """The moment a run stamp (2026-11-14T060000Z) names; None for a name that is no stamp."""
    try:
        return archive.parse_stamp(stamp)
    except ValueError:
        return None


def check_dates(
    source: str, stamp: str, payloads: Sequence[Payload], *, now: datetime | None = None
) -> None:
    """Refuse the source when a payload's fetched_at is far from its run's stamp (a replay) or
    ahead of the clock (`now` for a live fetch, this machine's for a replay), naming both: a
    skewed date would prune, freeze or date the history."""
    moment = None if now is not None else run_moment(stamp)
    clock = now or datetime.now(UTC)  # a replayed payload must not be ahead of it either
    for payload in payloads:
        fetched = payload.fetched_at
        if moment is not None and not moment - BEFORE_STAMP <= fetched <= moment + AFTER_STAMP:
            against = f"its run {stamp} began at {_at(moment)}"
            raise ChipcostError(_refusal(source, payload, against))
        if fetched > clock + AHEAD_OF_NOW:
            raise ChipcostError(
                _refusal(source, payload, f"this machine's clock says {_at(clock)}")
            )


def _refusal(source: str, payload: Payload, against: str) -> str:
    return (
        f"{source}: payload {payload.ref or payload.name or '?'} ({payload.url}) says it was "
        f"fetched at {_at(payload.fetched_at)}, but {against}: a clock was wrong (or the archive "
        "was edited), so its prices are not loaded and the history keeps what it had. Check the "
        "clock of the machine that fetched it, then collect again; the payload stays archived"
    )


def _at(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def until_within(
    con: duckdb.DuckDBPyConnection, until: date | None, voice: Voice
) -> tuple[date | None, str]:
    """`until` cut to the newest day the history holds (never a day that has not come), and
    the note that says so ('' when nothing was cut): a read never expands days to come."""
    newest = newest_day(con)
    if until is None or newest is None or until <= newest:
        return until, ""
    said = voice.said("until", until.isoformat())
    return newest, f"{said} is past the newest prices ({newest}): the days are cut to {newest}"
