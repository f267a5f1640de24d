"""Freshness per source: only a successful run dates a source's prices."""

from __future__ import annotations

from datetime import timedelta

from chipcost.core.runs import FAILED, OK, RunResult
from chipcost.warehouse.db import connect
from chipcost.warehouse.freshness import freshness, source_freshness
from chipcost.warehouse.prices import last_run
from tests.helpers import day
from tests.report_warehouse import api_prices, build, golden_runs, offer, source


def _partial(n: int) -> RunResult:
    """aws-pricing-api succeeds, aws-bulk fails: a partial run, and live (not sample)."""
    when = day(n)
    stamp = when.strftime("%Y-%m-%dT%H%M%SZ")
    sources = [
        source("aws-pricing-api", api_prices(6), n),
        source("aws-bulk", [], n, status=FAILED, message="could not connect"),
    ]
    return RunResult(f"{stamp}-partial", when, when, "live", stamp, False, sources)


def test_each_source_is_dated_by_its_own_last_success(tmp_path):
    path = build(tmp_path / "w.duckdb", [*golden_runs(sample=True), _partial(7)])
    con = connect(path, read_only=True)
    try:
        known = source_freshness(con)
        fresh = freshness(con, ["aws-pricing-api", "aws-bulk"], stale_days=2, now=day(8))
        later = freshness(con, None, stale_days=2, now=day(10))
        assert last_run(con)[0].endswith("-partial")
    finally:
        con.close()
    api, bulk = known["aws-pricing-api"], known["aws-bulk"]
    assert (api.last_ok_at, api.sample, api.last_status) == (day(7), False, OK)
    # aws-bulk's prices are still the sample's of 11-07, whatever the newer run says.
    assert (bulk.last_ok_at, bulk.sample, bulk.last_status) == (day(6), True, FAILED)
    assert known["aws-spot"].last_ok_at is None  # skipped every day: never succeeded
    assert fresh.sample == ("aws-bulk",)
    assert fresh.stale == ()
    assert list(fresh.as_of()) == [day(7), day(6)]
    assert [s.source for s in later.stale] == ["aws-bulk", "aws-pricing-api"]
    assert bulk.age(day(10)) == timedelta(days=4)


def test_a_failed_run_does_not_date_the_prices(tmp_path):
    failed = RunResult(
        "failed-run", day(9), day(9), "live", "x", False,
        [source("aws-pricing-api", [offer("A", 1.0)], 9, status=FAILED)],
    )  # fmt: skip
    path = build(tmp_path / "w.duckdb", [*golden_runs(sample=True), failed])
    con = connect(path, read_only=True)
    try:
        fresh = freshness(con, None, stale_days=30, now=day(9))
        assert last_run(con)[0] != "failed-run"
    finally:
        con.close()
    assert {s.source: s.last_ok_at for s in fresh.sources} == {
        "aws-bulk": day(6),
        "aws-pricing-api": day(6),
    }
    assert set(fresh.sample) == {"aws-bulk", "aws-pricing-api"}


def test_a_replay_of_older_runs_does_not_hide_todays_failed_attempt(tmp_path):
    # Today's live run failed; then the sample week was replayed (started later, prices
    # older). "latest attempt" read the replay's ok: it is the attempt of the newest prices.
    failed = RunResult(
        "live-failed", day(9), day(9), "live", "x", False,
        [source("aws-bulk", [], 9, status=FAILED, message="could not connect")],
    )  # fmt: skip
    replayed = [
        RunResult(r.run_id + "-again", day(10), r.observed_at, r.mode, r.archive_run, True,
                  r.sources)
        for r in golden_runs(sample=True)[-1:]
    ]  # fmt: skip
    path = build(tmp_path / "w.duckdb", [*golden_runs(sample=True)[:-1], failed, *replayed])
    con = connect(path, read_only=True)
    try:
        bulk = source_freshness(con)["aws-bulk"]
    finally:
        con.close()
    assert (bulk.last_status, bulk.last_attempt_at) == (FAILED, day(9))
    assert bulk.last_ok_at == day(6)  # the replayed prices still date it


def test_a_replayed_failed_run_is_dated_by_its_own_time_not_the_replays(tmp_path):
    # A run of day 7 replayed on day 20 whose aws-bulk failed: its latest attempt is the run
    # of day 7, as `sources --runs` lists it and as the last success (day 6) is dated, not the
    # moment of the replay (which read '2026-11-20 ... latest attempt' beside a success of 11-06).
    replayed = RunResult(
        "replayed-failed", day(20), day(7), "replay", "x", False,
        [source("aws-bulk", [], 7, status=FAILED, message="not JSON")],
    )  # fmt: skip
    path = build(tmp_path / "w.duckdb", [*golden_runs(sample=True), replayed])
    con = connect(path, read_only=True)
    try:
        bulk = source_freshness(con)["aws-bulk"]
    finally:
        con.close()
    assert (bulk.last_status, bulk.last_attempt_at, bulk.last_ok_at) == (FAILED, day(7), day(6))
