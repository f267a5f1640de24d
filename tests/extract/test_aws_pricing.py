"""aws-pricing-api: parse() on recorded GetProducts pages, fetch() against a stubbed client.

Fixtures in tests/fixtures/aws-pricing-api/ are written by `python -m tests.aws_pricing_fixtures`
(the same item builder as the sample archive): gpu-instance-page-*, ml-asic-page-1 and
future-types are good pages; bad-* and empty-page are the failure cases.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import boto3
import botocore.config
import pytest
from botocore.exceptions import ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError
from botocore.stub import Stubber

from chipcost.archive import read_manifest, read_payloads, run_directories
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.extract import registry, source_providers
from chipcost.extract.aws import pricing as aws_pricing
from chipcost.extract.aws._price_list import Origin, product_offers
from chipcost.extract.aws.pricing import (
    INSTANCE_FAMILIES,
    NO_CREDENTIALS,
    PRICING_URL,
    SOURCE,
    fetch,
    get_products_request,
    parse,
    pricing_client,
    query_filters,
)
from chipcost.transform.validate import validate_records
from tests import aws_pricing_fixtures
from tests.aws_price_list import offer_item
from tests.paths import ROOT
from tests.sources import STAMP, context, payloads_of

FIXTURES = ROOT / "tests" / "fixtures" / "aws-pricing-api"
SAMPLE = ROOT / "sample" / "archive"
FETCHED_AT = datetime(2026, 11, 14, 6, 0, 3, tzinfo=UTC)
GOOD = ("gpu-instance-page-1.json", "gpu-instance-page-2.json", "ml-asic-page-1.json")
GPU, ASIC = INSTANCE_FAMILIES


payload = payloads_of("aws-pricing-api", PRICING_URL, fetched_at=FETCHED_AT, stamp="fixtures")


def page(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def first_item(name: str = "gpu-instance-page-1.json") -> dict:
    return json.loads(page(name)["PriceList"][0])


def page_of(*items: dict) -> bytes:
    return json.dumps(
        {"FormatVersion": "aws_v1", "PriceList": [json.dumps(i) for i in items]}
    ).encode()


def find(
    records, instance_type, region, model="on_demand", term="none", payment="none", plan="default"
):
    found = [
        r
        for r in records
        if (r.instance_type, r.region, r.pricing_model, r.term, r.payment, r.plan)
        == (instance_type, region, model, term, payment, plan)
    ]
    assert len(found) == 1, f"{len(found)} records for {instance_type} {region} {model} {term}"
    return found[0]


@pytest.fixture(scope="module")
def good():
    return parse([payload(name) for name in GOOD])


# ---------------------------------------------------------------- parse: good pages


def test_good_pages_give_on_demand_and_12_reserved_terms_per_product(good):
    assert good.rejects == []
    assert good.notes == []
    products = {(r.instance_type, r.region) for r in good.records}
    assert products == {
        ("p5.48xlarge", "us-east-1"),
        ("p5.48xlarge", "us-west-2"),
        ("g6e.xlarge", "us-east-1"),
        ("trn1.32xlarge", "us-east-1"),
        ("inf2.48xlarge", "us-east-1"),
    }
    assert len(good.records) == 5 * 13
    keys = [r.offer_key() for r in good.records]
    assert len(set(keys)) == len(keys), "one record per term, never twice"
    for instance_type, region in products:
        terms = {
            (r.term, r.payment, r.plan)
            for r in good.records
            if (r.instance_type, r.region) == (instance_type, region)
            and r.pricing_model == "reserved"
        }
        assert terms == {
            (term, payment, plan)
            for term in ("1yr", "3yr")
            for payment in ("no_upfront", "partial_upfront", "all_upfront")
            for plan in ("standard", "convertible")
        }
    assert all(r.price_per_hour > 0 and r.chip_count >= 1 for r in good.records)


def test_on_demand_record_carries_price_identity_and_provenance(good):
    record = find(good.records, "p5.48xlarge", "us-east-1")
    item = first_item()
    assert record.price_per_hour == 55.04
    assert (record.provider, record.source, record.currency) == ("aws", "aws-pricing-api", "USD")
    assert (record.chip, record.chip_count) == ("H100-SXM", 8.0)
    assert (record.zone, record.upfront) == ("", None)
    assert record.sku == item["product"]["sku"]
    assert record.observed_at == FETCHED_AT
    assert record.source_url == PRICING_URL
    assert record.payload_ref == "fixtures/aws-pricing-api/gpu-instance-page-1.json"
    assert record.extra == {
        "location": "US East (N. Virginia)",
        "gpuMemory": "640 GB",
        "effectiveDate": "2025-06-01T00:00:00Z",
        "offerTermCode": "JRTCKXETXF",
        "version": "20251201190623",
    }
    # The host, from the item's vcpu "192", memory "2048 GiB" and storage "8 x 3840 SSD".
    assert (record.vcpus, record.ram_gb, record.disk_gb) == (192.0, 2048.0, 8 * 3840.0)


@pytest.mark.parametrize(
    ("instance_type", "host"),
    [
        # storage "4 x 1900 NVMe SSD": four disks of 1,900 GB.
        ("trn1.32xlarge", (128.0, 512.0, 7600.0)),
        # storage "EBS only": the instance has no local disk.
        ("inf2.48xlarge", (192.0, 768.0, 0.0)),
    ],
)
def test_every_term_carries_the_host_the_product_lists(good, instance_type, host):
    records = [r for r in good.records if r.instance_type == instance_type]
    assert len(records) == 13  # on demand and 12 reserved terms
    assert {(r.vcpus, r.ram_gb, r.disk_gb) for r in records} == {host}


@pytest.mark.parametrize(
    ("attributes", "host"),
    [
        ({"vcpu": "NA", "memory": "NA", "storage": "NA"}, (None, None, None)),
        ({}, (None, None, None)),
        ({"vcpu": "8", "memory": "32 GiB", "storage": "1 x 250 NVMe SSD"}, (8.0, 32.0, 250.0)),
    ],
)
def test_a_host_spec_the_product_does_not_give_is_left_empty(attributes, host):
    from chipcost.extract.aws._price_list import host_specs

    found = host_specs(attributes)
    assert (found["vcpus"], found["ram_gb"], found["disk_gb"]) == host


# Hourly rate and upfront fee as listed in the fixtures; expected = hourly + upfront / hours,
# worked out by hand (8760 hours a year, 26280 in three).
@pytest.mark.parametrize(
    ("instance_type", "term", "payment", "plan", "upfront", "expected"),
    [
        ("p5.48xlarge", "1yr", "no_upfront", "standard", None, 35.776),
        # 17.0624 + 149467 / 8760 = 17.0624 + 17.0624429224
        ("p5.48xlarge", "1yr", "partial_upfront", "standard", 149467.0, 34.1248429224),
        # 0 + 291701 / 8760
        ("p5.48xlarge", "1yr", "all_upfront", "standard", 291701.0, 33.2992009132),
        # 0 + 564116 / 26280
        ("p5.48xlarge", "3yr", "all_upfront", "standard", 564116.0, 21.4656012177),
        # 5.2675 + 138430 / 26280 = 5.2675 + 5.2675038052
        ("trn1.32xlarge", "3yr", "partial_upfront", "convertible", 138430.0, 10.5350038052),
        # 4.4781 + 39228 / 8760 = 4.4781 + 4.4780821918
        ("inf2.48xlarge", "1yr", "partial_upfront", "convertible", 39228.0, 8.9561821918),
    ],
)
def test_reserved_price_is_hourly_plus_amortised_upfront(
    good, instance_type, term, payment, plan, upfront, expected
):
    record = find(good.records, instance_type, "us-east-1", "reserved", term, payment, plan)
    assert record.price_per_hour == pytest.approx(expected, abs=1e-9)
    assert record.upfront == upfront


def test_reserved_rates_are_discounts_on_on_demand(good):
    on_demand = find(good.records, "p5.48xlarge", "us-east-1").price_per_hour
    no_upfront = find(
        good.records, "p5.48xlarge", "us-east-1", "reserved", "1yr", "no_upfront", "standard"
    )
    all_upfront = find(
        good.records, "p5.48xlarge", "us-east-1", "reserved", "3yr", "all_upfront", "standard"
    )
    assert 0.30 <= 1 - no_upfront.price_per_hour / on_demand <= 0.40
    assert 0.55 <= 1 - all_upfront.price_per_hour / on_demand <= 0.65


@pytest.mark.parametrize(
    ("instance_type", "chip", "chip_count", "on_demand"),
    [
        ("p5.48xlarge", "H100-SXM", 8, 55.04),
        ("g6e.xlarge", "L40S", 1, 1.861),
        ("trn1.32xlarge", "Trainium1", 16, 21.5),
        ("inf2.48xlarge", "Inferentia2", 12, 12.98),
    ],
)
def test_chips_come_from_the_catalog(good, instance_type, chip, chip_count, on_demand):
    record = find(good.records, instance_type, "us-east-1")
    assert (record.chip, record.chip_count, record.price_per_hour) == (chip, chip_count, on_demand)


def test_unknown_types_load_as_unknown_chip_with_a_note():
    result = parse([payload("future-types.json")])
    assert result.rejects == []
    unknown = find(result.records, "g9x.48xlarge", "us-east-1")
    assert (unknown.chip, unknown.chip_count) == ("unknown", 8.0)
    unlisted = find(result.records, "trn2.24xlarge", "us-east-2")
    assert (unlisted.chip, unlisted.chip_count) == ("Trainium2", 8.0)
    assert len(result.records) == 26
    assert result.notes == [
        "unknown accelerator type g9x.48xlarge (instanceFamily GPU instance, gpu=8): loaded as "
        "chip 'unknown'; add it to core/data/aws_families.csv",
        "trn2.24xlarge is not in core/data/aws_instance_types.csv: chip_count 8 taken from "
        "the Price List gpu attribute; add a row there",
    ]


def test_notes_are_not_repeated_per_region():
    item = first_item("future-types.json")
    other = json.loads(json.dumps(item))
    other["product"]["attributes"]["regionCode"] = "us-west-2"
    result = parse([payload("x.json", data=page_of(item, other))])
    assert len(result.records) == 26
    assert len(result.notes) == 1


def test_unknown_top_level_keys_are_ignored(good):
    body = page("gpu-instance-page-2.json")
    body["chipcostSample"] = "synthetic sample data, not AWS prices"
    labelled = parse([payload("gpu-instance-page-2.json", data=json.dumps(body).encode())])
    plain = parse([payload("gpu-instance-page-2.json")])
    assert labelled == plain
    assert len(plain.records) == 13


def test_an_empty_answer_is_refused_naming_the_families_to_check():
    with pytest.raises(ParseError, match="held no products: an empty answer is refused") as no:
        parse([payload("empty-page.json")])
    assert "empty-page.json" in str(no.value) and "GPU instance" in str(no.value)


def test_no_payloads_no_records():
    assert parse([]).records == []


# ---------------------------------------------------------------- parse: bad input


@pytest.mark.parametrize(
    ("name", "records", "reasons"),
    [
        (
            "bad-item-not-json.json",
            13,
            ["PriceList item is not valid JSON (Unterminated string"],
        ),
        (
            "bad-item-missing-attribute.json",
            0,
            [
                "missing attribute regionCode (location 'US West (Los Angeles)' is not in "
                "core/data/aws_locations.csv): cannot tell what or where it is",
                "chip count unknown: g9x.48xlarge is not in core/data/aws_instance_types.csv "
                "and the Price List gives no gpu count (gpu=missing); add a row there",
            ],
        ),
        (
            "bad-capacity-block-zero.json",
            0,
            [
                "marketoption is 'CapacityBlock', not 'OnDemand': capacity-block rows are listed "
                "at $0 in the Price List and are not prices",
            ],
        ),
        ("bad-cny-only.json", 0, ["non-USD currency CNY: not converted"] * 13),
        (
            "bad-upfront-unknown-unit.json",
            12,
            ["unknown price unit 'Fee' in Reserved term 38NPMPTW36 (expected Hrs or Quantity)"],
        ),
    ],
)
def test_bad_rows_become_rejects_with_reasons(name, records, reasons):
    result = parse([payload(name)])
    assert len(result.records) == records
    assert len(result.rejects) == len(reasons)
    for reject, reason in zip(result.rejects, reasons, strict=True):
        assert reject.reason.startswith(reason)
        assert reject.source == "aws-pricing-api"
        assert reject.payload_ref == f"fixtures/aws-pricing-api/{name}"
        assert reject.row


def test_item_level_reject_keeps_the_raw_item_and_term_level_the_term():
    missing = parse([payload("bad-item-missing-attribute.json")]).rejects[0]
    assert missing.row == page("bad-item-missing-attribute.json")["PriceList"][0]
    assert missing.sku == json.loads(missing.row)["product"]["sku"]
    odd = parse([payload("bad-upfront-unknown-unit.json")]).rejects[0]
    assert odd.row["termType"] == "Reserved"
    assert odd.row["term"]["termAttributes"]["PurchaseOption"] == "Partial Upfront"
    assert odd.row["instanceType"] == "p5.48xlarge"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("bad-page-truncated.json", "is not JSON"),
        ("bad-page-no-price-list.json", "has no PriceList list (found __type, message)"),
    ],
)
def test_unreadable_pages_raise_parse_error_naming_the_payload(name, problem):
    with pytest.raises(ParseError) as raised:
        parse([payload(name)])
    message = str(raised.value)
    assert f"fixtures/aws-pricing-api/{name}" in message
    assert problem in message
    assert message.endswith("re-fetch, or report a format change")


def _reserved_term(item: dict, option: str = "Partial Upfront", lease: str = "1yr") -> dict:
    for term in item["terms"]["Reserved"].values():
        attributes = term["termAttributes"]
        if (attributes["PurchaseOption"], attributes["LeaseContractLength"]) == (option, lease):
            return term
    raise AssertionError(option)


@pytest.mark.parametrize(
    ("attribute", "value", "reason"),
    [
        ("LeaseContractLength", "5yr", "unknown LeaseContractLength '5yr' (expected 1yr or 3yr)"),
        ("PurchaseOption", "Heavy Utilization", "unknown PurchaseOption 'Heavy Utilization'"),
        ("OfferingClass", "scheduled", "unknown OfferingClass 'scheduled'"),
    ],
)
def test_unknown_reserved_term_attributes_are_rejected(attribute, value, reason):
    item = first_item()
    _reserved_term(item)["termAttributes"][attribute] = value
    result = parse([payload("x.json", data=page_of(item))])
    assert len(result.records) == 12
    assert [r.reason for r in result.rejects][0].startswith(reason)


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("operatingSystem", "Windows"),
        ("tenancy", "Dedicated"),
        ("capacitystatus", "UnusedCapacityReservation"),
        ("preInstalledSw", "SQL Std"),
        ("licenseModel", "Bring your own license"),
    ],
)
def test_rows_outside_the_query_filters_are_rejected(attribute, value):
    item = first_item()
    item["product"]["attributes"][attribute] = value
    result = parse([payload("x.json", data=page_of(item))])
    assert result.records == []
    expected = f"{attribute} is {value!r}, not {aws_pricing.TERM_MATCH[attribute]!r}"
    assert result.rejects[0].reason == f"{expected}: not a price this source collects"


def test_zero_on_demand_price_is_rejected_and_the_rest_loads():
    item = first_item()
    for dimension in next(iter(item["terms"]["OnDemand"].values()))["priceDimensions"].values():
        dimension["pricePerUnit"] = {"USD": "0.0000000000"}
    result = parse([payload("x.json", data=page_of(item))])
    assert len(result.records) == 12
    assert [r.reason for r in result.rejects] == ["price is zero"]


def test_zero_capacity_block_price_explains_itself_without_filters():
    item = json.loads(page("bad-capacity-block-zero.json")["PriceList"][0])
    origin = Origin("aws-bulk", "aws", "file", "ref", FETCHED_AT)
    result = product_offers(item["product"], item["terms"], origin, expected={}, raw=item)
    assert result.records == []
    assert result.rejects[0].reason.startswith(
        "price is zero: capacity-block rows are listed at $0 in the Price List and are not prices"
    )


def test_upfront_term_without_its_fee_is_rejected():
    item = first_item()
    term = _reserved_term(item, "All Upfront", "3yr")
    term["priceDimensions"] = {
        k: v for k, v in term["priceDimensions"].items() if v["unit"] != "Quantity"
    }
    result = parse([payload("x.json", data=page_of(item))])
    assert len(result.records) == 12
    assert result.rejects[0].reason == (
        "All Upfront term has no Upfront Fee (Quantity) price dimension"
    )


def test_an_unknown_term_type_is_rejected_and_the_known_ones_load():
    item = first_item()
    item["terms"]["Flexible"] = {"X.Y": {"offerTermCode": "Y", "priceDimensions": {}}}
    result = parse([payload("x.json", data=page_of(item))])
    assert len(result.records) == 13
    assert [r.reason for r in result.rejects] == [
        "unknown term type 'Flexible' (expected OnDemand or Reserved)"
    ]


# ---------------------------------------------------------------- fetch


def stubbed_client(max_attempts: int = 1):
    client = boto3.client(
        "pricing",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=botocore.config.Config(retries={"max_attempts": max_attempts, "mode": "standard"}),
    )
    return client, Stubber(client)


def test_query_filters_are_the_documented_term_match():
    assert query_filters("GPU instance") == [
        {"Type": "TERM_MATCH", "Field": "instanceFamily", "Value": "GPU instance"},
        {"Type": "TERM_MATCH", "Field": "operatingSystem", "Value": "Linux"},
        {"Type": "TERM_MATCH", "Field": "tenancy", "Value": "Shared"},
        {"Type": "TERM_MATCH", "Field": "preInstalledSw", "Value": "NA"},
        {"Type": "TERM_MATCH", "Field": "capacitystatus", "Value": "Used"},
        {"Type": "TERM_MATCH", "Field": "marketoption", "Value": "OnDemand"},
        {"Type": "TERM_MATCH", "Field": "licenseModel", "Value": "No License required"},
    ]
    assert INSTANCE_FAMILIES == ("GPU instance", "Machine Learning ASIC Instances")


def test_fetch_paginates_both_queries_and_archives_every_page(tmp_path):
    client, stubber = stubbed_client()
    first = page("gpu-instance-page-1.json")
    token = first["NextToken"]
    stubber.add_response("get_products", first, get_products_request(GPU))
    stubber.add_response(
        "get_products", page("gpu-instance-page-2.json"), get_products_request(GPU, token)
    )
    stubber.add_response("get_products", page("ml-asic-page-1.json"), get_products_request(ASIC))
    messages: list[str] = []
    with stubber:
        fetched = fetch(context(tmp_path, "aws-pricing-api", messages=messages), client=client)
    stubber.assert_no_pending_responses()

    assert len(fetched) == 3
    assert messages == [
        "aws-pricing-api: GetProducts instanceFamily 'GPU instance' page 1",
        "aws-pricing-api: GetProducts instanceFamily 'GPU instance' page 2",
        "aws-pricing-api: GetProducts instanceFamily 'Machine Learning ASIC Instances' page 1",
    ]
    [run] = run_directories(tmp_path)
    read_back = read_payloads(run, "aws-pricing-api")
    assert [p.data for p in read_back] == [p.data for p in fetched]
    assert all("ResponseMetadata" not in json.loads(p.data) for p in read_back)
    manifest = read_manifest(run / "aws-pricing-api")
    requests = [entry["request"] for entry in manifest["payloads"]]
    assert [r["NextToken"] for r in requests] == [None, token, None]
    assert [r["Filters"][0]["Value"] for r in requests] == [GPU, GPU, ASIC]
    assert {entry["url"] for entry in manifest["payloads"]} == {PRICING_URL}

    from_archive = parse(read_back)
    assert from_archive == parse(fetched)
    original = parse([payload(name) for name in GOOD])
    assert [(r.offer_key(), r.price_per_hour) for r in from_archive.records] == [
        (r.offer_key(), r.price_per_hour) for r in original.records
    ]


@pytest.mark.parametrize(
    ("code", "message", "advice"),
    [
        (
            "ThrottlingException",
            "Rate exceeded",
            "AWS throttled the request after the client's retries; run again later",
        ),
        ("AccessDeniedException", "not authorized", "allow pricing:GetProducts"),
        (
            "ExpiredTokenException",
            "The security token included in the request is expired",
            "refresh the AWS credentials",
        ),
        (
            "InternalErrorException",
            "internal error",
            "run again later; pages fetched so far are archived",
        ),
    ],
)
def test_client_errors_become_source_errors_and_keep_earlier_pages(tmp_path, code, message, advice):
    client, stubber = stubbed_client()
    first = page("gpu-instance-page-1.json")
    stubber.add_response("get_products", first, get_products_request(GPU))
    stubber.add_client_error(
        "get_products",
        service_error_code=code,
        service_message=message,
        http_status_code=400,
        expected_params=get_products_request(GPU, first["NextToken"]),
    )
    with stubber, pytest.raises(SourceError) as raised:
        fetch(context(tmp_path, "aws-pricing-api"), client=client)
    said = str(raised.value)
    assert said.startswith(
        "aws-pricing-api: GetProducts (instanceFamily 'GPU instance' page 2) failed with "
        f"{code} ({message}): "
    )
    assert advice in said
    assert len(read_payloads(tmp_path / STAMP, "aws-pricing-api")) == 1


class _Unreachable:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def get_products(self, **kwargs):
        raise self.error


@pytest.mark.parametrize(
    "error",
    [
        EndpointConnectionError(endpoint_url="https://api.pricing.us-east-1.amazonaws.com/"),
        ConnectTimeoutError(endpoint_url="https://api.pricing.us-east-1.amazonaws.com/"),
        ReadTimeoutError(endpoint_url="https://api.pricing.us-east-1.amazonaws.com/"),
    ],
)
def test_network_errors_become_source_errors(tmp_path, error):
    with pytest.raises(SourceError) as raised:
        fetch(context(tmp_path, "aws-pricing-api"), client=_Unreachable(error))
    message = str(raised.value)
    assert message.startswith(
        "aws-pricing-api: GetProducts (instanceFamily 'GPU instance' page 1) could not reach "
        "the AWS Price List API"
    )
    assert message.endswith("check the network or proxy, then run again")


def test_repeated_next_token_stops_the_loop(tmp_path):
    client, stubber = stubbed_client()
    first = page("gpu-instance-page-1.json")
    token = first["NextToken"]
    stubber.add_response("get_products", first, get_products_request(GPU))
    stubber.add_response("get_products", first, get_products_request(GPU, token))
    with stubber, pytest.raises(SourceError, match="returned a NextToken it had already returned"):
        fetch(context(tmp_path, "aws-pricing-api"), client=client)
    assert len(read_payloads(tmp_path / STAMP, "aws-pricing-api")) == 2


def test_page_cap_stops_a_runaway_query(tmp_path, monkeypatch):
    monkeypatch.setattr(aws_pricing, "MAX_PAGES", 2)
    client, stubber = stubbed_client()
    first = page("gpu-instance-page-1.json")
    second = {**page("gpu-instance-page-2.json"), "NextToken": "another-token"}
    stubber.add_response("get_products", first, get_products_request(GPU))
    stubber.add_response("get_products", second, get_products_request(GPU, first["NextToken"]))
    with stubber, pytest.raises(SourceError, match="still had a NextToken after 2 pages"):
        fetch(context(tmp_path, "aws-pricing-api"), client=client)


@pytest.fixture
def no_aws_config(tmp_path, monkeypatch):
    import os

    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        empty = tmp_path / name.lower()
        empty.write_text("")
        monkeypatch.setenv(name, str(empty))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def test_no_credentials_skips_the_source(tmp_path, no_aws_config):
    archive = tmp_path / "archive"
    with pytest.raises(SourceSkipped) as raised:
        fetch(context(archive, "aws-pricing-api"))
    assert str(raised.value) == (
        "no AWS credentials: public price files are used instead (aws-bulk, aws-spot-feed); "
        "set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY to use the APIs "
        "(or run `chipcost collect --replay DIR`)"
    )
    assert str(raised.value) == NO_CREDENTIALS
    assert not archive.exists()


def test_default_client_has_timeouts_and_adaptive_retries(no_aws_config, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = pricing_client()
    assert client.meta.service_model.service_name == "pricing"
    assert client.meta.region_name == "us-east-1"
    assert (client.meta.config.connect_timeout, client.meta.config.read_timeout) == (10, 60)
    # botocore counts the first call too: max_attempts 8 retries = 9 attempts in all
    assert client.meta.config.retries == {"total_max_attempts": 9, "mode": "adaptive"}


def test_source_is_registered_under_its_name():

    assert registry()["aws-pricing-api"] is SOURCE
    assert (SOURCE.provider, SOURCE.fetch, SOURCE.parse.__wrapped__) == ("aws", fetch, parse)


# ---------------------------------------------------------------- generated data


def test_fixtures_are_what_the_builder_writes():
    built = aws_pricing_fixtures.fixture_pages()
    on_disk = {p.name: p.read_bytes() for p in FIXTURES.iterdir() if p.name in built}
    assert built == on_disk, "run: python -m tests.aws_pricing_fixtures"


def test_sample_archive_parses_with_its_scripted_changes():
    runs = run_directories(SAMPLE)
    assert [r.name for r in runs][:1] + [r.name for r in runs][-1:] == [
        "2026-11-14T060000Z",
        "2026-11-21T060000Z",
    ]
    prices = []
    for run in runs:
        payloads = read_payloads(run, "aws-pricing-api")
        assert read_manifest(run / "aws-pricing-api")["sample"] is True
        assert all(json.loads(p.data)["chipcostSample"] for p in payloads)
        result = parse(payloads)
        assert len(result.records) > 1000
        # g5.xlarge in eu-north-1 listed at $0 on the 15th: its on-demand and 12 reserved terms
        assert len(result.rejects) == (13 if run.name.startswith("2026-11-15") else 0)
        prices.append({r.offer_key(): r.price_per_hour for r in result.records})
    # p5 costs the same in us-west-2 as in us-east-1 (AWS's price); the move is p4d's.
    p5_west = ("aws", "us-west-2", "", "p5.48xlarge", "on_demand", "none", "none", "default")
    assert [day[p5_west] for day in prices] == [55.04] * 8
    # p4d: the week's fixture's 21.96 times the source's factor (1.006), 8% off from day 4
    p4d_west = ("aws", "us-west-2", "", "p4d.24xlarge", "on_demand", "none", "none", "default")
    assert [day[p4d_west] for day in prices] == [22.09176] * 3 + [20.3244192] * 5
    p4d_ireland = ("aws", "eu-west-1", "", "p4d.24xlarge", "on_demand", "none", "none", "default")
    assert [p4d_ireland in day for day in prices] == [True] * 6 + [False] * 2
    g6e_tokyo = ("aws", "ap-northeast-1", "", "g6e.xlarge", "on_demand", "none", "none", "default")
    assert [g6e_tokyo in day for day in prices] == [False] * 4 + [True] * 4


def test_a_fractional_gpu_type_is_priced_per_whole_chip_and_labelled_as_a_share():
    item = offer_item("g6f.large", "us-east-1", 0.2, reserved=False)
    result = parse([payload("g6f.json", data=page_of(item))])
    [record] = result.records
    assert (record.chip, record.chip_count, record.price_per_hour) == ("L4", 0.125, 0.2)
    assert record.extra["share"] == "1/8 of one L4"
    assert not result.notes  # a catalog type: nothing to add
    assert record.price_per_hour / record.chip_count == pytest.approx(1.6)  # per whole L4
    assert validate_records(result.records, source_providers()).rejects == []


@pytest.mark.parametrize(
    ("region", "location"),
    [("us-east-1", "US East (N. Virginia)"), ("eu-west-1", "EU (Ireland)")],
)
def test_an_item_with_location_but_no_region_code_is_mapped_through_the_table(region, location):
    item = offer_item("p5.48xlarge", region, reserved=False)
    attributes = item["product"]["attributes"]
    del attributes["regionCode"]
    attributes["location"] = location
    [record] = parse([payload("old-shape.json", data=page_of(item))]).records
    assert record.region == region
    assert record.extra["regionCodeFrom"] == f"location {location!r}"


def test_botocores_documented_get_products_example_reads_its_location():
    # The EBS item of the documented example has `location` "Canada (Central)" and no
    # regionCode: only its missing instanceType is left to refuse it.
    result = parse([payload("documented-getproducts-botocore.json")])
    [refused] = result.rejects
    assert refused.reason == "missing attribute instanceType: cannot tell what or where it is"
