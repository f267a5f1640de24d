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
from chipcost.reads.rental_units import kinds
from chipcost.reads.your_prices import YourPrices
from chipcost.reports.estimates import with_estimates, with_gpu_alone
from chipcost.reports.labels import with_labels
from chipcost.reports.moves import with_jumps
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
from chipcost.warehouse.fx import NONE_UNRATED, Provisional, Unrated, provisional
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
    # The days whose euro prices are at an earlier day's rate, their own not loaded yet
    # (chipcost.warehouse.fx.provisional): of the index's on demand prices, and of the
    # period's last day, "Cheapest now"'s. None: every such price is at its day's final rate.
    provisional_index: Provisional | None = None
    provisional_now: Provisional | None = None
    # Of the euro offers among the moves of list and commitment prices, among the spot moves
    # (each over its days: the trend's and the period's), and of the chips the history charts
    # draw over their weeks.
    provisional_changes: Provisional | None = None
    provisional_spot: Provisional | None = None
    provisional_history: Provisional | None = None

    @property
    def sample(self) -> bool:
        """What the report shows rests on the bundled sample's prices: the period's changes,
        the prices "Cheapest now" chooses among, or (cost per token shown) the current prices
        (docs/reports.md "Sample data")."""
        current = self.cost_per_token is not None and self.coverage.sample_current
        return self.coverage.sample or current

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
        """The health rows of the sources meant to be collected in the period: those that ran
        in it, less those whose every run was skipped (no credentials: not set up here, said in
        Health). A source with no run in the period (retired, renamed, left out by `collect
        --source`, or the sample's alone) is Health's stale row, not a source missed."""
        if self.health.is_empty():
            return self.health
        skipped = pl.col("skipped_runs") == pl.col("runs")
        return self.health.filter((pl.col("runs") > 0) & ~(skipped & (pl.col("ok_runs") == 0)))

    @property
    def collected(self) -> int:
        """Sources with a successful run in the period: whose prices were seen in it."""
        return self.health.filter(pl.col("ok_runs") > 0).height if self.health.height else 0

    @property
    def not_collected(self) -> list[str]:
        """The sources meant to be collected that had no successful run in the period (every
        run of theirs in it failed): no move of their prices could be seen."""
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
    trend_start = end - timedelta(days=options.trend_days)
    moves = price_moves(con, start, end, trend_start)
    euro_moves = _in_euros(moves)
    spot = pl.col("pricing_model") == "spot"
    provisional_changes, provisional_spot = (
        _provisional(con, euro_moves.filter(kind), trend_start.date(), period.until)
        for kind in (~spot, spot)
    )
    covered = coverage(con, start, end, fresh)
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
    charted = history.filter(pl.col("chip").is_in(chips_that_moved(history)))
    provisional_history = _provisional(con, charted, _history_since(period, options), period.until)
    step("reading the head-to-head answers")
    head_to_head = None if later else _head_to_head(con, options, mine)
    speed_curve = () if later else _speed_curve(con)
    step("reading the price index")
    index = _index(con, period)
    before = period.since - timedelta(days=1)  # the index's first day
    provisional_index = provisional(con, before, period.until, ["on_demand"])
    provisional_now = provisional(con, period.until, period.until)
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
        provisional_index=provisional_index,
        provisional_now=provisional_now,
        provisional_changes=provisional_changes,
        provisional_spot=provisional_spot,
        provisional_history=provisional_history,
    )


def _in_euros(moves: pl.DataFrame) -> pl.DataFrame:
    """The moves of offers whose provider states their price in euros (Seeweb's, OVHcloud's,
    Scaleway's), converted to US dollars at each day's ECB rate: a row of the offer over the
    move's days or its sparkline's is a euro one, as the moves' own rows say
    (price_moves' `stated_currency`)."""
    return moves.filter(pl.col("stated_currency").str.split(",").list.contains("EUR"))


def _provisional(
    con: duckdb.DuckDBPyConnection, rows: pl.DataFrame, since: date, until: date
) -> Provisional | None:
    """The days from `since` to `until` whose euro prices of `rows`' chips and pricing models
    are at an earlier day's rate, their own not loaded yet, as `chipcost history` says them of
    its rows (chipcost.warehouse.fx.provisional); None for none, or no rows."""
    if rows.is_empty():
        return None
    models, chips = (rows[c].unique().sort().to_list() for c in ("pricing_model", "chip"))
    return provisional(con, since, until, models, chips)


def chips_that_moved(history: pl.DataFrame) -> list[str]:
    """Chips whose cheapest price per chip-hour changed on some pricing model in the history:
    those the history charts draw (a flat line says nothing a sentence cannot)."""
    if history.is_empty():
        return []
    spread = history.group_by("chip", "pricing_model").agg(
        moved=pl.col("price_per_chip_hour").n_unique() > 1
    )
    return sorted(set(spread.filter("moved")["chip"]))


def _first_events(
    con: duckdb.DuckDBPyConnection, period: Period, kind: str, rows: int
) -> pl.DataFrame:
    """The first `rows` events of a kind (NEW, WITHDRAWN) as the report shows them, each price
    marked as `prices` marks it (an estimate, a doubtful spot price: change_events; a price of
    the GPU alone: with_gpu_alone): every event is sorted to find them, in bounded memory
    (reader.CUT_MEMORY)."""
    events = in_working_memory(
        con, lambda: change_events(con, period.start, period.end, kind, rows)
    )
    return with_gpu_alone(with_labels(printable_text(events)))


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
    return _basis(with_labels(frame).with_columns(holds=holds))


def _basis(frame: pl.DataFrame) -> pl.DataFrame:
    """Each figure as `chipcost cost` words it, by its own rules (transform/verdict.py):
    `throughput_figure_kind`, its basis ('calibrated' for a derived figure fitted on the
    chip's own measurements: figure_kind), and `throughput_range_low` and `_high`, the
    tokens/s per chip a derived inference figure stands for, where its vendor family's
    out-of-sample checks measure a band (figure_range; None otherwise)."""
    from chipcost.transform.verdict import figure_kind, figure_range

    kinds, lows, highs = [], [], []
    for row in frame.iter_rows(named=True):
        kinds.append(figure_kind(row))
        low, high = figure_range(row, row.get("parameters")) or (None, None)
        lows.append(low)
        highs.append(high)
    return frame.with_columns(
        throughput_figure_kind=pl.Series(kinds, dtype=pl.String),
        throughput_range_low=pl.Series(lows, dtype=pl.Float64),
        throughput_range_high=pl.Series(highs, dtype=pl.Float64),
    )


def _units() -> pl.Expr:
    """'instances', or 'slices' / 'UltraServers' for an offer that rents a TPU slice or an
    UltraServer (chipcost.reads.rental_units)."""
    words = {f"{provider} {name}": f"{kind}s" for (provider, name), kind in kinds().items()}
    offer = pl.concat_str(pl.col("provider"), pl.col("instance_type"), separator=" ")
    return offer.replace_strict(words, default="instances", return_dtype=pl.String)


def report_name(data: ReportData) -> str:
    """The report's HTML file, written in the reports directory and attached to the e-mail
    (the e-mail's answers link to their charts in it)."""
    return f"chipcost-report_{data.period.slug}.html"
