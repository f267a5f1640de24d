"""aws-capacity-blocks: parse() on recorded offerings, fetch() against stubbed EC2 clients.

Fixtures in tests/fixtures/aws-capacity-blocks/: p5.48xlarge 1-day offerings in us-east-1
(two start dates in one zone), a 7-day p5 and a 14-day trn2 offering, an empty answer, the
archived Unsupported answer of a type not sold in a region, and bad-offerings.
"""

from __future__ import annotations

import json

import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.catalog import aws_capacity_block_types
from chipcost.core.errors import SourceError, SourceSkipped
from chipcost.extract.aws import capacity_blocks as cb
from chipcost.extract.aws.pricing import NO_CREDENTIALS
from tests.aws_stubs import (
    clear_aws_env,
    fixture_json,
    recorded,
    stubbed,
    with_datetimes,
)
from tests.sources import STAMP, context

SOURCE = "aws-capacity-blocks"
DATES = ("StartDate", "EndDate")
OFFERINGS = "describe_capacity_block_offerings"


@pytest.fixture
def no_aws_config(tmp_path, monkeypatch):
    clear_aws_env(tmp_path, monkeypatch)


def answer(name: str, region: str, instance_type: str, hours: int):
    return recorded(SOURCE, name, {"region": region, **cb.offerings_request(instance_type, hours)})


def first_offering(name: str) -> dict:
    return fixture_json(SOURCE, name)["CapacityBlockOfferings"][0]


def good_payloads():
    return [
        answer("offerings-p5-us-east-1-24h.json", "us-east-1", "p5.48xlarge", 24),
        answer("offerings-p5-us-east-1-168h.json", "us-east-1", "p5.48xlarge", 168),
        answer("empty.json", "us-east-1", "p5.48xlarge", 336),
        answer("offerings-trn2-us-east-2-336h.json", "us-east-2", "trn2.48xlarge", 336),
        answer("not-offered-error.json", "ap-southeast-4", "p6-b300.48xlarge", 24),
    ]


@pytest.fixture(scope="module")
def good():
    return cb.parse(good_payloads())


def block(records, zone, instance_type, term):
    found = [r for r in records if (r.zone, r.instance_type, r.term) == (zone, instance_type, term)]
    assert len(found) == 1, f"{len(found)} records for {instance_type} {term} in {zone}"
    return found[0]


# ---------------------------------------------------------------- parse


def test_one_record_per_zone_type_and_duration(good):
    assert good.rejects == []
    assert sorted((r.region, r.zone, r.instance_type, r.term) for r in good.records) == [
        ("us-east-1", "us-east-1a", "p5.48xlarge", "1d"),
        ("us-east-1", "us-east-1a", "p5.48xlarge", "7d"),
        ("us-east-1", "us-east-1b", "p5.48xlarge", "1d"),
        ("us-east-2", "us-east-2b", "trn2.48xlarge", "14d"),
    ]
    assert {(r.pricing_model, r.payment, r.plan) for r in good.records} == {
        ("capacity_block", "all_upfront", "default")
    }


# UpfrontFee / (instances x hours), and / chips for the per-chip figure, worked out by hand.
@pytest.mark.parametrize(
    ("zone", "instance_type", "term", "fee", "per_hour", "per_chip_hour"),
    [
        # 755.14 / 24 = 31.46416666..; / 8 chips = 3.93302083..
        ("us-east-1a", "p5.48xlarge", "1d", 755.14, 31.4641666667, 3.9330208333),
        # 777.60 / 24 = 32.4; / 8 = 4.05
        ("us-east-1b", "p5.48xlarge", "1d", 777.60, 32.4, 4.05),
        # 5285.95 / 168 = 31.46398809..; / 8 = 3.93299851..
        ("us-east-1a", "p5.48xlarge", "7d", 5285.95, 31.4639880952, 3.9329985119),
        # 12015.36 / 336 = 35.76; / 16 Trainium2 chips = 2.235
        ("us-east-2b", "trn2.48xlarge", "14d", 12015.36, 35.76, 2.235),
    ],
)
def test_price_is_the_upfront_fee_per_instance_hour(
    good, zone, instance_type, term, fee, per_hour, per_chip_hour
):
    record = block(good.records, zone, instance_type, term)
    assert record.upfront == fee
    assert record.price_per_hour == pytest.approx(per_hour, abs=1e-9)
    assert record.price_per_hour / record.chip_count == pytest.approx(per_chip_hour, abs=1e-9)


def test_the_cheapest_start_keeps_the_key_and_the_others_ride_along(good):
    record = block(good.records, "us-east-1a", "p5.48xlarge", "1d")
    assert record.sku == "cb-0b2c3d4e5f6071829"
    assert record.extra == {
        "CapacityBlockOfferingId": "cb-0b2c3d4e5f6071829",
        "StartDate": "2026-11-17T11:30:00+00:00",
        "EndDate": "2026-11-18T11:30:00+00:00",
        "CurrencyCode": "USD",
        "UpfrontFee": "755.14",
        "InstanceCount": 1.0,
        "DurationHours": 24.0,
        "other_offerings": [
            {
                "CapacityBlockOfferingId": "cb-0a1b2c3d4e5f60718",
                "StartDate": "2026-11-15T11:30:00+00:00",
                "UpfrontFee": "790.32",
            }
        ],
    }
    assert record.payload_ref == f"fixtures/{SOURCE}/offerings-p5-us-east-1-24h.json"
    keys = [r.offer_key() for r in good.records]
    assert len(keys) == len(set(keys))


def test_notes_name_what_is_not_offered(good):
    assert good.notes == [
        "no Capacity Blocks of p6-b300.48xlarge for 24h in ap-southeast-4: Unsupported (The "
        "requested instance type is not supported for Capacity Blocks in this Region.)",
        "no Capacity Block offering today for p4d.24xlarge, p4de.24xlarge, p5.4xlarge, "
        "p5e.48xlarge, p5en.48xlarge, p6-b200.48xlarge, p6-b300.48xlarge, trn1.32xlarge and 3 "
        "more",
    ]


def test_bad_offerings_become_rejects_with_reasons():
    result = cb.parse([answer("bad-offerings.json", "us-east-1", "p5.48xlarge", 24)])
    assert [(r.zone, r.price_per_hour) for r in result.records] == [("us-east-1f", 32.0)]
    assert [r.reason for r in result.rejects] == [
        "offering of 1 instance(s) for 0 hours: cannot price a block with no instances or no hours",
        "offering of 0 instance(s) for 24 hours: cannot price a block with no instances or no "
        "hours",
        "non-USD currency CNY: not converted",
        "UpfrontFee 'n/a' is not a non-negative number",
        "offering of 0 UltraServer(s) for 24 hours: cannot price a block with no UltraServers "
        "or no hours",
    ]
    rows = fixture_json(SOURCE, "bad-offerings.json")["CapacityBlockOfferings"]
    assert [r.row for r in result.rejects] == rows[:5]
    # Each names the offer it is a price of, which stays open: an offering's id names one start
    # date, not the offer (the cheapest offering's id is its record's sku).
    assert {r.sku for r in result.rejects} == {""}
    assert [
        (r.offer["zone"], r.offer["instance_type"], r.offer["term"]) for r in result.rejects
    ] == [
        ("us-east-1a", "p5.48xlarge", "0d"),  # its length, 0 hours, names no block sold
        *(("us-east-1" + zone, "p5.48xlarge", "1d") for zone in "bcd"),
        ("us-east-1e", "u-p6e-gb200x72", "1d"),
    ]
    assert {r.offer["pricing_model"] for r in result.rejects} == {"capacity_block"}


@pytest.mark.parametrize(
    ("field", "sent", "said"),
    [
        ("AvailabilityZone", "us-east-2a\x00", "is not an AWS zone name"),
        ("UpfrontFee", "4_8061.44", "is not a non-negative number"),  # float(): 48061.44
        ("UpfrontFee", "\u0664\u0668061.44", "is not a non-negative number"),
    ],
)
def test_a_zone_or_fee_float_would_read_otherwise_is_a_reject_naming_it(field, sent, said):
    raw = first_offering("offerings-trn2-us-east-2-336h.json")
    raw[field] = sent
    data = json.dumps({"CapacityBlockOfferings": [raw]}).encode()
    result = cb.parse([recorded(SOURCE, "x.json", {"region": "us-east-2"}, data)])
    assert not result.records
    (reject,) = result.rejects
    assert reject.reason.startswith(f"{field} {sent!r} {said}")


def test_a_block_of_several_instances_is_priced_per_instance():
    raw = first_offering("offerings-trn2-us-east-2-336h.json")
    raw.update(InstanceCount=4, UpfrontFee="48061.44")
    data = json.dumps({"CapacityBlockOfferings": [raw]}).encode()
    [record] = cb.parse([recorded(SOURCE, "x.json", {"region": "us-east-2"}, data)]).records
    # 48061.44 / (4 x 336) = 35.76 per instance-hour; 12015.36 upfront per instance
    assert (record.price_per_hour, record.upfront) == (35.76, 12015.36)


def test_minutes_count_in_the_price_and_show_in_the_term():
    raw = first_offering("offerings-p5-us-east-1-168h.json")
    raw.update(CapacityBlockDurationHours=23, CapacityBlockDurationMinutes=30, UpfrontFee="752.00")
    raw.pop("StartDate", None), raw.pop("EndDate", None)  # the duration fields alone
    data = json.dumps({"CapacityBlockOfferings": [raw]}).encode()
    [record] = cb.parse([recorded(SOURCE, "x.json", {"region": "us-east-1"}, data)]).records
    # 752.00 / 23.5 hours = 32.0
    assert (record.term, record.price_per_hour) == ("23h", 32.0)


def test_the_start_and_end_dates_give_the_hours_the_fee_buys():
    """A block listed as 24 hours that runs 24 h 17 min is priced over 24 h 17 min: on main at
    368c4bd its hours field gave a price per instance-hour 1.2% too high."""
    raw = first_offering("offerings-p5-us-east-1-168h.json")
    raw.update(
        CapacityBlockDurationHours=24,
        StartDate="2026-11-24T11:30:00+00:00",
        EndDate="2026-11-25T11:47:00+00:00",
        UpfrontFee="777.12",
    )
    data = json.dumps({"CapacityBlockOfferings": [raw]}).encode()
    [record] = cb.parse([recorded(SOURCE, "x.json", {"region": "us-east-1"}, data)]).records
    assert record.price_per_hour == pytest.approx(777.12 / (24 + 17 / 60))
    # Named by its listed length, as before: the offer keeps its key (1d).
    assert record.term == "1d" and record.extra["DurationHours"] == pytest.approx(24 + 17 / 60)


# ---------------------------------------------------------------- fetch


def params(instance_type: str, hours: int) -> dict:
    return {**cb.offerings_request(instance_type, hours), "MaxResults": cb.PAGE_SIZE}


@pytest.fixture
def two_types(monkeypatch):
    monkeypatch.setattr(cb, "REGIONS", ("us-east-1",))
    monkeypatch.setattr(cb, "aws_capacity_block_types", lambda: ("p5.48xlarge", "p6-b300.48xlarge"))
    monkeypatch.setattr(cb, "aws_ultraserver_types", dict)


def test_fetch_asks_every_type_and_duration_and_archives_every_answer(tmp_path, two_types):
    client, stubber = stubbed("ec2", "us-east-1")
    bodies = {
        24: "offerings-p5-us-east-1-24h.json",
        168: "offerings-p5-us-east-1-168h.json",
        336: "empty.json",
    }
    for hours, name in bodies.items():
        body = with_datetimes(fixture_json(SOURCE, name), DATES)
        stubber.add_response(OFFERINGS, body, params("p5.48xlarge", hours))
    for hours in cb.DURATION_HOURS:
        stubber.add_client_error(
            OFFERINGS,
            "Unsupported",
            "The requested instance type is not supported for Capacity Blocks in this Region.",
            400,
            expected_params=params("p6-b300.48xlarge", hours),
        )
    messages: list[str] = []
    with stubber:
        ctx = context(tmp_path, SOURCE, messages=messages)
        fetched = cb.fetch(ctx, client_for=lambda r: client)
    stubber.assert_no_pending_responses()
    assert len(fetched) == 6
    assert messages[:2] == [
        "DescribeCapacityBlockOfferings us-east-1 p5.48xlarge 24h",
        "DescribeCapacityBlockOfferings us-east-1 p5.48xlarge 168h",
    ]
    archived = read_payloads(tmp_path / STAMP, SOURCE)
    assert [json.loads(p.data) for p in archived[:3]] == [
        fixture_json(SOURCE, name) for name in bodies.values()
    ]
    assert json.loads(archived[3].data) == fixture_json(SOURCE, "not-offered-error.json")
    requests = [e["request"] for e in read_manifest(tmp_path / STAMP / SOURCE)["payloads"]]
    assert requests[0] == {"region": "us-east-1", **params("p5.48xlarge", 24), "NextToken": None}
    result = cb.parse(archived)
    assert len(result.records) == 3
    assert result.notes[0].startswith("no Capacity Blocks of p6-b300.48xlarge for 24h in us-east-1")


def test_throttling_fails_the_source_and_keeps_earlier_answers(tmp_path, two_types):
    client, stubber = stubbed("ec2", "us-east-1")
    body = with_datetimes(fixture_json(SOURCE, "offerings-p5-us-east-1-24h.json"), DATES)
    stubber.add_response(OFFERINGS, body, params("p5.48xlarge", 24))
    stubber.add_client_error(OFFERINGS, "RequestLimitExceeded", "Request limit exceeded.", 503)
    with stubber, pytest.raises(SourceError) as raised:
        cb.fetch(context(tmp_path, SOURCE), client_for=lambda r: client)
    assert str(raised.value) == (
        "aws-capacity-blocks: DescribeCapacityBlockOfferings (p5.48xlarge 168h in us-east-1) "
        "failed with RequestLimitExceeded (Request limit exceeded.): AWS throttled the request "
        "after the client's retries; run again later"
    )
    assert len(read_payloads(tmp_path / STAMP, SOURCE)) == 1


def test_missing_permission_is_a_source_error(tmp_path, two_types):
    client, stubber = stubbed("ec2", "us-east-1")
    stubber.add_client_error(OFFERINGS, "UnauthorizedOperation", "not authorized", 403)
    with stubber, pytest.raises(SourceError, match="allow ec2:DescribeCapacityBlockOfferings"):
        cb.fetch(context(tmp_path, SOURCE), client_for=lambda r: client)


def test_no_credentials_skips_the_source(tmp_path, no_aws_config):
    with pytest.raises(SourceSkipped) as raised:
        cb.fetch(context(tmp_path / "archive", SOURCE))
    assert str(raised.value) == NO_CREDENTIALS
    assert not (tmp_path / "archive").exists()


def test_capacity_block_types_are_catalog_types():
    from chipcost.core.catalog import aws_chip_for

    for instance_type in aws_capacity_block_types():
        match = aws_chip_for(instance_type)
        assert match.known_type and match.chip != "unknown", instance_type


def test_source_is_registered():
    from chipcost.extract import registry

    assert registry()[SOURCE] is cb.SOURCE
    assert (cb.SOURCE.provider, cb.SOURCE.fetch, cb.SOURCE.parse.__wrapped__) == (
        "aws",
        cb.fetch,
        cb.parse,
    )
