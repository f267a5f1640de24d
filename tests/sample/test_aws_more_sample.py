"""The sample of aws-savings-plans, aws-spot and aws-capacity-blocks, and what the warehouse makes
of it: every pricing model of p5.48xlarge side by side, spot per zone and per region."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime

import pytest

from chipcost.archive import parse_stamp, read_manifest, read_payloads, run_directories
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.settings import Settings
from chipcost.extract import registry
from chipcost.pipeline.collect import collect_source
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from chipcost.warehouse.prices import PRICE_COLUMNS, per_chip_prices
from tests import warehouses
from tests.helpers import day, record
from tests.paths import ROOT

SAMPLE = ROOT / "sample" / "archive"
SOURCES = ("aws-savings-plans", "aws-spot", "aws-capacity-blocks")


@pytest.mark.parametrize("source", SOURCES)
def test_sample_parses_cleanly_and_says_it_is_sample(source):
    for run in run_directories(SAMPLE):
        assert read_manifest(run / source)["sample"] is True
        payloads = read_payloads(run, source)
        bodies = [json.loads(p.data) for p in payloads]
        assert all(b.get("chipcostSample") for b in bodies if "Error" not in b)
        result = registry()[source].parse(payloads)
        assert result.records and result.rejects == []
        assert {p.fetched_at for p in payloads} == {parse_stamp(run.name)}


@pytest.fixture(scope="module")
def sample_warehouse(tmp_path_factory):
    """The last two sample runs of the AWS sources loaded (without Prefect) into a DuckDB file."""
    folder = tmp_path_factory.mktemp("sample")
    settings = Settings(data_dir=folder, db_path=folder / "w.duckdb")
    con = open_warehouse(warehouses.new(settings.db_path))
    for run in run_directories(SAMPLE)[-2:]:
        results = [
            collect_source(registry()[name], settings=settings, stamp=run.name, replay_dir=run)
            for name in ("aws-pricing-api", *SOURCES)
        ]
        assert {r.status for r in results} == {OK}, [r.message for r in results]
        observed = min(r.observed_at for r in results)
        load_run(con, RunResult(run.name, observed, observed, "replay", run.name, True, results))
    yield con
    con.close()


def test_p5_in_us_east_1_shows_every_pricing_model(sample_warehouse):
    frame = per_chip_prices(sample_warehouse, chips=["H100-SXM"], regions=["us-east-1"])
    p5 = frame.filter(frame["instance_type"] == "p5.48xlarge")
    offers = {(r["pricing_model"], r["term"], r["payment"], r["plan"]) for r in p5.to_dicts()}
    payments = ("no_upfront", "partial_upfront", "all_upfront")
    for plan in ("compute", "ec2_instance"):
        for term in ("1yr", "3yr"):
            assert {("savings_plan", term, p, plan) for p in payments} <= offers
    assert ("on_demand", "none", "none", "default") in offers
    classes = ("standard", "convertible")
    assert {o for o in offers if o[0] == "reserved"} == {
        ("reserved", t, p, c) for t in ("1yr", "3yr") for p in payments for c in classes
    }
    blocks = p5.filter(p5["pricing_model"] == "capacity_block")
    assert set(blocks["term"]) == {"1d", "7d", "14d"}
    assert set(blocks["payment"]) == {"all_upfront"}
    spot = p5.filter(p5["pricing_model"] == "spot")
    zones = spot.filter(spot["plan"] == "default")
    [cheapest] = spot.filter(spot["plan"] == "region_cheapest").to_dicts()
    assert zones.height >= 2 and all(zones["zone"].str.starts_with("us-east-1"))
    assert cheapest["zone"] == ""
    assert cheapest["price_per_hour"] == zones["price_per_hour"].min()
    assert cheapest["price_per_chip_hour"] == pytest.approx(cheapest["price_per_hour"] / 8)


def test_prices_list_terms_by_length(sample_warehouse):
    frame = per_chip_prices(sample_warehouse, chips=["H100-SXM"], models=["capacity_block"])
    assert list(dict.fromkeys(frame["term"])) == ["1d", "7d", "14d"]
    reserved = per_chip_prices(sample_warehouse, chips=["H100-SXM"], models=["reserved"])
    assert list(dict.fromkeys(reserved["term"])) == ["1yr", "3yr"]


def test_capacity_block_per_chip_hour_is_the_fee_over_hours_and_chips(sample_warehouse):
    rows = sample_warehouse.execute(
        "SELECT upfront, price_per_chip_hour, term FROM per_chip_prices "
        "WHERE pricing_model = 'capacity_block' AND instance_type = 'p5.48xlarge'"
    ).fetchall()
    hours = {"1d": 24, "7d": 168, "14d": 336}
    assert rows
    for upfront, per_chip_hour, term in rows:
        assert per_chip_hour == pytest.approx(upfront / (1 * hours[term] * 8), abs=1e-9)


def test_every_sample_price_is_traceable_to_its_payload(sample_warehouse):
    rows = sample_warehouse.execute(
        "SELECT DISTINCT source, payload_ref FROM current_prices WHERE source IN (?, ?, ?)",
        list(SOURCES),
    ).fetchall()
    assert {source for source, _ in rows} == set(SOURCES)
    for source, ref in rows:
        stamp, named_source, name = ref.split("/")
        assert named_source == source
        assert (SAMPLE / stamp / source / name).is_file()


# ---------------------------------------------------------------- the region-cheapest view


TRN1 = {"instance_type": "trn1.32xlarge", "chip": "Trainium1", "chip_count": 16.0}


def spot_record(zone: str, price: float, **changes):
    return record(
        source="aws-spot",
        pricing_model="spot",
        zone=zone,
        region=zone[:-1],
        price_per_hour=price,
        sku="",
        **changes,
    )


def spot_run(records, when: datetime) -> RunResult:
    records = [replace(r, observed_at=when) for r in records]
    source = SourceResult(
        source="aws-spot",
        provider="aws",
        status=OK,
        records=records,
        seen_keys={r.offer_key() for r in records},
        observed_at=when,
    )
    stamp = when.strftime("%Y-%m-%dT%H%M%SZ")
    return RunResult(f"{stamp}-t", when, when, "replay", stamp, False, [source])


def test_region_cheapest_is_the_cheapest_zone_of_each_type(con):
    offers = [
        spot_record("us-east-1a", 22.0),
        spot_record("us-east-1b", 20.0),
        spot_record("us-east-1c", 24.0),
        spot_record("us-west-2a", 19.0),
        spot_record("us-east-1a", 8.0, **TRN1),
        record(),  # on demand: not spot, untouched
    ]
    load_run(con, spot_run(offers, day(0)))
    rows = con.execute(
        "SELECT region, instance_type, cheapest_zone, zones, price_per_hour, "
        "max_zone_price_per_hour FROM spot_region_cheapest ORDER BY ALL"
    ).fetchall()
    assert rows == [
        ("us-east-1", "p5.48xlarge", "us-east-1b", 3, 20.0, 24.0),
        ("us-east-1", "trn1.32xlarge", "us-east-1a", 1, 8.0, 8.0),
        ("us-west-2", "p5.48xlarge", "us-west-2a", 1, 19.0, 19.0),
    ]
    regional = con.execute(
        "SELECT region, instance_type, zone, price_per_chip_hour FROM per_chip_prices "
        "WHERE plan = 'region_cheapest' ORDER BY ALL"
    ).fetchall()
    assert regional == [
        ("us-east-1", "p5.48xlarge", "", 2.5),
        ("us-east-1", "trn1.32xlarge", "", 0.5),
        ("us-west-2", "p5.48xlarge", "", 2.375),
    ]
    total = con.execute("SELECT count(*) FROM per_chip_prices").fetchall()[0][0]
    assert total == len(offers) + 3


def test_region_cheapest_follows_price_changes(con):
    for when, price_1a in ((day(0), 22.0), (day(1), 18.0)):
        offers = [spot_record("us-east-1a", price_1a), spot_record("us-east-1b", 20.0)]
        load_run(con, spot_run(offers, when))
    rows = con.execute("SELECT cheapest_zone, price_per_hour FROM spot_region_cheapest").fetchall()
    assert rows == [("us-east-1a", 18.0)]


def test_per_chip_prices_keeps_its_columns(con):
    columns = [c[0] for c in con.execute("DESCRIBE per_chip_prices").fetchall()]
    # The columns per_chip_prices had before spot's region rows were added, in order, then
    # the host (schema version 96), then the currency its provider states the price in, then
    # the currency it is in (US dollars) and the source's URL, as current_prices has them.
    assert columns == [
        "chip", "provider", "region", "zone", "instance_type", "chip_count",
        "pricing_model", "term", "payment", "plan", "price_per_chip_hour", "price_per_hour",
        "upfront", "source", "sku", "valid_from", "last_seen_at", "payload_ref",
        "vcpus", "ram_gb", "disk_gb", "stated_currency", "currency", "source_url",
    ]  # fmt: skip
    assert set(PRICE_COLUMNS) <= set(columns)
