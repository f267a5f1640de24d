"""aws-savings-plans: parse() on recorded offering-rate pages, fetch() against a stubbed client.

Fixtures in tests/fixtures/aws-savings-plans/: rates-page-1/2 are the two pages of one query
(p5.48xlarge in us-east-1, every plan, term and payment; trn1 and inf2 elsewhere);
bad-rates holds the rates the parser must refuse, beside one good one.
"""

from __future__ import annotations

import json
import re

import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.catalog import aws_accelerator_types
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.extract.aws import savings_plans as sp
from chipcost.extract.aws.pricing import NO_CREDENTIALS
from tests.aws_stubs import (
    FETCHED_AT,
    clear_aws_env,
    fixture_json,
    recorded,
    stubbed,
)
from tests.sources import STAMP, context

SOURCE = "aws-savings-plans"


@pytest.fixture
def no_aws_config(tmp_path, monkeypatch):
    clear_aws_env(tmp_path, monkeypatch)


GOOD = ("rates-page-1.json", "rates-page-2.json")


def page(name: str, asked: list[str] | None = None):
    request = sp.offering_rates_request(asked) if asked is not None else {}
    return recorded(SOURCE, name, request)


@pytest.fixture(scope="module")
def good():
    return sp.parse([page(name) for name in GOOD])


def find(records, instance_type, region, term, payment, plan):
    found = [
        r
        for r in records
        if (r.instance_type, r.region, r.term, r.payment, r.plan)
        == (instance_type, region, term, payment, plan)
    ]
    assert len(found) == 1, f"{len(found)} records for {instance_type} {region} {term} {payment}"
    return found[0]


# ---------------------------------------------------------------- parse


def test_good_pages_give_one_record_per_rate(good):
    assert (len(good.records), good.rejects, good.notes) == (16, [], [])
    keys = [r.offer_key() for r in good.records]
    assert len(set(keys)) == len(keys)
    p5 = {(r.term, r.payment, r.plan) for r in good.records if r.instance_type == "p5.48xlarge"}
    assert p5 == {
        (term, payment, plan)
        for term in ("1yr", "3yr")
        for payment in ("no_upfront", "partial_upfront", "all_upfront")
        for plan in ("compute", "ec2_instance")
    }
    assert {r.pricing_model for r in good.records} == {"savings_plan"}


# The rate as listed in the fixture is the record's hourly price, unchanged.
@pytest.mark.parametrize(
    ("instance_type", "region", "term", "payment", "plan", "rate"),
    [
        ("p5.48xlarge", "us-east-1", "1yr", "no_upfront", "compute", 39.6288),
        ("p5.48xlarge", "us-east-1", "1yr", "all_upfront", "compute", 36.8768),
        ("p5.48xlarge", "us-east-1", "3yr", "partial_upfront", "compute", 25.8688),
        ("p5.48xlarge", "us-east-1", "1yr", "partial_upfront", "ec2_instance", 34.1248),
        ("p5.48xlarge", "us-east-1", "3yr", "all_upfront", "ec2_instance", 20.9152),
        ("trn1.32xlarge", "us-east-2", "1yr", "no_upfront", "compute", 15.48),
        ("inf2.48xlarge", "us-west-2", "3yr", "all_upfront", "ec2_instance", 4.9324),
    ],
)
def test_rate_is_the_hourly_price(good, instance_type, region, term, payment, plan, rate):
    record = find(good.records, instance_type, region, term, payment, plan)
    assert record.price_per_hour == rate
    assert record.upfront is None


def test_record_carries_identity_and_provenance(good):
    record = find(good.records, "p5.48xlarge", "us-east-1", "3yr", "no_upfront", "ec2_instance")
    raw = fixture_json(SOURCE, "rates-page-1.json")["searchResults"][9]
    assert raw["rate"] == "23.1168"
    assert (record.provider, record.source, record.currency) == ("aws", SOURCE, "USD")
    assert (record.chip, record.chip_count, record.zone) == ("H100-SXM", 8.0, "")
    assert record.sku == raw["savingsPlanOffering"]["offeringId"]
    assert (record.observed_at, record.payload_ref) == (
        FETCHED_AT,
        f"fixtures/{SOURCE}/rates-page-1.json",
    )
    assert record.extra == {
        "usageType": "BoxUsage:p5.48xlarge",
        "operation": "RunInstances",
        "planDescription": "3 year No Upfront p5 EC2 Instance Savings Plan in us-east-1",
        "instanceFamily": "p5",
    }


def test_instance_plans_are_cheaper_than_compute_plans(good):
    for term in ("1yr", "3yr"):
        for payment in ("no_upfront", "partial_upfront", "all_upfront"):
            compute = find(good.records, "p5.48xlarge", "us-east-1", term, payment, "compute")
            instance = find(good.records, "p5.48xlarge", "us-east-1", term, payment, "ec2_instance")
            assert instance.price_per_hour < compute.price_per_hour


def test_bad_rates_become_rejects_with_reasons():
    result = sp.parse([page("bad-rates.json")])
    assert [(r.instance_type, r.region, r.price_per_hour) for r in result.records] == [
        ("trn2.48xlarge", "us-east-2", 32.1824)
    ]
    assert [r.reason for r in result.rejects] == [
        "non-USD currency CNY: not converted",
        "instance type m5.xlarge is not an accelerator type of the catalog "
        "(core/data/aws_instance_types.csv), and this source asked only for those",
        "productDescription is 'Windows', not 'Linux/UNIX': not a price this source collects",
        "usage type 'UnusedBox:p5.48xlarge' is not shared-tenancy instance usage (BoxUsage): "
        "not a price this source collects",
        "rate '' is not a positive number",
        "unknown durationSeconds 157680000 (expected 31536000, 94608000)",
    ]
    raw = fixture_json(SOURCE, "bad-rates.json")["searchResults"]
    for reject, row in zip(result.rejects, raw, strict=False):
        assert (reject.row, reject.sku) == (row, row["savingsPlanOffering"]["offeringId"])
        assert (reject.source, reject.payload_ref) == (SOURCE, f"fixtures/{SOURCE}/bad-rates.json")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"unit": "Request"}, "unit is 'Request', not 'Hrs': not an hourly rate"),
        ({"rate": "-1.5"}, "rate '-1.5' is not a positive number"),
        ({"properties": []}, "rate has no region or instanceType property"),
        ({"savingsPlanOffering": None}, "search result has no savingsPlanOffering"),
    ],
)
def test_malformed_rates_are_rejected(change, reason):
    raw = {**fixture_json(SOURCE, "rates-page-2.json")["searchResults"][0], **change}
    data = json.dumps({"searchResults": [raw]}).encode()
    result = sp.parse([recorded(SOURCE, "x.json", data=data)])
    assert result.records == []
    assert result.rejects[0].reason.startswith(reason)


def test_types_asked_but_never_answered_are_noted():
    result = sp.parse([page("rates-page-2.json", ["trn1.32xlarge", "trn3.48xlarge"])])
    assert result.notes == [
        "no Linux shared-tenancy savings-plan rate returned for trn3.48xlarge: AWS lists no "
        "savings plan for them (yet)"
    ]


def test_rejected_rates_count_as_answered():
    asked = ["g5.xlarge", "m5.xlarge", "trn2.48xlarge"]
    assert sp.parse([page("bad-rates.json", asked)]).notes == []


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("bad-page-error-body.json", "has no searchResults list (found __type, message)"),
        ("empty-page.json", None),
    ],
)
def test_pages_without_results(name, problem):
    if problem is None:  # an empty batch beside others is fine; a run of nothing is refused
        assert len(sp.parse([page(name), *(page(good) for good in GOOD)]).records) == len(
            sp.parse([page(good) for good in GOOD]).records
        )
        with pytest.raises(ParseError, match="gave no offer"):
            sp.parse([page(name)])
        return
    with pytest.raises(ParseError, match=re.escape(problem)) as raised:
        sp.parse([page(name)])
    assert f"fixtures/{SOURCE}/{name}" in str(raised.value)


def test_a_truncated_page_is_a_parse_error():
    with pytest.raises(ParseError, match="is not JSON"):
        sp.parse([recorded(SOURCE, "cut.json", data=b'{"searchResults": [{"rate": "1')])


# ---------------------------------------------------------------- requests and fetch


def test_request_asks_for_linux_shared_rates_of_both_plan_types():
    assert sp.offering_rates_request(["p5.48xlarge"], "tok") == {
        "savingsPlanTypes": ["Compute", "EC2Instance"],
        "savingsPlanPaymentOptions": ["No Upfront", "Partial Upfront", "All Upfront"],
        "products": ["EC2"],
        "serviceCodes": ["AmazonEC2"],
        "operations": ["RunInstances"],
        "filters": [
            {"name": "instanceType", "values": ["p5.48xlarge"]},
            {"name": "tenancy", "values": ["shared"]},
            {"name": "productDescription", "values": ["Linux/UNIX"]},
        ],
        "maxResults": 1000,
        "nextToken": "tok",
    }


def test_batches_cover_the_catalog_once():
    batches = sp.type_batches()
    assert [t for batch in batches for t in batch] == list(aws_accelerator_types())
    assert all(len(batch) <= sp.TYPES_PER_REQUEST for batch in batches)


def stub_batches(stubber, first_batch_pages: list[dict]) -> None:
    batches = sp.type_batches()
    token = None
    for body in first_batch_pages:
        expected = sp.offering_rates_request(batches[0], token)
        stubber.add_response("describe_savings_plans_offering_rates", body, expected)
        token = body.get("nextToken")
    for batch in batches[1:]:
        empty = fixture_json(SOURCE, "empty-page.json")
        stubber.add_response(
            "describe_savings_plans_offering_rates", empty, sp.offering_rates_request(batch)
        )


def test_fetch_paginates_by_hand_and_archives_every_page(tmp_path):
    client, stubber = stubbed("savingsplans")
    bodies = [fixture_json(SOURCE, name) for name in GOOD]
    stub_batches(stubber, bodies)
    messages: list[str] = []
    with stubber:
        fetched = sp.fetch(context(tmp_path, SOURCE, messages=messages), client=client)
    stubber.assert_no_pending_responses()
    batches = len(sp.type_batches())
    assert len(fetched) == 2 + (batches - 1)
    assert messages[:2] == [
        f"DescribeSavingsPlansOfferingRates instance types batch 1/{batches} page 1",
        f"DescribeSavingsPlansOfferingRates instance types batch 1/{batches} page 2",
    ]
    archived = read_payloads(tmp_path / STAMP, SOURCE)
    assert [json.loads(p.data) for p in archived[:2]] == bodies
    manifest = read_manifest(tmp_path / STAMP / SOURCE)
    assert [e["request"]["nextToken"] for e in manifest["payloads"][:2]] == [
        None,
        bodies[0]["nextToken"],
    ]
    from_archive = sp.parse(archived)
    assert [(r.offer_key(), r.price_per_hour) for r in from_archive.records] == [
        (r.offer_key(), r.price_per_hour) for r in sp.parse([page(n) for n in GOOD]).records
    ]


def test_throttling_becomes_a_source_error_and_keeps_earlier_pages(tmp_path):
    client, stubber = stubbed("savingsplans")
    first = fixture_json(SOURCE, "rates-page-1.json")
    batch = sp.type_batches()[0]
    stubber.add_response(
        "describe_savings_plans_offering_rates", first, sp.offering_rates_request(batch)
    )
    stubber.add_client_error(
        "describe_savings_plans_offering_rates",
        service_error_code="ThrottlingException",
        service_message="Rate exceeded",
        http_status_code=400,
        expected_params=sp.offering_rates_request(batch, first["nextToken"]),
    )
    with stubber, pytest.raises(SourceError) as raised:
        sp.fetch(context(tmp_path, SOURCE), client=client)
    assert str(raised.value) == (
        f"aws-savings-plans: DescribeSavingsPlansOfferingRates (instance types batch "
        f"1/{len(sp.type_batches())}, page 2) failed with ThrottlingException (Rate exceeded): "
        "AWS throttled the request after the client's retries; run again later"
    )
    assert len(read_payloads(tmp_path / STAMP, SOURCE)) == 1


def test_access_denied_names_the_permission(tmp_path):
    client, stubber = stubbed("savingsplans")
    stubber.add_client_error(
        "describe_savings_plans_offering_rates",
        service_error_code="AccessDeniedException",
        service_message="not authorized",
        http_status_code=403,
    )
    with stubber, pytest.raises(SourceError, match="allow savingsplans:DescribeSavings"):
        sp.fetch(context(tmp_path, SOURCE), client=client)


def test_repeated_token_stops_the_loop(tmp_path):
    client, stubber = stubbed("savingsplans")
    first = fixture_json(SOURCE, "rates-page-1.json")
    stub_batches(stubber, [first, first])
    with stubber, pytest.raises(SourceError, match="returned a nextToken it had already returned"):
        sp.fetch(context(tmp_path, SOURCE), client=client)
    assert len(read_payloads(tmp_path / STAMP, SOURCE)) == 2


def test_no_credentials_skips_the_source(tmp_path, no_aws_config):
    with pytest.raises(SourceSkipped) as raised:
        sp.fetch(context(tmp_path / "archive", SOURCE))
    assert str(raised.value) == NO_CREDENTIALS
    assert not (tmp_path / "archive").exists()


def test_default_client_has_timeouts_and_adaptive_retries(no_aws_config, monkeypatch):
    from chipcost.extract.aws._calls import aws_client

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = aws_client("savingsplans", sp.SAVINGS_PLANS_REGION, SOURCE)
    assert client.meta.service_model.service_name == "savingsplans"
    # A global service: boto3 calls its single endpoint whatever region it is given.
    assert client.meta.endpoint_url == "https://savingsplans.amazonaws.com"
    assert (client.meta.config.connect_timeout, client.meta.config.read_timeout) == (10, 60)
    assert client.meta.config.retries == {"total_max_attempts": 9, "mode": "adaptive"}


def test_source_is_registered():
    from chipcost.extract import registry

    assert registry()[SOURCE] is sp.SOURCE
    assert (sp.SOURCE.provider, sp.SOURCE.fetch, sp.SOURCE.parse.__wrapped__) == (
        "aws",
        sp.fetch,
        sp.parse,
    )


@pytest.mark.parametrize("region", ["us-east-2\x00", "us-east-2\n", "us-east-2\u200b"])
def test_a_region_that_is_no_aws_name_is_a_reject(region):
    """'us-east-2\\x00' loaded as a region of its own beside us-east-2."""
    raw = fixture_json(SOURCE, "rates-page-2.json")["searchResults"][0]
    properties = [{**p, "value": region} if p["name"] == "region" else p for p in raw["properties"]]
    data = json.dumps({"searchResults": [{**raw, "properties": properties}]}).encode()
    result = sp.parse([recorded(SOURCE, "x.json", data=data)])
    assert result.records == []
    assert result.rejects[0].reason == (
        f"region {region!r} is not an AWS region name: not loaded as another one"
    )
