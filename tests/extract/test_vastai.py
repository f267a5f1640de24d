"""vastai: the marketplace summary (median per GPU) on recorded offer searches, and fetch().

Fixtures in tests/fixtures/vastai/ have the bundles search response shape (written with
chipcost.sample.build.vastai): bundles.json is good; bad-* are the failure cases.
"""

from __future__ import annotations

import json
import statistics

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.core.errors import ParseError
from chipcost.extract.vastai import BUNDLES_URL, SEARCH, fetch, parse
from tests.recorded import STAMP, assert_loadable, fake_context, recorded


def payload(name: str):
    return recorded("vastai", name, BUNDLES_URL)


def summary(records, instance_type, model="on_demand"):
    [found] = [r for r in records if (r.instance_type, r.pricing_model) == (instance_type, model)]
    return found


@pytest.fixture(scope="module")
def good():
    return parse([payload("bundles.json")])


@pytest.fixture(scope="module")
def offers():
    return json.loads(payload("bundles.json").data)["offers"]


def test_the_price_is_the_median_per_gpu_so_one_odd_host_does_not_set_it(good, offers):
    h100 = [o for o in offers if o["gpu_name"] == "H100 SXM"]
    per_gpu = [o["dph_base"] / o["num_gpus"] for o in h100]
    assert max(per_gpu) == pytest.approx(24.0)  # the odd host
    record = summary(good.records, "1x H100 SXM 80GB")
    assert record.price_per_hour == pytest.approx(statistics.median(per_gpu), abs=1e-4)
    assert record.price_per_hour == pytest.approx(1.915)
    assert record.extra["offers"] == len(h100) == 8
    assert record.extra["min"] == pytest.approx(1.73)
    assert record.extra["max"] == pytest.approx(24.0)
    assert (record.chip, record.chip_count, record.region) == ("H100-SXM", 1.0, "global")


def test_interruptible_prices_are_the_min_bid_per_gpu(good, offers):
    h200 = [o for o in offers if o["gpu_name"] == "H200"]
    spot = summary(good.records, "1x H200 141GB", "spot")
    expected = statistics.median(o["min_bid"] / o["num_gpus"] for o in h200)
    assert spot.price_per_hour == pytest.approx(expected, abs=1e-4)
    assert (spot.plan, spot.extra["price_field"]) == ("interruptible", "min_bid")


def test_one_on_demand_and_one_spot_record_per_gpu_model(good):
    assert len(good.records) == 14
    assert sorted({r.instance_type for r in good.records}) == [
        "1x A100 SXM4 80GB",
        "1x B200 180GB",
        "1x H100 PCIE 80GB",
        "1x H100 SXM 80GB",
        "1x H200 141GB",
        "1x L40S 45GB",
        "1x RTX 4090 24GB",
    ]
    assert not good.rejects
    assert_loadable(good)


@pytest.mark.parametrize(
    ("instance_type", "chip"),
    [
        ("1x H100 SXM 80GB", "H100-SXM"),
        ("1x H100 PCIE 80GB", "H100-PCIe"),
        ("1x H200 141GB", "H200"),
        ("1x B200 180GB", "B200"),
        ("1x A100 SXM4 80GB", "A100-80GB"),
        ("1x L40S 45GB", "L40S"),
        ("1x RTX 4090 24GB", "RTX-4090"),
    ],
)
def test_every_fixture_spelling_maps_to_its_chip(good, instance_type, chip):
    assert summary(good.records, instance_type).chip == chip


def test_bad_offers_become_rejects_with_reasons_and_the_rest_loads():
    result = parse([payload("bad-offers.json")])
    reasons = [r.reason for r in result.rejects]
    assert "GPU count 0 is below 1" in reasons
    assert "GPU count '1/2' is not a whole number of GPUs" in reasons
    assert "gpu_ram None is not a memory size in MB" in reasons
    assert "offer has no gpu_name" in reasons
    assert "min_bid is None: not a price (offer 18500013, 1x H100 SXM)" in reasons
    on_demand = summary(result.records, "1x H100 SXM 80GB")
    assert on_demand.extra["offers"] == 4  # three good offers and the one without a bid
    assert summary(result.records, "1x H100 SXM 80GB", "spot").extra["offers"] == 3
    assert_loadable(result)


def test_a_renamed_price_field_is_a_layout_change():
    with pytest.raises(ParseError, match="lacks dph_base"):
        parse([payload("bad-renamed-field.json")])


def test_an_html_error_page_is_not_json():
    with pytest.raises(ParseError, match=f"vastai: the response from {BUNDLES_URL}.*not JSON"):
        parse([payload("bad-error-page.html")])


def test_fetch_posts_the_search_and_archives_it(tmp_path):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(503)
        return httpx.Response(200, content=payload("bundles.json").data)

    waits: list[float] = []
    [fetched] = fetch(fake_context(tmp_path, "vastai", handler, waits))
    assert waits == [1.0]
    assert seen[-1].method == "POST" and json.loads(seen[-1].content) == SEARCH
    assert SEARCH["verified"] == {"eq": True} and SEARCH["rentable"] == {"eq": True}
    entry = read_manifest(tmp_path / STAMP / "vastai")["payloads"][0]
    assert entry["request"] == {"method": "POST", "json": SEARCH}
    assert len(parse([fetched]).records) == 14
