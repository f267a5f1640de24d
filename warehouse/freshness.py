"""How fresh the prices shown are: per source, its last successful run, its age, sample or not."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

import duckdb

from chipcost.core.payload import AHEAD_OF_NOW
from chipcost.warehouse.db import OPEN_PRICE_ROWS
from chipcost.warehouse.fx import NONE_UNRATED, Unrated, unrated, unrated_of, unrated_offers

# Times are read as microseconds since the epoch and made UTC datetimes here: a DuckDB
# TIMESTAMPTZ fetched as a datetime brings in pytz for its time zone, a tenth of what a
# read command adds to its query.
# A failed, skipped or partial attempt never counts: the prices a source shows are those of
# its last run that succeeded ('ok'), so only that run dates them and says whether they are
# sample data. 'already_loaded' (a replay of a run already in the warehouse) adds nothing new.
# The latest attempt is the one of the newest prices (then the latest started): a replay of
# older archived runs does not hide how today's live run went. It is dated as the last success
# is, by its run's time (observed_at, as `chipcost sources --runs` lists runs): a replayed
# run's started_at is when the replay ran, not the moment it tells of. Which sources have current
# prices is asked only where the caller names none (reading current_prices is most of the
# query's time).
_SOURCES = """
SELECT
    s.source,
    epoch_us(max(r.observed_at) FILTER (WHERE s.status = 'ok')) AS last_ok_at,
    arg_max(s.run_id, r.observed_at) FILTER (WHERE s.status = 'ok') AS last_ok_run,
    arg_max(r.sample, r.observed_at) FILTER (WHERE s.status = 'ok') AS sample,
    epoch_us(max(r.observed_at)) AS last_attempt_at,
    arg_max(s.status, (r.observed_at, r.started_at)) AS last_status,
    {has_prices} AS has_prices
FROM source_runs s JOIN runs r USING (run_id)
GROUP BY s.source
ORDER BY s.source
"""


# NamedTuples rather than frozen dataclasses: each dataclass takes about a millisecond to
# define at import, and every read command imports this module.
class SourceFreshness(NamedTuple):
    """One source: when its prices were last fetched successfully, and its latest attempt."""

    source: str
    last_ok_at: datetime | None  # when the prices of its last successful run were fetched
    last_ok_run: str | None
    sample: bool  # that run replayed the bundled sample archive
    # when its run of the newest prices, whatever its outcome, was taken (the run's time, as
    # last_ok_at's; a replayed run's, not the replay's)
    last_attempt_at: datetime | None
    last_status: str

    def age(self, now: datetime) -> timedelta | None:
        return None if self.last_ok_at is None else now - self.last_ok_at

    def is_ahead(self, now: datetime) -> bool:
        """Its prices are dated ahead of the clock beyond AHEAD_OF_NOW: a run stamped in the
        future was loaded, and its prices hide every real run's until that moment."""
        return self.last_ok_at is not None and self.last_ok_at > now + AHEAD_OF_NOW

    def is_stale(self, now: datetime, stale_days: int) -> bool:
        """No success within `stale_days` of `now` (never succeeded counts as stale)."""
        age = self.age(now)
        return age is None or age > timedelta(days=stale_days)


class Freshness(NamedTuple):
    """The freshness of the sources whose prices are shown, as of `now`, and the current
    prices of the chips and providers asked that were left out for want of a rate."""

    sources: tuple[SourceFreshness, ...]
    now: datetime
    stale_days: int
    unrated: Unrated = NONE_UNRATED
    # those prices one by one, in their own currency (warehouse.fx.unrated_offers), where the
    # read asked them (freshness(listed=True)): named under its rows, not only counted
    unconverted: tuple[dict[str, object], ...] = ()

    @property
    def sample(self) -> tuple[str, ...]:
        """Sources whose shown prices are bundled sample data."""
        return tuple(s.source for s in self.sources if s.sample)

    @property
    def ahead(self) -> tuple[SourceFreshness, ...]:
        return tuple(s for s in self.sources if s.is_ahead(self.now))

    @property
    def stale(self) -> tuple[SourceFreshness, ...]:
        return tuple(s for s in self.sources if s.is_stale(self.now, self.stale_days))

    def as_of(self) -> dict[datetime | None, list[str]]:
        """Sources grouped by the time of their last success, newest first (never: None)."""
        groups: dict[datetime | None, list[str]] = {}
        dated = sorted(
            ((s.last_ok_at, s) for s in self.sources if s.last_ok_at is not None),
            key=lambda pair: pair[0],
            reverse=True,
        )
        for s in [*(s for _, s in dated), *(s for s in self.sources if s.last_ok_at is None)]:
            groups.setdefault(s.last_ok_at, []).append(s.source)
        return groups


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _utc(micros: int | None) -> datetime | None:
    return None if micros is None else _EPOCH + timedelta(microseconds=micros)


def _read(
    con: duckdb.DuckDBPyConnection, *, shown: bool = False
) -> tuple[dict[str, SourceFreshness], list[str]]:
    """Every source that has run, by name, and, if `shown`, those with current prices
    (OPEN_PRICE_ROWS; one query)."""
    has_prices = f"s.source IN (SELECT source FROM ({OPEN_PRICE_ROWS}))" if shown else "FALSE"
    rows = con.execute(_SOURCES.format(has_prices=has_prices)).fetchall()
    known = {
        row[0]: SourceFreshness(
            source=row[0],
            last_ok_at=_utc(row[1]),
            last_ok_run=row[2],
            sample=bool(row[3]),
            last_attempt_at=_utc(row[4]),
            last_status=row[5],
        )
        for row in rows
    }
    return known, [row[0] for row in rows if row[6]]


def source_freshness(con: duckdb.DuckDBPyConnection) -> dict[str, SourceFreshness]:
    """Every source that has run, by name."""
    return _read(con)[0]


def freshness(
    con: duckdb.DuckDBPyConnection,
    sources: list[str] | None,
    *,
    stale_days: int,
    now: datetime | None = None,
    chips: Sequence[str] | None = None,
    providers: Sequence[str] | None = None,
    listed: bool = False,
    regions: Sequence[str] | None = None,
    pricing_models: Sequence[str] | None = None,
    instances: Sequence[str] | None = None,
    left: Sequence[dict[str, object]] | None = None,
) -> Freshness:
    """The freshness of `sources` (the ones whose prices are shown; None: every source with
    current prices), and the current prices of `chips` and `providers` (None: any) that no
    rate converts to US dollars, which no read shows; `listed`, those prices one by one, of
    the `regions`, `pricing_models` and `instances` (None: any) too (read only when there are
    some, so a read without them runs no extra query). `left`: what a daily read found it
    left out itself, day by day (chipcost.warehouse.history.unrated_days: a euro price whose
    rates stop for some days in the middle of its span is left out of those days, which its
    last sighting's rate does not tell), said instead."""
    known, shown = _read(con, shown=sources is None)
    if sources is None:
        sources = shown
    picked = tuple(known[s] for s in dict.fromkeys(sources) if s in known)
    if left is not None:
        rows = tuple(left)
        return Freshness(picked, now or datetime.now(UTC), stale_days, unrated_of(rows), rows)
    said = unrated(con, chips=chips, providers=providers)
    unconverted: tuple[dict[str, object], ...] = ()
    if listed and said.count:
        unconverted = tuple(
            unrated_offers(
                con, chips=chips, providers=providers, regions=regions,
                pricing_models=pricing_models, instances=instances,
            )
        )  # fmt: skip
    return Freshness(picked, now or datetime.now(UTC), stale_days, said, unconverted)


# The notes of each source's latest attempt (the one of its newest prices, as last_status
# reads it) that begin with a prefix: what its latest run said of its payloads' format.
_LATEST_NOTES = """
SELECT source, notes FROM (
    SELECT s.source, list_filter(s.notes, n -> starts_with(n, ?)) AS notes,
           row_number() OVER (
               PARTITION BY s.source ORDER BY r.observed_at DESC, r.started_at DESC
           ) AS latest
    FROM source_runs s JOIN runs r USING (run_id)
)
WHERE latest = 1 AND len(notes) > 0
ORDER BY source
"""


def latest_notes(con: duckdb.DuckDBPyConnection, prefix: str) -> dict[str, list[str]]:
    """Per source, the notes of its latest attempt that begin with `prefix`."""
    return {row[0]: list(row[1]) for row in con.execute(_LATEST_NOTES, [prefix]).fetchall()}
