"""Report queries on a warehouse with known price moves: golden numbers, edge periods."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import polars as pl
import pytest

from chipcost.core.frames import frame_of
from chipcost.core.runs import FAILED
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.reports.data import ReportData, gather
from chipcost.reports.period import Period, ReportError, ReportOptions, resolve_period
from chipcost.warehouse.changes import newest_run, price_moves
from chipcost.warehouse.db import connect
from tests import report_warehouse
from tests.helpers import day

WEEK = Period(date(2026, 11, 1), date(2026, 11, 7))


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    path = report_warehouse.build(tmp_path_factory.mktemp("golden") / "w.duckdb")
    connection = connect(path, read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def week(con) -> ReportData:
    return gather(con, WEEK, ReportOptions())


def test_default_period_is_the_week_up_to_the_newest_run(con):
    newest = newest_run(con)
    assert newest == datetime(2026, 11, 7, 6, tzinfo=UTC)
    period = resolve_period(None, None, newest, today=date(2030, 1, 1))
    assert period == WEEK
    assert (period.start, period.end) == (
        datetime(2026, 11, 1, tzinfo=UTC),
        datetime(2026, 11, 8, tzinfo=UTC),
    )
    assert period.label == "week of 2026-11-01"
    assert period.slug == "2026-11-01_2026-11-07"


def test_moves_say_when_their_extremes_were_first_reached(con):
    # A: 80.0, 72.0 on day 3, 74.0 on day 5 (8 chips): a price back where it began is said
    # with its low and high and their days (reports/data.py swing_words).
    moves = price_moves(con, WEEK.start, WEEK.end, WEEK.start)
    a = moves.filter(region="us-east-1", pricing_model="on_demand").row(0, named=True)
    assert (a["low_price_per_chip_hour"], a["low_at"]) == (9.0, day(3))
    assert (a["high_price_per_chip_hour"], a["high_at"]) == (9.25, day(5))


def test_health_counts_skipped_runs_and_names_the_last_failure(tmp_path):
    failing = [
        report_warehouse.run(
            n,
            [
                report_warehouse.source(
                    "aws-pricing-api", [], n, status=FAILED, message=f"failed on day {n}"
                )
            ],
        )
        for n in (7, 8)
    ]
    path = report_warehouse.build(tmp_path / "w.duckdb", report_warehouse.golden_runs() + failing)
    con = connect(path, read_only=True)
    try:
        data = gather(con, Period(date(2026, 11, 3), date(2026, 11, 9)), ReportOptions())
    finally:
        con.close()
    health = {r["source"]: r for r in data.health.iter_rows(named=True)}
    api, spot = health["aws-pricing-api"], health["aws-spot"]
    assert (api["last_failed_at"], api["last_failure"]) == (
        day(8),
        "failed on day 8",
    )
    assert (spot["skipped_runs"], spot["runs"], spot["last_failed_at"]) == (5, 5, None)


def test_failing_runs_move_the_period_on_and_make_sources_stale(tmp_path):
    failing = [
        report_warehouse.run(n, [report_warehouse.source("aws-pricing-api", [], n, status=FAILED)])
        for n in (7, 8, 9)
    ]
    path = report_warehouse.build(tmp_path / "w.duckdb", report_warehouse.golden_runs() + failing)
    con = connect(path, read_only=True)
    try:
        period = resolve_period(None, None, newest_run(con), today=date(2030, 1, 1))
        data = gather(con, period, ReportOptions())
    finally:
        con.close()
    assert period.until == date(2026, 11, 10)  # the last (failed) run, not the last price
    api = data.health.filter(source="aws-pricing-api").row(0, named=True)
    assert (
        api["stale"] and api["last_status"] == "failed" and (api["runs"], api["ok_runs"]) == (7, 4)
    )
    assert data.coverage.newest_observation == datetime(2026, 11, 7, 6, tzinfo=UTC)


def test_period_errors_and_defaults():
    with pytest.raises(ReportError, match="--since 2026-11-09 is after --until 2026-11-08"):
        resolve_period(date(2026, 11, 9), date(2026, 11, 8), None, date(2026, 11, 30))
    # No history yet: the week up to today.
    assert resolve_period(None, None, None, date(2026, 11, 30)).since == date(2026, 11, 24)
    # --since alone past the newest price: a week from --since, not an error.
    newest = datetime(2026, 11, 7, tzinfo=UTC)
    later = resolve_period(date(2026, 12, 1), None, newest, date(2026, 12, 31))
    assert later == Period(date(2026, 12, 1), date(2026, 12, 7))
    # Days to come have no prices: every source would look stale, every table empty.
    with pytest.raises(ReportError, match=r"--until 2026-11-30 is in the future \(today is"):
        resolve_period(date(2026, 11, 1), date(2026, 11, 30), newest, date(2026, 11, 23))
    # --since alone, a few days before today: the week is cut at today. On 2487f4c it said
    # "--until 2026-12-01 is in the future", an option not given.
    near = resolve_period(date(2026, 11, 25), None, newest, date(2026, 11, 27))
    assert near == Period(date(2026, 11, 25), date(2026, 11, 27))
    with pytest.raises(ReportError, match=r"^--since 2026-12-30 is in the future \(today is"):
        resolve_period(date(2026, 12, 30), None, newest, date(2026, 11, 27))
    with pytest.raises(ReportError, match="^--since 2026-12-01 is in the future"):
        resolve_period(date(2026, 12, 1), None, newest, date(2026, 11, 23))
    assert resolve_period(None, date(2026, 11, 23), newest, date(2026, 11, 23)).until == date(
        2026, 11, 23
    )


def test_moves_are_net_per_offer_with_golden_numbers(week):
    moves = week.moves
    assert moves.height == 2
    a, b = moves.row(0, named=True), moves.row(1, named=True)  # largest move first
    assert (a["region"], a["changes"]) == ("us-east-1", 2)
    assert a["old_price_per_hour"] == 80.0 and a["new_price_per_hour"] == 74.0
    assert a["old_price_per_chip_hour"] == 10.0 and a["new_price_per_chip_hour"] == 9.25
    assert a["change_per_chip_hour"] == pytest.approx(-0.75)
    assert a["change_pct"] == -7.5
    assert a["changed_at"] == datetime(2026, 11, 6, 6, tzinfo=UTC)
    assert (b["region"], b["changes"], b["change_pct"]) == ("us-west-2", 1, 5.0)
    assert b["new_price_per_chip_hour"] == pytest.approx(12.6)
    assert a["offer"] == "on demand" and a["where"] == "aws · us-east-1"


def test_sparkline_is_the_price_at_the_end_of_each_day(week):
    trend = week.moves.row(0, named=True)["trend"]
    # End of 11-01 .. 11-07: 80/8 for three days, 72/8 for two, then 74/8.
    assert trend == [10.0, 10.0, 10.0, 9.0, 9.0, 9.25, 9.25]


def test_new_withdrawn_and_history_start_are_told_apart(week):
    new = week.new_shown
    assert new.select("chip", "region", "zone", "pricing_model").rows() == [
        ("H100-SXM", "us-east-2", "us-east-2a", "spot")
    ]
    assert new["new_price_per_chip_hour"].to_list() == [5.0]
    withdrawn = week.withdrawn_shown
    assert withdrawn.select("chip", "region", "old_price_per_chip_hour").rows() == [
        ("L4", "eu-west-1", 0.8)
    ]
    # A, B, C, D from the API and A, B from the bulk files: first run of each source.
    assert week.first_seen == 6
    assert week.events.events == 2 + 1 + 1 + 1 + 6  # A twice, B, E, D withdrawn, firsts
    assert (week.events.new, week.events.withdrawn, week.events.changed) == (1, 1, 3)


def test_cheapest_now_per_chip_and_pricing_model(week):
    rows = {
        (r["chip"], r["bucket"]): (r["price_per_chip_hour"], r["region"], r["source"])
        for r in week.cheapest.iter_rows(named=True)
    }
    assert rows == {
        ("H100-SXM", "on_demand"): (9.25, "us-east-1", "aws-pricing-api"),
        ("H100-SXM", "spot"): (5.0, "us-east-2", "aws-pricing-api"),
        ("Trainium1", "commit_1yr"): (1.25, "us-east-1", "aws-pricing-api"),
    }  # L4 was withdrawn: not cheapest at anything


def test_cheapest_as_of_an_earlier_day(con):
    earlier = gather(con, Period(date(2026, 11, 1), date(2026, 11, 2)), ReportOptions())
    h100 = earlier.cheapest.filter(chip="H100-SXM", bucket="on_demand").row(0, named=True)
    assert h100["price_per_chip_hour"] == 10.0  # before the cut on 11-04
    assert "L4" in earlier.cheapest["chip"].to_list()


def test_health_counts_rows_and_flags_stale_sources(week):
    health = {r["source"]: r for r in week.health.iter_rows(named=True)}
    api, bulk, spot = health["aws-pricing-api"], health["aws-bulk"], health["aws-spot"]
    assert (api["runs"], api["ok_runs"], api["rows_loaded"], api["rows_rejected"]) == (7, 7, 32, 1)
    assert api["last_success"] == datetime(2026, 11, 7, 6, tzinfo=UTC) and not api["stale"]
    assert (bulk["rows_loaded"], bulk["stale"]) == (14, False)
    assert spot["last_success"] is None and spot["stale"] and spot["last_status"] == "skipped"
    assert week.stale_sources["source"].to_list() == ["aws-spot"]


def test_stale_after_days_without_success(con):
    later = gather(con, Period(date(2026, 11, 10), date(2026, 11, 12)), ReportOptions())
    assert set(later.stale_sources["source"]) == {"aws-pricing-api", "aws-bulk", "aws-spot"}
    assert later.health.filter(source="aws-pricing-api")["rows_loaded"].to_list() == [0]


def test_sources_that_disagree(week):
    compared = week.comparisons
    assert compared.height == 2  # A and B are priced by both sources
    (row,) = week.disagreements.iter_rows(named=True)
    assert (row["region"], row["low_source"], row["high_source"]) == (
        "us-east-1",
        "aws-pricing-api",
        "aws-bulk",
    )
    assert row["spread_pct"] == pytest.approx(100 * 6 / 74)


def test_a_wider_tolerance_flags_nothing(con):
    relaxed = gather(con, WEEK, ReportOptions(disagree_pct=10.0))
    assert relaxed.comparisons.height == 2 and relaxed.disagreements.is_empty()


def test_prices_not_seen_lately_are_not_cheapest(con):
    much_later = Period(date(2026, 12, 1), date(2026, 12, 7))
    data = gather(con, much_later, ReportOptions())
    assert data.cheapest.is_empty() and data.comparisons.is_empty()
    assert data.moves.is_empty() and data.coverage.runs_in_period == 0


def test_cost_per_token_is_the_cheapest_row_of_the_view(con, week):
    # Each chip here has one offer, or only offers that hold the model: its cheapest row
    # stands for it (tests/reports/test_cost_fit.py: when the cheapest cannot hold it).
    view = frame_of(
        con.sql("SELECT chip, workload, model, usd_per_million_tokens FROM cost_per_token")
    )
    if view.is_empty():
        assert week.cost_per_token is not None and week.cost_per_token.is_empty()
        return
    expected = view.group_by("chip", "workload", "model").agg(
        best=pl.col("usd_per_million_tokens").min()
    )
    got = week.cost_per_token.select("chip", "workload", "model", "usd_per_million_tokens")
    joined = expected.join(got, on=["chip", "workload", "model"], how="full", coalesce=True)
    assert joined.height == expected.height == got.height
    assert (joined["best"] == joined["usd_per_million_tokens"]).all()


def test_coverage_of_the_week(week):
    cov = week.coverage
    assert cov.history_start == datetime(2026, 11, 1, 6, tzinfo=UTC)
    assert (cov.runs_in_period, cov.days_in_period, cov.sample) == (7, 7, False)


def test_trend_window_covers_only_days_with_history(con):
    one_day = gather(con, Period(date(2026, 11, 4), date(2026, 11, 4)), ReportOptions())
    (row,) = one_day.moves.iter_rows(named=True)
    assert row["trend"] == [10.0, 10.0, 10.0, 9.0]  # 11-01 .. 11-04, nothing before
    short = gather(con, WEEK, ReportOptions(trend_days=1))
    assert short.moves["trend"].to_list() == [None, None]  # one point is not a line


@pytest.mark.parametrize(
    ("start", "end", "trend_days"),
    [
        (datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 8, tzinfo=UTC), 56),
        (datetime(2026, 11, 4, tzinfo=UTC), datetime(2026, 11, 5, tzinfo=UTC), 56),
        (datetime(2026, 11, 2, tzinfo=UTC), datetime(2026, 11, 6, tzinfo=UTC), 1),
        (datetime(2026, 11, 3, 12, tzinfo=UTC), datetime(2026, 11, 8, tzinfo=UTC), 2),
    ],
)
def test_moves_are_the_changes_price_changes_holds(con, start, end, trend_days):
    # The moves read only the rows of price_history their period and sparklines need
    # (warehouse/changes.py `chosen`): every change of the period and the row before it must
    # be among them, a sparkline shorter than the period as well as a longer one.
    changed = frame_of(
        con.sql(
            "SELECT * FROM price_changes WHERE change = 'changed' "
            f"AND changed_at >= TIMESTAMPTZ '{start}' AND changed_at < TIMESTAMPTZ '{end}'"
        )
    )
    key = list(HISTORY_KEY)
    expected = (
        changed.sort("changed_at")
        .group_by(key)
        .agg(
            changes=pl.len(),
            old_price_per_hour=pl.col("old_price_per_hour").first(),
            new_price_per_hour=pl.col("new_price_per_hour").last(),
        )
        .sort(key)
    )
    moves = price_moves(con, start, end, end - timedelta(days=trend_days))
    got = moves.select(*key, "changes", "old_price_per_hour", "new_price_per_hour").sort(key)
    assert expected.height > 0
    assert got.to_dicts() == expected.to_dicts()


@pytest.mark.parametrize(
    ("knobs", "said"),
    [
        ({"disagree_pct": 0.0}, "disagree_pct 0: give a percentage above 0 and up to 1000"),
        ({"disagree_pct": float("nan")}, "disagree_pct nan: give a percentage"),
        ({"stale_days": 0}, "stale_days 0: give a number of days from 1 to 99999"),
    ],
)
def test_the_knobs_are_checked_in_the_flow_parameters_words(knobs, said):
    with pytest.raises(ReportError, match=f"^{said}"):
        ReportOptions(**knobs)
