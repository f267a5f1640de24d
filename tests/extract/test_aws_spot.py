"""aws-spot: parse() on recorded DescribeSpotPriceHistory pages, fetch() against stubbed clients.

Fixtures in tests/fixtures/aws-spot/: describe-regions (three enabled regions), us-east-1 in
two pages (the second repeats one zone with an older price), us-west-2 in one, the archived
OptInRequired answer of a region the account has not enabled, and bad-spot-prices.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.catalog import aws_accelerator_types
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.extract.aws import spot as spot
from chipcost.extract.aws._calls import region_of_zone
from chipcost.extract.aws.pricing import NO_CREDENTIALS
from tests.aws_stubs import (
    clear_aws_env,
    fixture_json,
    recorded,
    stubbed,
    with_datetimes,
)
from tests.sources import STAMP, context

SOURCE = "aws-spot"
NOW = datetime(2026, 11, 14, 6, 0, 2, tzinfo=UTC)
TYPES = spot.spot_types()
EAST = ("spot-us-east-1-page-1.json", "spot-us-east-1-page-2.json")
HISTORY = "describe_spot_price_history"


@pytest.fixture
def no_aws_config(tmp_path, monkeypatch):
    clear_aws_env(tmp_path, monkeypatch)


def history(name: str, region: str):
    request = {"operation": spot.HISTORY, "region": region, "InstanceTypes": TYPES}
    return recorded(SOURCE, name, request)


def good_payloads():
    return [
        recorded(SOURCE, "describe-regions.json", {"operation": "DescribeRegions"}),
        history("region-opt-in-required.json", "me-central-1"),
        *(history(name, "us-east-1") for name in EAST),
        history("spot-us-west-2.json", "us-west-2"),
    ]


@pytest.fixture(scope="module")
def good():
    return spot.parse(good_payloads())


def price(records, zone, instance_type):
    found = [r for r in records if (r.zone, r.instance_type) == (zone, instance_type)]
    assert len(found) == 1, f"{len(found)} records for {instance_type} in {zone}"
    return found[0]


# ---------------------------------------------------------------- parse


def test_one_record_per_zone_and_type(good):
    assert good.rejects == []
    assert len(good.records) == 11
    assert {(r.region, r.zone, r.instance_type) for r in good.records} == {
        ("us-east-1", "us-east-1a", "p5.48xlarge"),
        ("us-east-1", "us-east-1b", "p5.48xlarge"),
        ("us-east-1", "us-east-1c", "p5.48xlarge"),
        ("us-east-1", "us-east-1a", "g6e.xlarge"),
        ("us-east-1", "us-east-1d", "g6e.xlarge"),
        ("us-east-1", "us-east-1c", "trn1.32xlarge"),
        ("us-east-1", "us-east-1f", "trn1.32xlarge"),
        ("us-east-1", "us-east-1b", "inf2.48xlarge"),
        ("us-west-2", "us-west-2a", "p5.48xlarge"),
        ("us-west-2", "us-west-2b", "p5.48xlarge"),
        ("us-west-2", "us-west-2c", "p5.48xlarge"),
    }
    assert {(r.pricing_model, r.term, r.payment, r.plan) for r in good.records} == {
        ("spot", "none", "none", "default")
    }


@pytest.mark.parametrize(
    ("zone", "instance_type", "expected"),
    [
        ("us-east-1a", "p5.48xlarge", 22.016),  # the newer of the zone's two prices
        ("us-east-1c", "p5.48xlarge", 21.4656),
        ("us-east-1d", "g6e.xlarge", 0.6982),
        ("us-east-1f", "trn1.32xlarge", 7.955),
        ("us-west-2b", "p5.48xlarge", 19.8173),
    ],
)
def test_spot_price_is_the_hourly_price(good, zone, instance_type, expected):
    assert price(good.records, zone, instance_type).price_per_hour == expected


def test_record_carries_zone_chip_and_provenance(good):
    record = price(good.records, "us-east-1a", "p5.48xlarge")
    assert (record.provider, record.source, record.region) == ("aws", SOURCE, "us-east-1")
    assert (record.chip, record.chip_count, record.upfront) == ("H100-SXM", 8.0, None)
    assert record.payload_ref == f"fixtures/{SOURCE}/spot-us-east-1-page-1.json"
    assert record.extra == {
        "Timestamp": "2026-11-14T05:41:17+00:00",
        "AvailabilityZoneId": "use1-az6",
    }


def test_newest_price_of_a_zone_wins_whatever_the_page_order():
    reversed_pages = [history(name, "us-east-1") for name in reversed(EAST)]
    record = price(spot.parse(reversed_pages).records, "us-east-1a", "p5.48xlarge")
    assert (record.price_per_hour, record.extra["Timestamp"]) == (
        22.016,
        "2026-11-14T05:41:17+00:00",
    )


def test_notes_say_skipped_regions_no_market_and_no_price(good):
    skipped, no_market, no_price, superseded = good.notes
    assert skipped == (
        "region me-central-1 skipped: OptInRequired (You are not subscribed to this service. "
        "Please go to http://aws.amazon.com to subscribe.): this account has not enabled the "
        "region: enable it, or ignore this note"
    )
    assert no_market.startswith("trn3.48xlarge: no spot market (AWS does not offer a Spot")
    assert no_price == (
        "no spot price in any region queried for dl1.24xlarge, dl2q.24xlarge, g3.16xlarge, "
        f"g3.4xlarge, g3.8xlarge, g3s.xlarge, g4ad.16xlarge, g4ad.2xlarge and {len(TYPES) - 4 - 8} "
        "more (no Spot capacity offered there today)"
    )
    assert superseded == (
        "1 older price(s) in the query window gave way to a newer one in the same zone (all are "
        "in the archived payload)"
    )


def test_no_spot_families_are_not_asked_for():
    assert "trn3.48xlarge" not in TYPES
    assert set(aws_accelerator_types()) - set(TYPES) == {"trn3.48xlarge"}


def test_bad_prices_become_rejects_with_reasons():
    result = spot.parse([history("bad-spot-prices.json", "us-east-1")])
    assert [(r.zone, r.instance_type, r.price_per_hour) for r in result.records] == [
        ("us-east-1f", "g6e.48xlarge", 11.8421)
    ]
    assert [r.reason for r in result.rejects] == [
        "SpotPrice 'N/A*' is not a positive number",
        "SpotPrice '0.000000' is not a positive number",
        "ProductDescription is 'Windows', not 'Linux/UNIX': not a price this source collects",
        "instance type m5.large is not an accelerator type of the catalog "
        "(core/data/aws_instance_types.csv), and this source asked only for those",
        "zone us-east-2a is not in the region asked (us-east-1)",
        "Timestamp 'yesterday' is not an ISO 8601 time",
    ]
    rows = fixture_json(SOURCE, "bad-spot-prices.json")["SpotPriceHistory"]
    assert [r.row for r in result.rejects] == rows[:6]


def test_region_comes_from_the_zone_without_a_request():
    result = spot.parse([recorded(SOURCE, "spot-us-west-2.json")])
    assert {r.region for r in result.records} == {"us-west-2"}


@pytest.mark.parametrize(
    ("zone", "region"),
    [
        ("us-east-1a", "us-east-1"),
        ("us-west-2-lax-1a", "us-west-2"),
        ("us-east-1-wl1-bos-wlz-1", "us-east-1"),
        ("ap-southeast-4b", "ap-southeast-4"),
        ("us-gov-west-1a", "us-gov-west-1"),
        ("nowhere", ""),
    ],
)
def test_region_of_zone(zone, region):
    assert region_of_zone(zone) == region


@pytest.mark.parametrize("zone", ["us-east-1a\x00", "us-east-1a\u200b", "us-east-1a "])
def test_a_zone_that_is_no_aws_zone_name_is_a_reject(zone):
    """'us-east-1a\\x00' is in us-east-1 by its start: it loaded as a zone of its own."""
    body = fixture_json(SOURCE, EAST[0])
    entry = body["SpotPriceHistory"][0]
    recorded_zone, entry["AvailabilityZone"] = entry["AvailabilityZone"], zone
    assert zone.startswith(recorded_zone)
    request = {"operation": spot.HISTORY, "region": "us-east-1", "InstanceTypes": TYPES}
    result = spot.parse([recorded(SOURCE, EAST[0], request, json.dumps(body).encode())])
    assert all(r.zone.isprintable() and " " not in r.zone for r in result.records)
    (reject,) = result.rejects
    assert reject.reason.startswith(f"AvailabilityZone {zone!r} is not an AWS zone name")
    assert reject.row == entry


def test_a_page_without_history_is_a_parse_error():
    payload = history("bad-page-no-history.json", "us-east-1")
    with pytest.raises(ParseError, match=re.escape("has no SpotPriceHistory list (found Errors)")):
        spot.parse([payload])


# ---------------------------------------------------------------- fetch


def spot_params(token: str | None = None) -> dict:
    params = {**spot.spot_request(TYPES, NOW), "MaxResults": spot.PAGE_SIZE}
    return {**params, "NextToken": token} if token else params


def spot_body(name: str) -> dict:
    return with_datetimes(fixture_json(SOURCE, name), ("Timestamp",))


def clients(*regions: str) -> dict:
    return {region: stubbed("ec2", region) for region in regions}


def stub_good(stubs: dict) -> None:
    east, west, closed = stubs["us-east-1"][1], stubs["us-west-2"][1], stubs["me-central-1"][1]
    east.add_response("describe_regions", fixture_json(SOURCE, "describe-regions.json"), {})
    closed.add_client_error(
        "describe_spot_price_history",
        service_error_code="OptInRequired",
        service_message="You are not subscribed to this service. Please go to "
        "http://aws.amazon.com to subscribe.",
        http_status_code=401,
        expected_params=spot_params(),
    )
    first = spot_body(EAST[0])
    east.add_response(HISTORY, first, spot_params())
    east.add_response(HISTORY, spot_body(EAST[1]), spot_params(first["NextToken"]))
    west.add_response(HISTORY, spot_body("spot-us-west-2.json"), spot_params())


def run_fetch(tmp_path, stubs: dict, messages: list[str] | None = None):
    for _, stubber in stubs.values():
        stubber.activate()
    try:
        return spot.fetch(
            context(tmp_path, SOURCE, messages=messages), client_for=lambda r: stubs[r][0], now=NOW
        )
    finally:
        for _, stubber in stubs.values():
            stubber.deactivate()


def test_fetch_walks_every_region_and_archives_every_page(tmp_path):
    stubs = clients("us-east-1", "us-west-2", "me-central-1")
    stub_good(stubs)
    messages: list[str] = []
    fetched = run_fetch(tmp_path, stubs, messages)
    for _, stubber in stubs.values():
        stubber.assert_no_pending_responses()
    assert messages[0] == "DescribeSpotPriceHistory me-central-1 (1/3)"
    assert messages[-1] == "DescribeSpotPriceHistory us-west-2 (3/3)"
    archived = read_payloads(tmp_path / STAMP, SOURCE)
    assert [p.data for p in archived] == [p.data for p in fetched]
    assert [json.loads(p.data) for p in archived[2:4]] == [fixture_json(SOURCE, n) for n in EAST]
    requests = [e["request"] for e in read_manifest(tmp_path / STAMP / SOURCE)["payloads"]]
    assert [(r.get("region"), r.get("NextToken")) for r in requests] == [
        ("us-east-1", None),
        ("me-central-1", None),
        ("us-east-1", None),
        ("us-east-1", fixture_json(SOURCE, EAST[0])["NextToken"]),
        ("us-west-2", None),
    ]
    assert requests[2]["StartTime"] == "2026-11-14T06:00:02+00:00"
    from_archive = spot.parse(archived)
    expected = spot.parse(good_payloads())
    assert sorted((r.offer_key(), r.price_per_hour) for r in from_archive.records) == sorted(
        (r.offer_key(), r.price_per_hour) for r in expected.records
    )
    assert from_archive.notes == expected.notes


def test_without_describe_regions_the_built_in_list_is_used(tmp_path, monkeypatch):
    monkeypatch.setattr(spot, "REGIONS", ("us-east-1", "us-west-2"))
    stubs = clients("us-east-1", "us-west-2")
    east, west = stubs["us-east-1"][1], stubs["us-west-2"][1]
    east.add_client_error("describe_regions", "UnauthorizedOperation", "not allowed", 403)
    east.add_response("describe_spot_price_history", {"SpotPriceHistory": []}, spot_params())
    west.add_response(HISTORY, spot_body("spot-us-west-2.json"), spot_params())
    messages: list[str] = []
    fetched = run_fetch(tmp_path, stubs, messages)
    assert messages[0].startswith("aws-spot: DescribeRegions failed with UnauthorizedOperation")
    assert messages[0].endswith("using the built-in list of 2 regions")
    result = spot.parse(fetched)
    assert len(result.records) == 3
    assert result.notes[0] == "DescribeRegions was not answered: queried the built-in region list"


def test_every_region_refused_is_a_source_error(tmp_path, monkeypatch):
    monkeypatch.setattr(spot, "REGIONS", ("us-east-1",))
    stubs = clients("us-east-1")
    east = stubs["us-east-1"][1]
    east.add_client_error("describe_regions", "AuthFailure", "not validated", 401)
    east.add_client_error("describe_spot_price_history", "AuthFailure", "not validated", 401)
    with pytest.raises(SourceError, match="every region refused DescribeSpotPriceHistory"):
        run_fetch(tmp_path, stubs)


def test_throttling_in_a_region_fails_the_source_and_keeps_earlier_pages(tmp_path):
    stubs = clients("us-east-1", "us-west-2", "me-central-1")
    stub_good(stubs)
    west = stubs["us-west-2"]
    west[1].deactivate()
    stubs["us-west-2"] = stubbed("ec2", "us-west-2")
    stubs["us-west-2"][1].add_client_error(
        "describe_spot_price_history", "RequestLimitExceeded", "Request limit exceeded.", 503
    )
    with pytest.raises(SourceError) as raised:
        run_fetch(tmp_path, stubs)
    assert str(raised.value) == (
        "aws-spot: DescribeSpotPriceHistory in us-west-2 failed with RequestLimitExceeded "
        "(Request limit exceeded.): AWS throttled the request after the client's retries; run "
        "again later"
    )
    assert len(read_payloads(tmp_path / STAMP, SOURCE)) == 4


def test_a_repeated_token_stops_the_paginator(tmp_path, monkeypatch):
    monkeypatch.setattr(spot, "REGIONS", ("us-east-1",))
    stubs = clients("us-east-1")
    east = stubs["us-east-1"][1]
    east.add_client_error("describe_regions", "UnauthorizedOperation", "no", 403)
    first = spot_body(EAST[0])
    east.add_response("describe_spot_price_history", first, spot_params())
    east.add_response("describe_spot_price_history", first, spot_params(first["NextToken"]))
    with pytest.raises(SourceError, match="returned a page token it had already returned"):
        run_fetch(tmp_path, stubs)


def test_no_credentials_skips_the_source(tmp_path, no_aws_config):
    with pytest.raises(SourceSkipped) as raised:
        spot.fetch(context(tmp_path / "archive", SOURCE))
    assert str(raised.value) == NO_CREDENTIALS
    assert not (tmp_path / "archive").exists()


def test_source_is_registered():
    from chipcost.extract import registry

    assert registry()[SOURCE] is spot.SOURCE
    assert (spot.SOURCE.provider, spot.SOURCE.fetch, spot.SOURCE.parse.__wrapped__) == (
        "aws",
        spot.fetch,
        spot.parse,
    )


def test_botocores_documented_spot_history_example_is_read_and_refused_by_product():
    # AWS's SDK example (m1.xlarge, "Linux/UNIX (Amazon VPC)", 2014): the shape this source
    # reads; its rows are a product description this source does not collect.
    result = spot.parse([history("documented-spot-price-history-botocore.json", "us-west-1")])
    assert result.records == [] and len(result.rejects) == 2
    assert all(
        "ProductDescription is 'Linux/UNIX (Amazon VPC)'" in r.reason for r in result.rejects
    )
