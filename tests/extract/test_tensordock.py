"""tensordock: parse() on TensorDock's documented v2 locations example and on locations in its
shape, the median per GPU model and country, bad rows, and fetch() with and without a key."""

from __future__ import annotations

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import SourceError
from chipcost.core.settings import SourceSettings
from chipcost.extract.tensordock import API_KEY, LOCATIONS_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, assert_loadable, context, payloads_of

FIXTURES = FIXTURES / "tensordock"
payload = payloads_of("tensordock", LOCATIONS_URL)


def offers(name: str = "locations.json") -> dict[tuple[str, str], object]:
    return {(r.instance_type, r.region): r for r in parse([payload(name)]).records}


def test_tensordocks_documented_example_gives_its_two_prices():
    result = parse([payload("documented-locations.json")])
    found = {r.instance_type: r for r in result.records}
    h100 = found["1x h100-sxm5-80gb"]
    assert (h100.chip, h100.price_per_hour, h100.region) == ("H100-SXM", 2.2, "united-states")
    assert h100.extra["resource_rates"] == {"vcpu": 0.003, "ram_gb": 0.002, "storage_gb": 5e-05}
    rtx = found["1x geforcertx4090-pcie-24gb"]  # its pricing is cut in the copy read
    assert (rtx.chip, rtx.price_per_hour, rtx.extra["resource_rates"]) == ("RTX-4090", 0.5, {})
    assert_loadable(result)


def test_each_gpu_model_and_country_is_the_median_per_gpu_rate_of_its_locations():
    found = offers()
    l40 = found[("1x l40-pcie-48gb", "united-states")]
    assert (l40.chip, l40.chip_count, l40.price_per_hour) == ("L40", 1.0, 1.1)
    assert (l40.extra["min"], l40.extra["max"], l40.extra["locations"]) == (1.05, 1.15, 2)
    assert l40.extra["gpus_deployable"] == 12
    assert l40.extra["cheapest_location"] == "a1f0e3c2-0000-4000-8000-000000000002"
    rtx = found[("1x geforcertx3080-pcie-10gb", "canada")]
    assert (rtx.chip, rtx.price_per_hour, rtx.pricing_model) == ("RTX-3080", 0.15, "on_demand")
    assert "billed beside it" in rtx.extra["price_basis"]
    assert len(found) == 2


def test_models_none_deployable_and_locations_without_gpus_are_counted_not_loaded():
    notes = " | ".join(parse([payload("locations.json")]).notes)
    assert "no GPU of this model deployable at the location" in notes
    assert "a location with no GPU listed (a1f0e3c2-0000-4000-8000-000000000004)" in notes


def test_bad_rows_become_rejects():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$1.05/hr' is not a plain number", "price_per_hr: no price (None)",
                  "price_per_hr: price 0 is not a positive amount",
                  "no country, or a GPU entry with no v0Name",
                  "location 'not a location' is not an object"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 5
    assert [(r.instance_type, r.price_per_hour) for r in result.records] == [
        ("1x h100-sxm5-80gb", 2.2)
    ]


def test_fetch_sends_the_key_when_set_and_archives_the_answer(tmp_path):
    body = (FIXTURES / "locations.json").read_bytes()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    settings = SourceSettings(tensordock_api_key="td-key")
    [fetched] = fetch(context(tmp_path, SOURCE.name, handler, settings=settings))
    assert str(seen[0].url) == LOCATIONS_URL == fetched.url
    assert seen[0].headers["Authorization"] == "Bearer td-key"
    assert len(parse(read_payloads(tmp_path / STAMP, "tensordock")).records) == 2
    fetch(context(tmp_path / "keyless", SOURCE.name, handler))
    assert "Authorization" not in seen[1].headers


def test_an_endpoint_answering_410_gone_fails_the_source_in_one_line(tmp_path):
    def gone(request: httpx.Request) -> httpx.Response:
        return httpx.Response(410, text="Gone")

    with pytest.raises(SourceError) as caught:
        fetch(context(tmp_path, SOURCE.name, gone))
    message = str(caught.value)
    assert "410 Gone" in message and "retired" in message and "kept" in message
    assert "\n" not in message and API_KEY.env not in message
