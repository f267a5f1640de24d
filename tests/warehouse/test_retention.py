"""The observations window: pruned inside the load, measured from the newest observation,
never touching price_history or rejects, and configurable (CHIPCOST_OBSERVATIONS_DAYS)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import chipcost.warehouse.load as load_module
from chipcost.core.errors import ChipcostError
from chipcost.core.record import Reject
from chipcost.core.settings import DEFAULT_OBSERVATIONS_DAYS, load_settings, observations_days
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of


def rows(con, sql: str) -> list:
    return con.execute(sql).fetchall()


def days_kept(con) -> list:
    return [r[0] for r in rows(con, "SELECT DISTINCT observed_at FROM observations ORDER BY 1")]


def test_observations_older_than_the_window_are_pruned(con):
    offers = [record(), record(region="eu-west-1", price_per_hour=60.0)]
    for n in range(10):
        price = 55.04 if n < 5 else 50.0  # one change on day 5
        summary = load_run(
            con,
            run_of([replace(offers[0], price_per_hour=price), offers[1]], day(n)),
            observations_days=3,
        )
    # Kept: observed at most 3 days before the newest (day 9), so days 6 to 9.
    assert days_kept(con) == [day(6), day(7), day(8), day(9)]
    assert summary.pruned == 2  # day 5's two records left the window on day 9
    # History keeps every distinct price from day 0 on.
    history = rows(
        con, "SELECT region, price_per_hour, valid_from FROM price_history ORDER BY 3, 1"
    )
    assert history == [
        ("eu-west-1", 60.0, day(0)),
        ("us-east-1", 55.04, day(0)),
        ("us-east-1", 50.0, day(5)),
    ]


def test_rejects_are_never_pruned(con):
    for n in range(6):
        run = run_of([record()], day(n))
        run.sources[0].rejects = [Reject("aws-pricing-api", f"bad row {n}", {"n": n})]
        load_run(con, run, observations_days=1)
    assert rows(con, "SELECT count(*) FROM rejects") == [(6,)]
    assert days_kept(con) == [day(4), day(5)]


def test_an_old_run_replayed_late_updates_nothing_it_should_not(con):
    load_run(con, run_of([record()], day(40)), observations_days=7)
    summary = load_run(
        con, run_of([record(region="ap-south-1")], day(1), run_id="old"), observations_days=7
    )
    # Outside the window: its observations are read to restate the history from its day, then
    # pruned; its new offer reaches history, withdrawn by the newer run that did not list it.
    assert days_kept(con) == [day(40)]
    assert summary.pruned == 1 and summary.new == 1
    assert rows(
        con, "SELECT valid_to, end_reason FROM price_history WHERE region = 'ap-south-1'"
    ) == [(day(40), "withdrawn")]


def test_keeping_every_observation(con):
    for n in range(5):
        load_run(con, run_of([record()], day(n)), observations_days=None)
    assert len(days_kept(con)) == 5


def test_pruning_is_part_of_the_load_transaction(con, monkeypatch):
    for n in range(4):
        load_run(con, run_of([record()], day(n)), observations_days=2)
    before = rows(con, "SELECT * FROM observations ORDER BY ALL")

    def explode(*args, **kwargs):
        raise RuntimeError("killed after pruning")

    monkeypatch.setattr(load_module, "insert_run", explode)
    with pytest.raises(RuntimeError):
        load_run(con, run_of([record()], day(9)), observations_days=2)
    assert rows(con, "SELECT * FROM observations ORDER BY ALL") == before


@pytest.mark.parametrize(
    ("text", "days"),
    [(None, DEFAULT_OBSERVATIONS_DAYS), ("", DEFAULT_OBSERVATIONS_DAYS), ("90", 90), ("ALL", None)],
)
def test_the_setting(text, days):
    assert observations_days(text) == days


@pytest.mark.parametrize("text", ["0", "-3", "two weeks", "1.5"])
def test_a_bad_setting_is_explained(text, monkeypatch):
    monkeypatch.setenv("CHIPCOST_OBSERVATIONS_DAYS", text)
    with pytest.raises(ChipcostError, match="CHIPCOST_OBSERVATIONS_DAYS"):
        load_settings()


def test_an_old_run_whose_later_runs_lost_their_observations_opens_no_history(con):
    """The history after it cannot be restated (the day-40 run's observations are past the
    window; the days are past, so that the clock does not hold the window back):
    history only moves forward, and the source's message says so."""
    for n in (0, 10, 20):
        load_run(con, run_of([record()], day(n)), observations_days=7)
    late = run_of([record(region="ap-south-1"), record(price_per_hour=1.0)], day(5))
    summary = load_run(con, late, observations_days=7)
    assert summary.history_changes == 0
    assert rows(con, "SELECT count(*) FROM price_history") == [(1,)]
    said = rows(con, f"SELECT message FROM source_runs WHERE run_id = '{late.run_id}'")[0][0]
    assert "past the retention window: it opens no history row" in said
    # a note too, which the collect's summary prints without --verbose
    assert any("it opens no history row" in note for note in late.sources[0].notes)


def test_a_price_keeps_its_marks_past_the_window(con):
    """On 749d25f8 an estimate's basis and a spot price's doubt were read from the
    observations of the payload a price was first read from: once the window pruned them,
    an unchanged price read as published (no `est.`, no doubt) in every read."""
    from chipcost.warehouse.prices import ESTIMATE, marked_on, marks_of

    estimated = record(extra={"estimate": "a reseller's quote"})
    doubted = record(
        pricing_model="spot", region="eu-west-1", extra={"spot_not_below_on_demand": "no discount"}
    )
    plain = record(region="ap-south-1")
    for n in range(10):
        payload = f"2026-11-{n + 1:02d}T060000Z/aws-pricing-api/0001.json.gz"
        offers = [replace(r, payload_ref=payload) for r in (estimated, doubted, plain)]
        load_run(con, run_of(offers, day(n)), observations_days=3)
    assert days_kept(con) == [day(6), day(7), day(8), day(9)]
    # Each price rests on day 0's payload, whose observations the window took.
    read = f"""
        WITH p AS (SELECT * FROM price_history WHERE valid_to IS NULL),
        marks AS ({marks_of("p")})
        SELECT p.region, {ESTIMATE} AS estimate, m.spot_doubt
        FROM p LEFT JOIN marks m ON {marked_on("p")} ORDER BY p.region"""
    assert rows(con, read) == [
        ("ap-south-1", None, None),
        ("eu-west-1", None, "no discount"),
        ("us-east-1", "a reseller's quote", None),
    ]
    # The marks no price rests on leave with the window: day 0's of the two offers kept.
    kept = "SELECT observed_at, region FROM price_marks ORDER BY ALL"
    assert rows(con, kept)[:2] == [(day(0), "eu-west-1"), (day(0), "us-east-1")]
    assert {r[0] for r in rows(con, kept)[2:]} == {day(6), day(7), day(8), day(9)}


def test_a_mark_of_a_payload_another_price_rests_on_leaves_with_the_window(con):
    """A mark is kept while a price of its own offer rests on its payload, as the reads match
    it: on 0e48aec7 any price row of the payload kept every mark of it (a spot market's
    payload opens rows every day, so nearly none left)."""
    for n in range(10):
        payload = f"2026-11-{n + 1:02d}T060000Z/aws-pricing-api/0001.json.gz"
        offers = [  # the estimate's price stays; the other offer's moves every day
            record(extra={"estimate": "a quote"}, payload_ref=payload),
            record(region="ap-south-1", price_per_hour=10.0 + n, payload_ref=payload),
        ]
        load_run(con, run_of(offers, day(n)), observations_days=3)
    kept = "SELECT DISTINCT observed_at FROM price_marks ORDER BY 1"
    assert [r[0] for r in rows(con, kept)] == [day(0), day(6), day(7), day(8), day(9)]
