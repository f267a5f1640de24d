"""The AWS API sources call AWS, whatever endpoint AWS_ENDPOINT_URL names.

A team keeping its archive on an S3-compatible store once set the store's endpoint there, and
boto3 sent every pricing call to the store (aws-spot: 2544 rejects; aws-pricing-api: a 500).
Here AWS_ENDPOINT_URL names moto's S3 server (a test double for S3), started by the test; a
before-send hook answers the Price List calls with recorded pages instead of the network.
"""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.awsrequest import AWSResponse

from chipcost.extract.aws import capacity_blocks as aws_capacity_blocks
from chipcost.extract.aws import pricing as aws_pricing
from chipcost.extract.aws import savings_plans as aws_savings_plans
from chipcost.extract.aws import spot as aws_spot
from chipcost.extract.aws._calls import aws_client
from tests.aws_stubs import clear_aws_env, fixture_bytes
from tests.sources import context

CLIENTS = {
    "pricing": (aws_pricing.pricing_client, "https://api.pricing.us-east-1.amazonaws.com"),
    "pricing-ec2": (lambda: aws_pricing.ec2_client("eu-west-1"), "https://ec2.eu-west-1"),
    "spot": (lambda: aws_spot.ec2_client("us-west-2"), "https://ec2.us-west-2.amazonaws.com"),
    "savings-plans": (
        lambda: aws_client("savingsplans", aws_savings_plans.SAVINGS_PLANS_REGION, "x"),
        "https://savingsplans.amazonaws.com",
    ),
    "capacity-blocks": (
        lambda: aws_capacity_blocks.ec2_client("us-east-2"),
        "https://ec2.us-east-2.amazonaws.com",
    ),
}


@pytest.fixture
def storage_endpoint_in_aws_variables(s3_endpoint, tmp_path, monkeypatch) -> str:
    """AWS credentials, and a store's endpoint in every AWS_ENDPOINT_URL variable boto3 reads."""
    clear_aws_env(tmp_path, monkeypatch)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIATESTING")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    for suffix in ("", "_PRICING", "_EC2", "_SAVINGSPLANS"):
        monkeypatch.setenv(f"AWS_ENDPOINT_URL{suffix}", s3_endpoint)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    return s3_endpoint


@pytest.mark.parametrize("name", list(CLIENTS))
def test_every_aws_api_client_ignores_a_storage_endpoint(storage_endpoint_in_aws_variables, name):
    make, aws_endpoint = CLIENTS[name]
    endpoint = make().meta.endpoint_url
    assert endpoint.startswith(aws_endpoint), endpoint
    assert storage_endpoint_in_aws_variables not in endpoint


def test_aws_pricing_api_fetches_from_aws_with_a_storage_endpoint_set(
    storage_endpoint_in_aws_variables, tmp_path, monkeypatch
):
    pages = {
        "GPU instance": [
            fixture_bytes("aws-pricing-api", "gpu-instance-page-1.json"),
            fixture_bytes("aws-pricing-api", "gpu-instance-page-2.json"),
        ],
        "Machine Learning ASIC Instances": [
            fixture_bytes("aws-pricing-api", "ml-asic-page-1.json")
        ],
    }
    urls: list[str] = []

    def answer(request, **kwargs) -> AWSResponse:
        """The recorded page of the queried family, as AWS's JSON protocol sends it."""
        urls.append(request.url)
        asked = json.loads(request.body)
        family = next(f["Value"] for f in asked["Filters"] if f["Field"] == "instanceFamily")
        body = pages[family].pop(0)
        return AWSResponse(
            request.url, 200, {"Content-Type": "application/x-amz-json-1.1"}, _Raw(body)
        )

    session = boto3.Session()
    session.events.register("before-send.pricing.GetProducts", answer)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", session)
    ctx = context(tmp_path / "archive", aws_pricing.SOURCE_NAME)
    payloads = aws_pricing.fetch(ctx, ec2_client_for=_no_ec2)
    assert len(urls) == 3 and not any(pages.values())
    assert {url.rstrip("/") for url in urls} == {"https://api.pricing.us-east-1.amazonaws.com"}
    assert aws_pricing.parse(payloads).records


def _no_ec2(region: str):
    raise AssertionError("the recorded pages name every type: no DescribeInstanceTypes")


class _Raw:
    """The body of a canned response, as botocore streams it."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **kwargs):
        yield self.data
