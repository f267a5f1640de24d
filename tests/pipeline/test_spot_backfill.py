"""`chipcost backfill --spot`: 90 days of AWS spot prices, one run a day, each price dated when it
took effect. Real boto3 clients answered by botocore's Stubber, a real DuckDB warehouse."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

import duckdb
import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.settings import load_settings
from chipcost.extract.aws import spot
from chipcost.pipeline.seed import open_warehouse
from chipcost.pipeline.spot_backfill import spot_backfill
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.aws_stubs import stubbed
from tests.helpers import record

NOW = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)
SINCE = date(2026, 11, 1)
START = datetime(2026, 11, 1, tzinfo=UTC)


def entry(zone: str, kind: str, price: str, when: str) -> dict:
    return {
        "AvailabilityZone": zone,
        "InstanceType": kind,
        "ProductDescription": "Linux/UNIX",
        "SpotPrice": price,
        "Timestamp": datetime.fromisoformat(when),
    }


# Newest first, as AWS answers: p5 in force since October, two changes on the 2nd (the later
# one kept), one on the 4th; g6 appears on the 3rd.
HISTORY = [
    entry("us-east-1a", "p5.48xlarge", "29.000000", "2026-11-04T09:00:00+00:00"),
    entry("us-east-1b", "g6.xlarge", "0.500000", "2026-11-03T12:00:00+00:00"),
    entry("us-east-1a", "p5.48xlarge", "27.000000", "2026-11-02T18:00:00+00:00"),
    entry("us-east-1a", "p5.48xlarge", "28.000000", "2026-11-02T15:30:00+00:00"),
    entry("us-east-1a", "p5.48xlarge", "30.000000", "2026-10-28T10:00:00+00:00"),
]


def backfill(tmp_path, monkeypatch, history=HISTORY, since=SINCE):
    monkeypatch.setenv("CHIPCOST_DATA_DIR", str(tmp_path))
    client, stubber = stubbed("ec2", "us-east-1")
    params = {
        **spot.history_request(spot.spot_types(), START, NOW),
        "MaxResults": spot.PAGE_SIZE,
    }
    params["StartTime"] = datetime.combine(since, datetime.min.time(), UTC)
    stubber.add_response("describe_spot_price_history", {"SpotPriceHistory": history}, params)
    stubber.activate()
    try:
        return spot_backfill(
            load_settings(), since, ("us-east-1",), client_for=lambda region: client, now=NOW
        )
    finally:
        stubber.deactivate()


def history_of(tmp_path, kind: str) -> list[tuple]:
    con = duckdb.connect(str(tmp_path / "chipcost.duckdb"), read_only=True)
    try:
        return con.execute(
            "SELECT price_per_hour, valid_from, valid_to, last_seen_at FROM price_history "
            "WHERE instance_type = ? ORDER BY valid_from",
            [kind],
        ).fetchall()
    finally:
        con.close()


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def test_each_price_is_dated_when_it_took_effect(tmp_path, monkeypatch):
    days = backfill(tmp_path, monkeypatch)
    assert [d.day for d in days] == [date(2026, 11, n) for n in range(1, 6)]
    assert {d.status for d in days} == {"loaded"}
    assert [d.changes for d in days] == [0, 1, 1, 1, 0]
    assert any("1 price(s) that held less than the day" in n for n in days[1].notes)
    p5 = [
        (p, f.astimezone(UTC), t and t.astimezone(UTC))
        for p, f, t, _ in history_of(tmp_path, "p5.48xlarge")
    ]
    assert p5 == [
        (30.0, at("2026-10-28T10:00:00+00:00"), at("2026-11-02T18:00:00+00:00")),
        (27.0, at("2026-11-02T18:00:00+00:00"), at("2026-11-04T09:00:00+00:00")),
        (29.0, at("2026-11-04T09:00:00+00:00"), None),
    ]
    [(price, begun, ended, seen)] = history_of(tmp_path, "g6.xlarge")
    assert (price, begun.astimezone(UTC), ended) == (0.5, at("2026-11-03T12:00:00+00:00"), None)
    assert seen.astimezone(UTC) == NOW  # extended day by day to the fetch


def test_a_rerun_loads_nothing_twice(tmp_path, monkeypatch):
    backfill(tmp_path, monkeypatch)
    again = backfill(tmp_path, monkeypatch)
    assert {d.status for d in again} == {"already loaded"}
    assert len(history_of(tmp_path, "p5.48xlarge")) == 3


def test_daily_spot_prices_already_held_refuse_it(tmp_path, monkeypatch):
    spot_row = record(
        source="aws-spot", pricing_model="spot", zone="us-east-1a", instance_type="p5.48xlarge",
        chip="H100-SXM", chip_count=8.0, price_per_hour=31.0,
    )  # fmt: skip
    when = datetime(2026, 11, 4, 6, 0, tzinfo=UTC)
    daily = SourceResult(
        source="aws-spot", provider="aws", status=OK, records=[replace(spot_row, observed_at=when)],
        seen_keys={spot_row.offer_key()}, observed_at=when,
    )  # fmt: skip
    con = open_warehouse(warehouses.new(tmp_path / "chipcost.duckdb"))
    try:
        load_run(con, RunResult("daily", when, when, "live", "daily", False, [daily]))
    finally:
        con.close()
    monkeypatch.setenv("CHIPCOST_DATA_DIR", str(tmp_path))
    with pytest.raises(ChipcostError, match="already holds aws-spot prices from daily runs"):
        spot_backfill(load_settings(), SINCE, ("us-east-1",), client_for=lambda r: None, now=NOW)


@pytest.mark.parametrize(
    ("since", "said"),
    [(date(2026, 8, 1), "AWS keeps 90 days"), (date(2026, 11, 9), "is after today")],
)
def test_a_day_out_of_reach_is_refused(tmp_path, monkeypatch, since, said):
    monkeypatch.setenv("CHIPCOST_DATA_DIR", str(tmp_path))
    with pytest.raises(ChipcostError, match=said):
        spot_backfill(load_settings(), since, ("us-east-1",), client_for=lambda r: None, now=NOW)


def test_the_command_says_what_it_needs(tmp_path):
    import os

    from tests.cli.test_cli import chipcost

    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env |= {
        "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "CHIPCOST_DATA_DIR": str(tmp_path),
    }  # fmt: skip
    today = datetime.now(UTC).date()
    bare = chipcost("backfill", "--spot", "--since", str(today), env=env)
    assert bare.returncode == 1 and "Traceback" not in bare.stderr
    assert "backfill --spot calls DescribeSpotPriceHistory, which needs AWS credentials" in (
        bare.stderr
    )
    old = chipcost("backfill", "--spot", "--since", "2020-01-01", env=env)
    assert old.returncode == 2 and "AWS keeps 90 days of spot price history" in old.stderr
