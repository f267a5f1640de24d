"""Days as options take them: YYYY-MM-DD, or a time as chipcost prints one (its UTC day), the
same in every command that takes a day (`history`, `index`, `report`)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from chipcost.core.days import DayOutOfRange, utc_day
from chipcost.core.errors import ChipcostError
from chipcost.reports.period import parse_day

DAY = date(2026, 11, 21)


@pytest.mark.parametrize(
    "given",
    [
        "2026-11-21",
        "2026-11-21 06:00 UTC",  # a read's freshness line: "prices as of 2026-11-21 06:00 UTC"
        "2026-11-21T06:00:00+00:00",  # csv and json
        "2026-11-21T06:00:00Z",
        "2026-11-20T23:30:00-05:00",  # the evening before in New York is this day in UTC
        datetime(2026, 11, 21, 6, tzinfo=UTC),
        datetime(2026, 11, 21, 6),  # no zone: UTC, as chipcost writes times
    ],
)
def test_a_day_or_a_time_is_its_utc_day(given):
    assert utc_day(given) == DAY
    # report's --since and --until (on 0cae6cf only YYYY-MM-DD)
    assert parse_day(given, "--since") == DAY


def test_a_zoned_time_is_the_day_it_is_in_utc():
    assert utc_day(datetime(2026, 11, 21, 1, tzinfo=timezone(timedelta(hours=2)))) == date(
        2026, 11, 20
    )


@pytest.mark.parametrize("given", ["yesterday", "2026-13-01", "2026-11-21 25:00 UTC", ""])
def test_what_is_no_day_is_refused_naming_the_option(given):
    with pytest.raises(ValueError):
        utc_day(given)
    with pytest.raises(ChipcostError, match=f"--since {given!r} is not a day"):
        parse_day(given, "--since")


@pytest.mark.parametrize("given", ["0001-01-01", "1899-12-31"])
def test_a_day_no_read_can_reach_is_refused(given):
    with pytest.raises(DayOutOfRange):
        utc_day(given)
