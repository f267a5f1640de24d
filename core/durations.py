"""Durations written the ISO 8601 way (P1Y2M3DT4H5M6.5S), for output that scripts read."""

from __future__ import annotations

from datetime import timedelta

from chipcost.core.counting import counted

_MICROS = 1_000_000


def iso_duration(months: int, days: int, micros: int) -> str:
    """An ISO 8601 duration from a DuckDB interval's three parts.

    All parts negative (or zero) gives a leading minus: '-P5D'. Parts of mixed sign (DuckDB
    allows '1 month -1 day') keep their own signs, 'P1M-1D', as ISO 8601's extended form does.
    """
    parts = (months, days, micros)
    if any(p < 0 for p in parts) and all(p <= 0 for p in parts):
        return "-" + iso_duration(-months, -days, -micros)
    years, months = divmod(months, 12) if months >= 0 else (-(-months // 12), -(-months % 12))
    date_part = "".join(f"{n}{unit}" for n, unit in ((years, "Y"), (months, "M"), (days, "D")) if n)
    sign = "-" if micros < 0 else ""
    hours, rest = divmod(abs(micros), 3600 * _MICROS)
    minutes, rest = divmod(rest, 60 * _MICROS)
    seconds, fraction = divmod(rest, _MICROS)
    time_part = "".join(f"{sign}{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M")) if n)
    if seconds or fraction:
        text = f"{seconds}.{fraction:06d}".rstrip("0").rstrip(".")
        time_part += f"{sign}{text}S"
    if not date_part and not time_part:
        return "PT0S"
    return "P" + date_part + (f"T{time_part}" if time_part else "")


def iso_timedelta(value: timedelta) -> str:
    """timedelta(days=1, hours=2, minutes=30) -> 'P1DT2H30M'; negative ones get a leading '-'."""
    if value < timedelta(0):
        return "-" + iso_timedelta(-value)
    return iso_duration(0, value.days, value.seconds * _MICROS + value.microseconds)


def age_words(age: timedelta, ahead: timedelta, *, since: str = "ago") -> str:
    """'7 days ago', '3 hours ago', 'under an hour ago' ('... before' with since='before',
    as a page made earlier than it is read says it); 'AHEAD of the clock' where the moment is
    more than `ahead` in the future. The one wording of an age the reads and pages use."""
    if age < timedelta(0) and -age > ahead:
        return "AHEAD of the clock"
    if age < timedelta(hours=1):
        return f"under an hour {since}"
    if age < timedelta(days=2):
        hours = int(age.total_seconds() // 3600)
        return f"{counted(hours, 'hour')} {since}"
    return f"{age.days} days {since}"
