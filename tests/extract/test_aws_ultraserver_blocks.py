"""aws-capacity-blocks for UltraServers: a Trn2 or P6e-GB200 UltraServer is rented whole, one
offer of all its chips priced per UltraServer-hour; fetch asks for each UltraServer type.

Fixtures in tests/fixtures/aws-capacity-blocks/ (ORIGIN.md): a u-trn2x64 1-day offering in
us-east-2 and a u-p6e-gb200x72 7-day offering in the Dallas Local Zone, in botocore's
CapacityBlockOffering shape.
"""

from __future__ import annotations

import json

import pytest

from chipcost.core.catalog import aws_chip_for, aws_ultraserver_types
from chipcost.extract.aws import capacity_blocks as cb
from tests.aws_stubs import fixture_json, recorded, stubbed, with_datetimes
from tests.extract.test_aws_capacity_blocks import DATES, OFFERINGS, SOURCE, block, first_offering
from tests.sources import context


def ultraserver(name: str, region: str, server: str, hours: int):
    return recorded(SOURCE, name, {"region": region, **cb.ultraserver_request(server, hours)})


def test_an_ultraserver_block_is_one_offer_of_all_its_chips():
    result = cb.parse(
        [
            ultraserver("offerings-u-trn2x64-us-east-2-24h.json", "us-east-2", "u-trn2x64", 24),
            ultraserver(
                "offerings-u-p6e-gb200x72-us-east-1-168h.json", "us-east-1", "u-p6e-gb200x72", 168
            ),
        ]
    )
    assert not result.rejects
    trn2 = block(result.records, "us-east-2b", "u-trn2x64", "1d")
    # 4 trn2u.48xlarge of 16 chips; 3433.04 / 24 h = 143.0433 per UltraServer-hour
    assert (trn2.chip, trn2.chip_count) == ("Trainium2", 64.0)
    assert (trn2.upfront, trn2.price_per_hour) == (3433.04, pytest.approx(3433.04 / 24))
    assert trn2.price_per_hour / trn2.chip_count == pytest.approx(2.2351, abs=1e-4)
    assert trn2.extra | {"UltraserverCount": 1.0, "InstanceType": "trn2u.48xlarge"} == trn2.extra
    assert trn2.extra["InstanceCount"] == 4
    gb200 = block(result.records, "us-east-1-dfw-2a", "u-p6e-gb200x72", "7d")
    # 72 GPUs in the Dallas Local Zone, at AWS's listed $761.904 per UltraServer-hour
    assert (gb200.region, gb200.chip, gb200.chip_count) == ("us-east-1", "GB200", 72.0)
    assert gb200.price_per_hour == pytest.approx(761.904, abs=1e-4)
    assert gb200.price_per_hour / gb200.chip_count == pytest.approx(10.582, abs=1e-3)
    assert gb200.extra["ZoneType"] == "local-zone"
    assert "u-trn2x64" not in " ".join(result.notes)


def test_an_ultraserver_type_not_in_the_catalog_is_refused():
    raw = first_offering("offerings-u-trn2x64-us-east-2-24h.json")
    raw.update(UltraserverType="u-trn9x999")
    data = json.dumps({"CapacityBlockOfferings": [raw]}).encode()
    result = cb.parse([recorded(SOURCE, "x.json", {"region": "us-east-2"}, data)])
    assert not result.records
    assert [r.reason for r in result.rejects] == [
        "UltraServer type u-trn9x999 is not in core/data/aws_ultraserver_types.csv: chips "
        "unknown; add a row there"
    ]


def test_an_ultraserver_has_all_its_instances_chips():
    servers = aws_ultraserver_types()
    counted = {name: (s.chip, s.chip_count) for name, s in servers.items()}
    assert counted == {
        "u-trn2x64": ("Trainium2", 64.0),  # 4 x trn2u.48xlarge of 16
        "u-p6e-gb200x36": ("GB200", 36.0),  # 9 x p6e-gb200.36xlarge of 4
        "u-p6e-gb200x72": ("GB200", 72.0),
    }
    assert all(aws_chip_for(s.instance_type).known_type for s in servers.values())


def test_ultraservers_are_asked_in_every_zone_and_a_refusal_is_noted(tmp_path, monkeypatch):
    """An account AWS has not let see UltraServer offerings gets an authorization error for
    them alone: archived and noted, the source not failed."""
    monkeypatch.setattr(cb, "REGIONS", ("us-east-2",))
    monkeypatch.setattr(cb, "DURATION_HOURS", (24,))
    monkeypatch.setattr(cb, "aws_capacity_block_types", tuple)
    trn2 = {"u-trn2x64": aws_ultraserver_types()["u-trn2x64"]}
    gb200 = {"u-p6e-gb200x36": aws_ultraserver_types()["u-p6e-gb200x36"]}
    monkeypatch.setattr(cb, "aws_ultraserver_types", lambda: trn2 | gb200)
    client, stubber = stubbed("ec2", "us-east-2")
    body = with_datetimes(fixture_json(SOURCE, "offerings-u-trn2x64-us-east-2-24h.json"), DATES)
    asked = {**cb.ultraserver_request("u-trn2x64", 24), "MaxResults": cb.PAGE_SIZE}
    assert asked["AllAvailabilityZones"] is True and asked["UltraserverCount"] == 1
    stubber.add_response(OFFERINGS, body, asked)
    refusal = (
        "This AWS Account is not authorized to call DescribeCapacityBlockOfferings API when "
        "requesting an EC2 UltraServer"
    )
    stubber.add_client_error(OFFERINGS, "UnauthorizedOperation", refusal, 403)
    with stubber:
        fetched = cb.fetch(context(tmp_path, SOURCE), client_for=lambda r: client)
    stubber.assert_no_pending_responses()
    result = cb.parse(fetched)
    assert [(r.instance_type, r.chip_count) for r in result.records] == [("u-trn2x64", 64.0)]
    assert result.notes[0] == (
        f"no Capacity Blocks of u-p6e-gb200x36 for 24h in us-east-2: UnauthorizedOperation "
        f"({refusal})"
    )
