"""The period a report covers, and the knobs that shape it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from chipcost.core.asks import MAX_STALE_DAYS
from chipcost.core.days import DAYS_WORDS, DayOutOfRange, utc_day
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.questions import COMMAND_LINE

DEFAULT_DAYS = 7
# Bounds of the report's knobs: a 1000% spread between sources, ten years of price history
# charted; a source's staleness is bounded as every command's --stale-days (MAX_STALE_DAYS).
MAX_PCT = 1000.0
MAX_WEEKS = 3650 // 7


class ReportError(ChipcostError):
    """A report cannot be made as asked (bad dates, unusable output directory)."""


class ReportUsageError(ReportError, UsageError):
    """A report's option given a value it does not take (a day that is not one, the period's
    ends swapped): a usage error (exit 2) that is a ReportError too."""


@dataclass(frozen=True)
class ReportOptions:
    """Thresholds of the report; defaults suit a daily collection and a weekly report."""

    stale_days: int = 2  # a source with no success for this long is stale
    disagree_pct: float = 5.0  # two sources differing by more than this on one offer
    trend_days: int = 28  # how far back the sparklines go
    # Prices last seen longer ago than this are left out of "cheapest now" and the
    # comparison of sources: a source that stopped running keeps its last prices open.
    fresh_days: int = 7
    top_movers: int = 10  # rows of "what changed" in the e-mail body
    # Rows of the report page's long tables (moves, new, withdrawn; per model and workload
    # for cost per token): the page stays a read of minutes; the CSV and the explorer have
    # every row.
    report_rows: int = 16
    cost_rows: int = 3
    history_weeks: int = 12  # how far back the price history charts go
    # Your prices in "Cheapest now" and "Cost per token": a currency (None: $CHIPCOST_CURRENCY,
    # else USD) and, unless list_prices, the discounts of $CHIPCOST_DISCOUNTS.
    currency: str | None = None
    list_prices: bool = False

    def __post_init__(self) -> None:
        # Named as the report flow's parameters: the command's options are checked by click.
        # NaN compares false with everything: the range checks below refuse it too.
        if not 1 <= self.stale_days <= MAX_STALE_DAYS:
            raise ReportUsageError(
                f"stale_days {self.stale_days}: give a number of days from 1 to {MAX_STALE_DAYS}"
            )
        if not 0 < self.disagree_pct <= MAX_PCT:
            raise ReportUsageError(
                f"disagree_pct {self.disagree_pct:g}: give a percentage above 0 and up to "
                f"{MAX_PCT:g}"
            )


@dataclass(frozen=True)
class Period:
    """Whole UTC days, both ends included."""

    since: date
    until: date

    @property
    def start(self) -> datetime:
        return datetime.combine(self.since, time(), tzinfo=UTC)

    @property
    def end(self) -> datetime:
        """The first instant after the period."""
        return datetime.combine(self.until + timedelta(days=1), time(), tzinfo=UTC)

    @property
    def days(self) -> int:
        return (self.until - self.since).days + 1

    @property
    def label(self) -> str:
        if self.days == DEFAULT_DAYS:
            return f"week of {self.since.isoformat()}"
        if self.days == 1:
            return self.since.isoformat()
        return f"{self.since.isoformat()} to {self.until.isoformat()}"

    @property
    def slug(self) -> str:
        """For file names: 2026-11-15_2026-11-21."""
        return f"{self.since.isoformat()}_{self.until.isoformat()}"


def parse_day(text: str | date | None, option: str) -> date | None:
    """A YYYY-MM-DD option value (or a time as chipcost prints one: its UTC day), or a
    message naming the option."""
    if text is None:
        return None
    try:
        return utc_day(text)
    except DayOutOfRange:
        raise ReportUsageError(f"{option} {text!r}: give {DAYS_WORDS}") from None
    except ValueError:
        raise ReportUsageError(
            f"{option} {text!r} is not a day: write one that exists as YYYY-MM-DD, e.g. 2026-11-01"
        ) from None


def resolve_period(
    since: date | None, until: date | None, newest: datetime | None, today: date
) -> Period:
    """Default: the seven days up to the newest collection run (or today, before any)."""
    asked = (("since", since), ("until", until))
    try:
        if until is None:
            # The newest run's day, never a day to come (a run stamped ahead of the clock).
            until = min(newest.astimezone(UTC).date(), today) if newest else today
            if since is not None and since > until:
                if since > today:  # named as given, not as the --until it would imply
                    raise ReportUsageError(
                        f"{COMMAND_LINE.said('since', since)} is in the future (today is "
                        f"{today}, UTC): give a day that has begun"
                    )
                # a week from it, up to today: after the newest run, no price moved in it
                until = min(since + timedelta(days=DEFAULT_DAYS - 1), today)
        if since is None:
            since = until - timedelta(days=DEFAULT_DAYS - 1)
    except OverflowError:  # a week before year 1 or after 9999
        given = [COMMAND_LINE.said(n, d) for n, d in asked if d]
        raise ReportUsageError(
            f"{' / '.join(given)}: the period must fall between years 1 and 9999"
        ) from None
    if since > until:
        raise ReportUsageError(
            f"{COMMAND_LINE.said('since', since)} is after {COMMAND_LINE.said('until', until)}: "
            "swap them"
        )
    if until > today:
        # Days to come have no prices yet: every source would look stale, every table empty.
        raise ReportUsageError(
            f"{COMMAND_LINE.said('until', until)} is in the future (today is {today}, UTC): give "
            f"a day that has begun, or leave {COMMAND_LINE.name('until')} out for the week up to "
            "the newest run"
        )
    return Period(since, until)
