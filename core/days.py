"""Days as options take them: YYYY-MM-DD, or a time as chipcost prints one, which is its UTC
day (every day chipcost keeps is a UTC day)."""

from __future__ import annotations

from datetime import UTC, date, datetime

# The days an option may name: none before prices were sold by the hour. The last is the
# calendar's (a read cuts an --until past its newest prices to them; a report's period that
# would run past it is refused there).
EARLIEST = date(1900, 1, 1)
LATEST = date(9999, 12, 31)
DAYS_WORDS = f"a day from {EARLIEST.isoformat()} to {LATEST.isoformat()}"


class DayOutOfRange(ValueError):
    """A day that exists but that no option takes (before EARLIEST or after LATEST)."""


def utc_day(value: str | date) -> date:
    """'2026-11-21' -> that day; '2026-11-21 06:00 UTC' (a read's freshness line) or ISO 8601
    ('2026-11-21T06:00:00+00:00', as csv and json write times; 'Z' too) -> its UTC day; a date
    as it is, a datetime its UTC day (one without a zone taken as UTC). ValueError otherwise;
    DayOutOfRange for a day before EARLIEST or after LATEST."""
    day = _day(value)
    if not EARLIEST <= day <= LATEST:
        raise DayOutOfRange(DAYS_WORDS)
    return day


def _day(value: str | date) -> date:
    if isinstance(value, datetime):
        return value.astimezone(UTC).date() if value.tzinfo else value.date()
    if isinstance(value, date):
        return value
    text = value.strip()
    if len(text) == 10:
        return date.fromisoformat(text)
    return _day(datetime.fromisoformat(text.removesuffix(" UTC")))
