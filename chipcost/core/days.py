"""Days as options take them: YYYY-MM-DD, or a time as chipcost prints one, which is its UTC
day (every day chipcost keeps is a UTC day)."""

from __future__ import annotations

from datetime import UTC, date, datetime


def utc_day(value: str | date) -> date:
    """'2026-11-21' -> that day; '2026-11-21 06:00 UTC' (a read's freshness line) or ISO 8601
    ('2026-11-21T06:00:00+00:00', as csv and json write times; 'Z' too) -> its UTC day; a date
    as it is, a datetime its UTC day (one without a zone taken as UTC). ValueError otherwise."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).date() if value.tzinfo else value.date()
    if isinstance(value, date):
        return value
    text = value.strip()
    if len(text) == 10:
        return date.fromisoformat(text)
    return utc_day(datetime.fromisoformat(text.removesuffix(" UTC")))
