"""spheron: parse() on recorded gpu-offers pages, bad rows, a renamed field, and fetch().

tests/fixtures/spheron/ holds two pages of the feed (GPU types, each with its marketplace
offers), a page of bad rows, a page where "price" was renamed, and an error body.
"""

from __future__ import annotations

import json

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.core.settings import SourceSettings
from chipcost.extract.spheron import API_KEY, OFFERS_URL, SOURCE, fetch, parse
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES
from tests.sources import FETCHED_AT, STAMP, context, payloads_of

FIXTURES = FIXTURES / "spheron"
PAGES = ("gpu-offers-page-1.json", "gpu-offers-page-2.json")


payload = payloads_of("spheron", OFFERS_URL, request={"page": 1, "access": "public"})


def good() -> list[Payload]:
    return [payload(name) for name in PAGES]


def find(records, instance_type, region, model):
    found = [
        r
        for r in records
        if (r.instance_type, r.region, r.pricing_model) == (instance_type, region, model)
    ]
    assert len(found) == 1, f"{len(found)} records for {instance_type} {region} {model}"
    return found[0]


def test_h200_on_demand_and_spot_match_the_published_prices():
    records = parse(good()).records
    on_demand = find(records, "1x H200 SXM5", "us-central", "on_demand")
    spot = find(records, "1x H200 SXM5", "us-central", "spot")
    assert (on_demand.chip, on_demand.chip_count, on_demand.price_per_hour) == ("H200", 1.0, 4.54)
    assert (spot.chip, spot.price_per_hour) == ("H200", 3.31)
    assert on_demand.source_url == OFFERS_URL and on_demand.observed_at == FETCHED_AT
    assert on_demand.payload_ref == f"{STAMP}/spheron/gpu-offers-page-1.json"


def test_b200_with_no_on_demand_listings_loads_as_spot_only():
    result = parse(good())
    b200 = [r for r in result.records if r.chip == "B200"]
    assert {(r.instance_type, r.pricing_model, r.price_per_hour) for r in b200} == {
        ("1x B200 SXM6", "spot", 5.34),
        ("8x B200 SXM6", "spot", 42.72),
    }
    assert not [r for r in result.rejects if "B200" in r.reason]


def test_many_offers_become_the_cheapest_with_the_spread_kept():
    spot = find(parse(good()).records, "1x H200 SXM5", "us-central", "spot")
    assert spot.extra["offers"] == 2 and spot.extra["max_price_per_hour"] == 3.65
    assert spot.extra["median_price_per_hour"] == pytest.approx(3.48)
    assert spot.sku == "vp-h200-sxm5-1x-dfw::spot"
    assert spot.extra["upstream_provider"] == "voltage-park"


def test_multi_gpu_offers_keep_the_instance_price_and_count():
    eight = find(parse(good()).records, "8x H200 SXM5", "us-central", "on_demand")
    assert (eight.chip_count, eight.price_per_hour) == (8.0, 36.32)
    # The offer's vcpus 128, memory 200 x 8 and storage 8000, as listed.
    assert (eight.vcpus, eight.ram_gb, eight.disk_gb) == (128.0, 1600.0, 8000.0)


def test_a100_memory_picks_the_80gb_chip_and_unknown_gpus_are_reported():
    result = parse(good())
    assert find(result.records, "1x A100 SXM4", "eu-north", "on_demand").chip == "A100-80GB"
    assert find(result.records, "1x RTX 4090", "eu-north", "on_demand").chip == "RTX-4090"
    assert not [note for note in result.notes if "unknown" in note]


def test_every_good_record_passes_validation():
    records = parse(good()).records
    validated = validate_records(records, {"spheron": "spheron"})
    assert validated.rejects == [] and len(validated.records) == len(records) == 14


def test_the_path_used_is_said():
    assert "public gpu-offers feed" in " ".join(parse(good()).notes)
    keyed = parse([payload(name, access="api_key") for name in PAGES]).notes
    assert f"gpu-offers API with {API_KEY.env}" in " ".join(keyed)


@pytest.mark.parametrize(
    ("sku", "reason"),
    [
        ("bad-dollar", "price '$2.49/hr' is not a plain number"),
        ("bad-comma", "price '2,49' is not a plain number"),
        ("bad-contact", "no price listed (Contact sales)"),
        ("bad-dash", "no price listed (—)"),
        ("bad-zero-gpus", "GPU count 0 is below 1"),
        ("bad-half-gpu", "GPU count '1/2' is not a whole number of GPUs"),
    ],
)
def test_bad_rows_become_rejects_with_reasons(sku, reason):
    result = parse([payload("bad-rows.json")])
    [refused] = [r for r in result.rejects if r.sku == sku]
    assert reason in refused.reason and refused.payload_ref.endswith("bad-rows.json")
    assert json.loads(refused.row_json())["offerId"] == sku


def test_the_good_row_beside_bad_ones_still_loads():
    [record] = parse([payload("bad-rows.json")]).records
    assert (record.instance_type, record.chip, record.price_per_hour) == (
        "1x H100 PCIe",
        "H100-PCIe",
        1.89,
    )
    assert record.extra["offers"] == 1  # the refused offers are not counted in the spread


def test_a_renamed_price_field_fails_the_source_naming_provider_and_url():
    with pytest.raises(ParseError) as error:
        parse([payload("renamed-price-field.json")])
    message = str(error.value)
    assert message.startswith("spheron:") and OFFERS_URL in message and "price" in message


def test_an_error_body_fails_the_source():
    with pytest.raises(ParseError, match="no 'data' list"):
        parse([payload("error-body.json")])


def test_an_empty_data_list_is_not_reported_as_no_offers():
    empty = json.dumps({"data": [], "total": 0, "page": 1, "totalPages": 1}).encode()
    with pytest.raises(ParseError, match="gave no offer"):
        parse([payload("empty.json", data=empty)])


class Feed:
    """A fake gpu-offers endpoint: one fixture page per page number."""

    def __init__(self, *answers: httpx.Response) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.pop(0)


def page_response(name: str) -> httpx.Response:
    return httpx.Response(200, content=(FIXTURES / name).read_bytes())


def test_fetch_pages_through_the_feed_and_archives_each_page(tmp_path):
    feed = Feed(*(page_response(name) for name in PAGES))
    payloads = fetch(context(tmp_path, SOURCE.name, feed))
    assert [r.url.params["page"] for r in feed.requests] == ["1", "2"]
    assert "authorization" not in feed.requests[0].headers
    archived = read_payloads(tmp_path / STAMP, "spheron")
    assert [p.data for p in archived] == [p.data for p in payloads]
    manifest = read_manifest(tmp_path / STAMP / "spheron")
    assert manifest["payloads"][0]["request"] == {"page": 1, "limit": 50, "access": "public"}
    assert len(parse(archived).records) == 14


def test_fetch_with_a_key_sends_it_but_never_archives_it(tmp_path):
    feed = Feed(page_response(PAGES[0]), page_response(PAGES[1]))
    fetch(
        context(
            tmp_path, SOURCE.name, feed, settings=SourceSettings(spheron_api_key="sk-test-secret")
        )
    )
    assert feed.requests[0].headers["authorization"] == "Bearer sk-test-secret"
    stored = (tmp_path / STAMP / "spheron" / "manifest.json").read_text()
    assert "sk-test-secret" not in stored and '"access": "api_key"' in stored


def test_a_429_storm_fails_the_source_with_advice(tmp_path):
    storm = [httpx.Response(429, headers={"Retry-After": "30"}) for _ in range(10)]
    waits: list[float] = []
    with pytest.raises(SourceError) as error:
        fetch(context(tmp_path, SOURCE.name, Feed(*storm), waits))
    message = str(error.value)
    assert message.startswith("spheron:") and OFFERS_URL in message and "run again" in message
    assert waits and all(w == 30.0 for w in waits)


def test_a_rejected_key_says_which_variable_to_check(tmp_path):
    feed = Feed(httpx.Response(401, json={"message": "Unauthorized"}))
    with pytest.raises(SourceError, match=API_KEY.env):
        fetch(
            context(
                tmp_path,
                SOURCE.name,
                feed,
                settings=SourceSettings(spheron_api_key="sk-expired-key"),
            )
        )
