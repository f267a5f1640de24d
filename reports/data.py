"""Everything one report shows, read from the warehouse in one go."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar

import duckdb
import polars as pl

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.clean import BREAKS, CONTROL
from chipcost.pipeline.jumps import JUMP_FACTOR
from chipcost.reads.rental_units import kinds
from chipcost.reads.your_prices import YourPrices
from chipcost.reports.estimates import with_estimates
from chipcost.reports.labels import ESTIMATED, money, with_labels
from chipcost.reports.period import Period, ReportOptions
from chipcost.warehouse.changes import (
    NEW,
    WITHDRAWN,
    Coverage,
    EventCounts,
    change_events,
    coverage,
    event_counts,
    price_moves,
)
from chipcost.warehouse.freshness import freshness
from chipcost.warehouse.fx import NONE_UNRATED, Unrated
from chipcost.warehouse.history import daily_cheapest, daily_unrated
from chipcost.warehouse.reader import in_working_memory
from chipcost.warehouse.snapshot import (
    CHEAPEST_ORDER,
    cheapest_by_model,
    cheapest_cost_per_token,
    cheapest_costs,
    cost_offers,
    priced_at,
    source_disagreements,
    source_health,
)

T = TypeVar("T")
log = logging.getLogger("chipcost.reports")


def section(name: str, read: Callable[[], T], empty: T) -> T:
    """A section's rows; a query that fails leaves the section out, said on stderr with
    DuckDB's words, and the rest of the report is still written."""
    try:
        return read()
    except duckdb.Error as exc:
        log.warning("report: the %s section is left out: %s", name, exc)
        return empty


@dataclass
class ReportData:
    period: Period
    options: ReportOptions
    coverage: Coverage
    moves: pl.DataFrame  # one row per offer whose price changed, largest move first
    # the period's new / changed / withdrawn events counted by kind; the CSV holds them all,
    # written from the warehouse (reports/build.py), never held here
    events: EventCounts
    # the first new and withdrawn offers, as many as the report shows (report_rows // 2)
    new_shown: pl.DataFrame
    withdrawn_shown: pl.DataFrame
    cheapest: pl.DataFrame  # per chip and pricing bucket, at the end of the period
    # None: the warehouse has no usable view, or the period ended before the newest prices
    cost_per_token: pl.DataFrame | None
    health: pl.DataFrame
    comparisons: pl.DataFrame  # offers priced by 2+ sources, `disagrees` flags the spread
    # each chip's cheapest price per day per pricing model over the last history_weeks
    history: pl.DataFrame = field(default_factory=pl.DataFrame)
    # the articles' questions (is Trainium2 cheaper per token than H100?), as `chipcost
    # compare` answers them; None when cost per token is not shown (see cost_per_token)
    head_to_head: pl.DataFrame | None = None
    # throughput against per-user speed of the chips the articles ask about (its chart)
    speed_curve: tuple[dict, ...] = ()
    # per chip, the on demand price index at the period's end and its move over the period
    index: pl.DataFrame = field(default_factory=pl.DataFrame)
    generated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    # The sources stale when the report was made, judged as the reads and `chipcost sources`
    # judge (chipcost.warehouse.freshness, at generated_at); None when not judged.
    stale_now: tuple[str, ...] | None = None
    # The current prices no read could show when the report was made, for want of a rate.
    unrated: Unrated = NONE_UNRATED
    # those prices one by one, in their own currency (warehouse.fx.unrated_offers)
    unconverted: tuple[dict[str, object], ...] = ()
    # The sources whose prices are the bundled sample's (never called stale: they are as old
    # as the sample week), and the day that week ends.
    sample_now: tuple[str, ...] = ()
    sample_week_end: datetime | None = None
    # What "Cheapest now" and "Cost per token" are in: your currency and the lines saying which
    # discounts and rates applied (empty: list prices in US dollars).
    currency: str = "USD"
    yours: tuple[str, ...] = ()

    @property
    def sample(self) -> bool:
        return self.coverage.sample

    @property
    def first_seen(self) -> int:
        """Offers whose history began in this period (a source's first run): not news."""
        return self.events.first_seen

    @property
    def real_moves(self) -> pl.DataFrame:
        """The moves that are not jump-and-back glitches."""
        return self.moves.filter(~pl.col("jump_back")) if "jump_back" in self.moves else self.moves

    @property
    def glitches(self) -> pl.DataFrame:
        """Offers whose price jumped out and came back (a data glitch, most likely)."""
        if "jump_back" not in self.moves:
            return self.moves.clear()
        return self.moves.filter(pl.col("jump_back"))

    @property
    def price_changes(self) -> int:
        """Price changes in the period (an offer may change more than once): the CSV's rows
        of changed prices."""
        return self.events.changed

    @property
    def disagreements(self) -> pl.DataFrame:
        return self.comparisons.filter(pl.col("disagrees"))

    @property
    def stale_sources(self) -> pl.DataFrame:
        return self.health.filter(pl.col("stale"))

    @property
    def has_history(self) -> bool:
        return self.coverage.newest_observation is not None

    @property
    def ended_before_newest_prices(self) -> bool:
        return _ended_before_newest_prices(self.coverage, self.period.end)

    @property
    def running(self) -> bool:
        """The period's last day had not ended when the report was made (today's report)."""
        return self.generated_at < self.period.end

    @property
    def at_end(self) -> str:
        """When the report's prices are of: 'at the end of 2026-11-21', or 'as of 2026-11-29
        02:15 UTC' for a period whose last day is still running (its end is yet to come)."""
        if self.running:
            return f"as of {self.generated_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
        return f"at the end of {self.period.until}"

    @property
    def watched(self) -> pl.DataFrame:
        """The health rows of the sources meant to be collected in the period: all but those
        whose every run in it was skipped (no credentials: not set up here, said in Health)."""
        if self.health.is_empty():
            return self.health
        skipped = (pl.col("runs") > 0) & (pl.col("skipped_runs") == pl.col("runs"))
        return self.health.filter(~(skipped & (pl.col("ok_runs") == 0)))

    @property
    def collected(self) -> int:
        """Sources with a successful run in the period: whose prices were seen in it."""
        return self.health.filter(pl.col("ok_runs") > 0).height if self.health.height else 0

    @property
    def not_collected(self) -> list[str]:
        """The sources meant to be collected that had no successful run in the period (every
        run failed, or none ran): no move of their prices could be seen."""
        watched = self.watched
        if watched.is_empty():
            return []
        return watched.filter(pl.col("ok_runs") == 0)["source"].to_list()

    @property
    def nothing_collected(self) -> bool:
        """Collection runs in the period, and not one source succeeded in any of them."""
        return (
            self.coverage.runs_in_period > 0 and not self.health.is_empty() and not self.collected
        )


def _ended_before_newest_prices(covered: Coverage, end: datetime) -> bool:
    """The period ended before the newest prices: cost per token, computed at current prices
    only, is not of this period (nor is its sample flag), so it is not shown."""
    newest = covered.newest_observation
    return newest is not None and newest >= end


def _quiet(_: str) -> None:
    """No progress said (a schedule, a test)."""


def gather(
    con: duckdb.DuckDBPyConnection,
    period: Period,
    options: ReportOptions,
    step: Callable[[str], None] = _quiet,
    now: datetime | None = None,
) -> ReportData:
    """Run every report query for the period against an open (read-only) warehouse; `step`
    is told, before each read, which section's data it reads (`chipcost report` shows it);
    `now`: when the report is made (the clock's time when not given)."""
    from chipcost.reads.your_prices import for_read

    mine = for_read(con, options.currency, options.list_prices)
    start, end = period.start, period.end
    fresh = end - timedelta(days=options.fresh_days)
    step("reading the cheapest prices now")
    cheapest, yours = _cheapest(con, end, fresh, mine)
    step("reading what changed")
    moves = price_moves(con, start, end, end - timedelta(days=options.trend_days))
    covered = coverage(con, start, end)
    # every event counted, in bounded memory (reader.CUT_MEMORY), none of them held
    events = in_working_memory(con, lambda: event_counts(con, start, end))
    shown = options.report_rows // 2
    new_shown, withdrawn_shown = (_first_events(con, period, k, shown) for k in (NEW, WITHDRAWN))
    later = _ended_before_newest_prices(covered, end)
    generated = now or datetime.now(UTC)
    step("reading the sources' health")
    # A period whose last day is still running is judged as of now, not at its end to come:
    # "not succeeded in the 2 days before" counts back from the moment the report says.
    stale_before = min(end, generated) - timedelta(days=options.stale_days)
    health = _collected(printable_text(source_health(con, start, end, stale_before)))
    judged = freshness(
        con,
        health["source"].to_list() if not health.is_empty() else [],
        stale_days=options.stale_days,
        now=generated,
        # those left out of any day it shows for want of a rate, each run of days named in
        # its own currency: today's prices, the week's and its history's and index's days
        left=daily_unrated(con, since=_shown_since(period, options), until=period.until),
    )
    step("reading cost per token")
    costs = None if later else _labelled(printable_text(_costs(con, end, mine)))
    step("reading where sources disagree")
    comparisons = printable_text(source_disagreements(con, end, fresh, options.disagree_pct))
    step("reading the price history")
    history = _history(con, period, options)
    step("reading the head-to-head answers")
    head_to_head = None if later else _head_to_head(con, options, mine)
    speed_curve = () if later else _speed_curve(con)
    step("reading the price index")
    index = _index(con, period)
    return ReportData(
        generated_at=generated,
        stale_now=tuple(s.source for s in judged.stale if not s.sample),
        unrated=judged.unrated,
        unconverted=judged.unconverted,
        sample_now=judged.sample,
        sample_week_end=max(
            (s.last_ok_at for s in judged.sources if s.sample and s.last_ok_at), default=None
        ),
        period=period,
        options=options,
        coverage=covered,
        moves=with_jumps(with_labels(printable_text(with_estimates(con, moves, "changed_at")))),
        events=events,
        new_shown=new_shown,
        withdrawn_shown=withdrawn_shown,
        cheapest=with_labels(printable_text(with_estimates(con, cheapest, "last_seen_at"))),
        cost_per_token=costs,
        currency=mine.currency,
        yours=tuple(yours),
        health=health,
        comparisons=with_labels(comparisons),
        history=history,
        head_to_head=head_to_head,
        speed_curve=speed_curve,
        index=index,
    )


def _first_events(
    con: duckdb.DuckDBPyConnection, period: Period, kind: str, rows: int
) -> pl.DataFrame:
    """The first `rows` events of a kind (NEW, WITHDRAWN) as the report shows them: every event
    is sorted to find them, in bounded memory (reader.CUT_MEMORY)."""
    events = in_working_memory(
        con, lambda: change_events(con, period.start, period.end, kind, rows)
    )
    return with_labels(printable_text(events))


def _cheapest(
    con: duckdb.DuckDBPyConnection, end: datetime, fresh: datetime, mine
) -> tuple[pl.DataFrame, list[str]]:
    """Per chip and bucket the cheapest price at `end` (the list prices' choice, or yours),
    and the lines saying which discounts and rates made yours."""
    if not mine.active:
        return cheapest_by_model(con, end, fresh), []
    priced = mine.frame(priced_at(con, end, fresh, mine.converting))
    chosen = priced.sort(CHEAPEST_ORDER).group_by("chip", "bucket", maintain_order=True).first()
    return chosen.sort("chip", "bucket"), mine.notes(priced.to_dicts())


def _costs(con: duckdb.DuckDBPyConnection, end: datetime, mine) -> pl.DataFrame | None:
    """cheapest_cost_per_token, on your prices (rates of the period's end) where you have any."""
    if not mine.active:
        return cheapest_cost_per_token(con)
    fitted = cost_offers(con, mine.converting, end.date())
    if fitted is None:
        return None
    return cheapest_costs(mine.frame(fitted, price=None))


def _collected(health: pl.DataFrame) -> pl.DataFrame:
    """The health of the sources chipcost collects: a source registered but never collected
    by design is neither healthy nor stale, and is not counted, as `sources` says."""
    from chipcost.extract import registry

    kept = [name for name, source in registry().items() if not source.collected]
    if health.is_empty() or not kept:
        return health
    return health.filter(~pl.col("source").is_in(kept))


def _index(con: duckdb.DuckDBPyConnection, period: Period) -> pl.DataFrame:
    """Per chip: the on demand index on the period's last day, the day before it began, the
    move between, and the constituents (docs/price-index.md)."""
    from chipcost.pipeline.jumps import JUMP_FACTOR
    from chipcost.warehouse.price_index import price_index

    before = period.since - timedelta(days=1)
    daily = section(
        "price index",
        lambda: price_index(con, None, ["on_demand"], before, period.until, jump=JUMP_FACTOR),
        pl.DataFrame(),
    )
    if daily.is_empty():
        return daily
    daily = daily.filter(pl.col("level").is_not_null())  # a day whose every price was left out
    if daily.is_empty():
        return daily
    ordered = daily.sort("day")
    first = ordered.group_by("chip", maintain_order=True).first()
    last = ordered.group_by("chip", maintain_order=True).last()
    # The day-by-day level over the period: the index table's line.
    trend = ordered.group_by("chip", maintain_order=True).agg(pl.col("level").alias("trend"))
    joined = last.join(first.select("chip", start=pl.col("level")), on="chip")
    joined = joined.join(trend, on="chip")
    return joined.with_columns(change=pl.col("level") / pl.col("start") - 1).sort(
        pl.col("change").abs(), "chip", descending=[True, False]
    )


def _head_to_head(
    con: duckdb.DuckDBPyConnection, options: ReportOptions, mine: YourPrices
) -> pl.DataFrame | None:
    """The article pairs answered (chipcost.reads.articles.ARTICLE_PAIRS) on the prices
    `compare` answers on (answer_prices); None without the views cost per token needs."""
    from chipcost.reads.articles import article_answers

    answers = section(
        "head-to-head",
        lambda: article_answers(con, options.stale_days, answer_prices(mine)),
        None,
    )
    if answers is None:
        return None
    return printable_text(pl.DataFrame(answers, infer_schema_length=None))


def answer_prices(mine: YourPrices) -> YourPrices:
    """The prices the articles' answers are made on: your discounts, as `chipcost compare`
    takes them, in US dollars (the answers' charts are drawn in them; a verdict and a
    break-even are the same in any currency)."""
    return YourPrices(discounts=mine.discounts)


def _speed_curve(con: duckdb.DuckDBPyConnection) -> tuple[dict, ...]:
    """The figures the throughput-against-speed chart draws (none without the views)."""
    from chipcost.reads.articles import speed_curve

    return section("throughput against speed", lambda: tuple(speed_curve(con)), ())


def printable_text(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    """Text columns as shown: provider text loses control and bidi characters (ESC, NUL,
    right-to-left override) before it reaches the report, the e-mail or the CSV; the raw
    archive keeps them."""
    if frame is None:
        return None
    text = [name for name, kind in frame.schema.items() if kind == pl.String]
    return frame.with_columns(
        pl.col(text).str.replace_all(BREAKS, " ").str.replace_all(CONTROL, "")
    )


def _history_since(period: Period, options: ReportOptions) -> date:
    """The first day of the report's history chart: its weeks up to the period's end."""
    return period.until - timedelta(days=7 * options.history_weeks - 1)


def _shown_since(period: Period, options: ReportOptions) -> date:
    """The first day the report shows a price of: its history's, or the day before the
    period (the index's start), whichever is earlier."""
    return min(_history_since(period, options), period.since - timedelta(days=1))


def _history(con: duckdb.DuckDBPyConnection, period: Period, options: ReportOptions):
    first = _history_since(period, options)
    frame = daily_cheapest(con, since=first, until=period.until)
    return frame.filter(pl.col("chip") != UNKNOWN_CHIP)


def with_jumps(moves: pl.DataFrame) -> pl.DataFrame:
    """Moves marked `jump_back` when the price went more than JUMP_FACTOR out and came back
    (a net move under JUMP_FACTOR), with `jump_factor` and `jump_up`; and `back` when it moved
    and ended where it began (a net 0%, no glitch: said with its range, never as a 0% move).
    Real net moves come first, largest first; then the moves back where they began, largest
    swing first; the jump-and-back glitches last, ranked by their jump rather than by a net
    change near 0%: a x8-and-back data glitch never leads the report or its subject."""
    old, new = pl.col("old_price_per_hour"), pl.col("new_price_per_hour")
    up, down = pl.col("high_price_per_hour") / old, old / pl.col("low_price_per_hour")
    net = pl.max_horizontal(new / old, old / new)
    frame = moves.with_columns(jump_up=up >= down, jump_factor=pl.max_horizontal(up, down))
    frame = frame.with_columns(
        jump_back=(pl.col("jump_factor") > JUMP_FACTOR) & (net < JUMP_FACTOR)
    )
    frame = frame.with_columns(back=~pl.col("jump_back") & (pl.col("change_pct") == 0))
    size = (
        pl.when(pl.col("jump_back") | pl.col("back"))
        .then(100 * (pl.col("jump_factor") - 1))
        .otherwise(pl.col("change_pct").abs())
    )
    return frame.sort(
        [pl.col("jump_back"), pl.col("back"), size],
        descending=[False, False, True],
        maintain_order=True,
    )


def _labelled(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    """The offer's labels (where, offer), and `holds`: whether its instance holds the model,
    in words."""
    if frame is None:
        return None
    needed = pl.col("instances_needed")
    holds = (
        pl.when(pl.col("fits"))
        .then(pl.lit("yes"))
        .when(pl.col("fits").not_())
        .then(pl.format("no, needs {} {}", needed.cast(pl.String), _units()))
        .otherwise(pl.lit("unknown"))
    )
    return with_labels(frame).with_columns(holds=holds)


def _units() -> pl.Expr:
    """'instances', or 'slices' / 'UltraServers' for an offer that rents a TPU slice or an
    UltraServer (chipcost.reads.rental_units)."""
    words = {f"{provider} {name}": f"{kind}s" for (provider, name), kind in kinds().items()}
    offer = pl.concat_str(pl.col("provider"), pl.col("instance_type"), separator=" ")
    return offer.replace_strict(words, default="instances", return_dtype=pl.String)


# What makes two moves alike for the e-mail: the same chip, provider, pricing and prices.
# Offers move alike when one provider's price of a chip, under one pricing, changed by the
# same percentage as shown (to a tenth): a repricing of every size of an instance family is
# one move to read, whatever each size's price per chip.
# A jump out and back is alike by its factor and direction as shown; a real move has neither.
# A move back where it began is alike by its low and high (% from where it began, to a tenth)
# and their days.
# Estimated prices are alike only with estimates: a row's mark is true of each of its prices.
_ALIKE = ["chip", "provider", "source", "pricing_model", "offer", "jump_back", "back"]
_OLD = pl.col("old_price_per_hour")
_SHOWN = {
    "shown_pct": pl.col("change_pct").round(1),
    "shown_jump": pl.when(pl.col("jump_back")).then(pl.col("jump_factor").round(1)),
    "shown_up": pl.when(pl.col("jump_back")).then(pl.col("jump_up")),
    "shown_low": pl.when(pl.col("back")).then(
        (100 * (pl.col("low_price_per_hour") / _OLD - 1)).round(1)
    ),
    "shown_high": pl.when(pl.col("back")).then(
        (100 * (pl.col("high_price_per_hour") / _OLD - 1)).round(1)
    ),
    "shown_low_at": pl.when(pl.col("back")).then(pl.col("low_at").dt.date()),
    "shown_high_at": pl.when(pl.col("back")).then(pl.col("high_at").dt.date()),
    "shown_estimate": pl.col("estimate").is_not_null(),
}
_NEEDS = {
    "shown_jump": "jump_back",
    "shown_up": "jump_back",
    "shown_low": "back",
    "shown_high": "back",
    "shown_low_at": "back",
    "shown_high_at": "back",
    "shown_estimate": "estimate",
}


def alike_moves(moves: pl.DataFrame) -> pl.DataFrame:
    """Moves (in their order) with the offers that moved alike on one row: one provider's
    price of a chip changing by the same percentage in several regions and instance sizes is
    one move to read. `where` and `instance_type` then name them all, or count them; `offers`
    is how many offers the row stands for; `was`, `now` and `change` say the prices as
    shown, a range ('$0.3661–$0.6851') where the offers' prices differ (moves_said)."""
    shown = {k: v for k, v in _SHOWN.items() if _NEEDS.get(k, "change_pct") in moves.columns}
    alike = [c for c in _ALIKE if c in moves.columns] + list(shown)
    listed = {*alike, "where", "region", "instance_type"}
    places, regions = pl.col("where"), pl.col("region")
    one_place = places.list.len() == 1
    priced = {
        "old": "old_price",
        "new": "new_price",
        "change": "change",
        "low": "low_price",
        "high": "high_price",
    }
    spans = {
        f"{short}_{end}": getattr(pl.col(f"{column}_per_chip_hour"), end)()
        for short, column in priced.items()
        if f"{column}_per_chip_hour" in moves.columns
        for end in ("min", "max")
    }
    grouped = (
        moves.with_columns(**shown)
        .group_by(alike, maintain_order=True)
        .agg(
            pl.len().alias("offers"),
            places.unique(maintain_order=True),
            regions.unique(maintain_order=True),
            pl.col("instance_type").unique(maintain_order=True),
            # The rest (the daily trend, when it changed) as the row's first offer has them.
            *[pl.col(c).first() for c in moves.columns if c not in listed],
            **spans,
        )
        .with_columns(
            where=pl.when(one_place)
            .then(places.list.first())
            .otherwise(pl.concat_str(pl.col("provider"), pl.lit(" · "), _some(regions, "regions"))),
            instance_type=_some(pl.col("instance_type"), "instance types"),
        )
        .drop("region", *shown)
    )
    return moves_said(grouped)


def shown_moves(moved: pl.DataFrame, limit: int) -> pl.DataFrame:
    """The first `limit` rows of alike_moves, and after them every jump out and back the
    limit would hide: the headline counts each glitch, so each is named where moves are."""
    if "jump_back" not in moved.columns or moved.height <= limit:
        return moved.head(limit)
    return pl.concat([moved.head(limit), moved.slice(limit).filter(pl.col("jump_back"))])


def moves_said(rows: pl.DataFrame) -> pl.DataFrame:
    """`rows` (of alike_moves, before its words) with `was`, `now` and `change`: each price as
    money, or the range of the offers' prices where they differ as shown; `now` marked
    ESTIMATED where it is an estimate (the mark is said once, after the price a move is to).
    A move back where it began has `swing_range` too (swing_words says it), None for any
    other."""
    said = {}
    words = (
        ("old", "was", ""),
        ("new", "now", ""),
        ("change", "change", "+"),
        ("low", "low_said", ""),
        ("high", "high_said", ""),
    )
    for column, name, sign in words:
        low, high = f"{column}_min", f"{column}_max"
        if low in rows.columns:
            said[name] = pl.struct(low, high).map_elements(
                lambda r, low=low, high=high, sign=sign: _span(r[low], r[high], sign),
                return_dtype=pl.String,
            )
    rows = rows.with_columns(**said)
    if "now" in said and "estimate" in rows.columns:
        rows = rows.with_columns(
            now=pl.when(pl.col("estimate").is_not_null())
            .then(pl.col("now") + pl.lit(ESTIMATED))
            .otherwise(pl.col("now"))
        )
    if set(_SWING).issubset(rows.columns):
        rows = rows.with_columns(
            swing_range=pl.struct(_SWING).map_elements(_swing_range, return_dtype=pl.String)
        )
    drop = [c for c in rows.columns if c.endswith(("_min", "_max")) or c.endswith("_said")]
    return rows.drop(drop)


# What a move back where it began is said with (_swing_range).
_SWING = (
    "back",
    "old_price_per_hour",
    "low_price_per_hour",
    "high_price_per_hour",
    "low_at",
    "high_at",
    "low_said",
    "high_said",
)


def _swing_range(row: dict) -> str | None:
    """'low $1.1900 on 2026-11-28, high $1.4900 on 2026-11-25': how far a price back where it
    began went, each extreme the period reached beyond where it began, with the day it first
    got there; None for a move that is not back."""
    if not row.get("back"):
        return None
    old = row["old_price_per_hour"]
    parts = []
    for side, price, at in (
        ("low", "low_price_per_hour", "low_at"),
        ("high", "high_price_per_hour", "high_at"),
    ):
        beyond = row[price] < old if side == "low" else row[price] > old
        if beyond:
            parts.append(f"{side} {row[f'{side}_said']} on {row[at]:%Y-%m-%d}")
    return ", ".join(parts)


def swing_words(row: dict, marked: bool = True) -> str:
    """'back at $1.3900 (low $1.1900 on 2026-11-28, high $1.4900 on 2026-11-25)': a move back
    where it began (a row of alike_moves), its price then (`marked`: with its est. mark, as
    the lists show it; a subject has none) and how far it went on the way."""
    now = row["now"] if marked else row["now"].removesuffix(ESTIMATED)
    extent = f" ({row['swing_range']})" if row.get("swing_range") else ""
    return f"back at {now}{extent}"


def _span(low: float | None, high: float | None, sign: str = "") -> str:
    """'$0.4277', '$0.3661–$0.6851', '+$0.0100' (`sign`: a change's), '−$0.0634–−$0.1027'."""

    def said(value: float | None) -> str:
        if value is None:
            return ""
        if not sign:
            return money(value)
        return f"{'+' if value >= 0 else '−'}{money(abs(value))}"

    if sign and low is not None and high is not None:  # the smaller change first
        low, high = sorted((low, high), key=abs)
    first, last = said(low), said(high)
    return first if first == last else f"{first}–{last}"


def _some(names: pl.Expr, noun: str) -> pl.Expr:
    """A list column as 'a', 'a, b, c' (sorted) or '5 instance types'."""
    return (
        pl.when(names.list.len() <= 3)
        .then(names.list.sort().list.join(", "))
        .otherwise(pl.format("{} " + noun, names.list.len()))
    )


def place_of_alike() -> pl.Expr:
    """Where a row of alike_moves is: 'gcp · us-central1, us-east5 · 4 instance types (8
    offers)'."""
    offers = pl.when(pl.col("offers") > 1).then(pl.format(" ({} offers)", pl.col("offers")))
    return pl.concat_str(
        pl.col("where"), pl.lit(" · "), pl.col("instance_type"), offers.otherwise(pl.lit(""))
    )


def report_name(data: ReportData) -> str:
    """The report's HTML file, written in the reports directory and attached to the e-mail
    (the e-mail's answers link to their charts in it)."""
    return f"chipcost-report_{data.period.slug}.html"
