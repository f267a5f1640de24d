"""Unknown accelerator types are named from EC2 DescribeInstanceTypes when credentials exist."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import Stubber

from chipcost.archive import ArchiveWriter, read_payloads
from chipcost.core.catalog import canonical_chip
from chipcost.core.payload import Payload
from chipcost.extract.aws_pricing import EC2_URL, INSTANCE_FAMILIES, PRICING_URL, fetch, parse
from chipcost.extract.aws_pricing import get_products_request as request
from chipcost.extract.base import FetchContext
from tests.paths import FIXTURES

FIXTURES = FIXTURES / "aws-pricing-api"
WHEN = datetime(2026, 11, 14, 6, tzinfo=UTC)
EMPTY_PAGE = {"FormatVersion": "aws_v1", "PriceList": []}


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def client(service: str, region: str = "us-east-1"):
    made = boto3.client(
        service, region_name=region, aws_access_key_id="t", aws_secret_access_key="t"
    )
    return made, Stubber(made)


def test_fetch_names_unknown_types_and_archives_the_answer(tmp_path):
    pricing, pricing_stub = client("pricing")
    pricing_stub.add_response(
        "get_products", fixture("future-types.json"), request(INSTANCE_FAMILIES[0])
    )
    pricing_stub.add_response("get_products", EMPTY_PAGE, request(INSTANCE_FAMILIES[1]))
    ec2, ec2_stub = client("ec2")
    ec2_stub.add_response(
        "describe_instance_types",
        fixture("describe-instance-types.json"),
        {"InstanceTypes": ["g9x.48xlarge"]},
    )
    regions: list[str] = []

    def ec2_for(region: str):
        regions.append(region)
        return ec2

    writer = ArchiveWriter(tmp_path, "2026-11-14T060000Z", "aws-pricing-api")
    with pricing_stub, ec2_stub:
        payloads = fetch(FetchContext(archive=writer), client=pricing, ec2_client_for=ec2_for)
    ec2_stub.assert_no_pending_responses()
    assert regions == ["us-east-1"]
    assert payloads[-1].url == EC2_URL.format(region="us-east-1")

    result = parse(read_payloads(tmp_path / "2026-11-14T060000Z", "aws-pricing-api"))
    g9x = {r.chip for r in result.records if r.instance_type == "g9x.48xlarge"}
    assert g9x == {"B300"}
    assert any("g9x.48xlarge named B300 from DescribeInstanceTypes" in n for n in result.notes)


def test_describe_failure_leaves_types_unknown_but_the_source_ok(tmp_path):
    pricing, pricing_stub = client("pricing")
    pricing_stub.add_response(
        "get_products", fixture("future-types.json"), request(INSTANCE_FAMILIES[0])
    )
    pricing_stub.add_response("get_products", EMPTY_PAGE, request(INSTANCE_FAMILIES[1]))
    ec2, ec2_stub = client("ec2")
    ec2_stub.add_client_error("describe_instance_types", "UnauthorizedOperation", "not allowed")
    messages: list[str] = []
    writer = ArchiveWriter(tmp_path, "2026-11-14T060000Z", "aws-pricing-api")
    with pricing_stub, ec2_stub:
        payloads = fetch(
            FetchContext(archive=writer, progress=messages.append),
            client=pricing,
            ec2_client_for=lambda region: ec2,
        )
    assert all(p.url == PRICING_URL for p in payloads)
    assert any("types stay unknown" in m for m in messages)
    assert {r.chip for r in parse(payloads).records if r.instance_type == "g9x.48xlarge"} == {
        "unknown"
    }


def test_a_name_the_aliases_do_not_know_stays_unknown():
    answer = {
        "InstanceTypes": [
            {
                "InstanceType": "g9x.48xlarge",
                "GpuInfo": {"Gpus": [{"Name": "Z900", "Manufacturer": "NVIDIA", "Count": 8}]},
            }
        ]
    }
    pages = [
        Payload((FIXTURES / "future-types.json").read_bytes(), PRICING_URL, WHEN, "p", "p"),
        Payload(
            json.dumps(answer).encode(),
            "ec2",
            WHEN,
            "d",
            "d",
            request={"operation": "DescribeInstanceTypes"},
        ),
    ]
    chips = {r.chip for r in parse(pages).records if r.instance_type == "g9x.48xlarge"}
    assert chips == {"unknown"}


@pytest.mark.parametrize(
    ("spelling", "memory_gb", "chip"),
    [
        ("NVIDIA H100 80GB HBM3", None, "H100-SXM"),
        ("NVIDIA H100", 80.0, "H100-SXM"),
        ("H100 PCIe", None, "H100-PCIe"),
        ("H100-NVL", None, "H100-NVL"),
        ("NVIDIA A100", 40.0, "A100-40GB"),
        ("NVIDIA A100", 80.0, "A100-80GB"),
        ("NVIDIA A100", None, "unknown"),
        ("AWS Trainium2", None, "Trainium2"),
        ("AWS Inferentia", None, "Inferentia1"),
        ("NVIDIA L40S", None, "L40S"),
        ("NVIDIA RTX PRO Server 6000", None, "RTX-PRO-6000"),
        ("Radeon Pro V520", None, "unknown"),
    ],
)
def test_provider_spellings_map_to_canonical_chips(spelling, memory_gb, chip):
    assert canonical_chip(spelling, memory_gb) == chip
