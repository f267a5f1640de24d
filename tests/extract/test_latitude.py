"""latitude: parse() on recorded plan objects under the API's envelope, a region with no price,
and fetch() with and without LATITUDE_API_KEY."""

from __future__ import annotations

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.latitude import PLANS_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "latitude"
KEY = "lat-secret0key"
payload = payloads_of("latitude", PLANS_URL)


def test_each_gpu_plan_is_priced_per_region_per_server_hour_in_dollars():
    found = {(r.instance_type, r.region): r for r in parse([payload("plans.json")]).records}
    us = found[("g4-rtx6kpro-large", "united-states")]
    assert (us.chip, us.chip_count, us.price_per_hour, us.currency) == (
        "RTX-PRO-6000", 8.0, 48.0, "USD",
    )  # fmt: skip
    assert found[("g4-rtx6kpro-large", "australia")].price_per_hour == 66.0
    assert us.extra["monthly_price"] == 17520 and us.extra["stock_level"] == "low"
    assert us.ram_gb == 1536.0
    # "NVIDIA H100 80GB", vram_per_gpu 80.
    assert found[("g3-h100-small", "united-states")].chip == "H100-SXM"
    assert len(found) == 5


def test_a_cpu_plan_is_counted_and_a_region_without_a_price_is_a_reject():
    assert "CPU-only plan" in " ".join(parse([payload("plans.json")]).notes)
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    # The recorded United Kingdom region: "USD": {"hour": null}, "BRL": {"hour": 0}.
    assert "United Kingdom pricing.USD.hour: no price (None)" in reasons
    assert "GPU count 0 is below 1" in reasons and "names no GPU type" in reasons
    assert result.records == []


def test_without_a_key_the_source_is_skipped(tmp_path):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request without a key")

    with pytest.raises(SourceSkipped, match="^LATITUDE_API_KEY is not set"):
        fetch(context(tmp_path, SOURCE.name, refuse))


def test_fetch_asks_for_gpu_plans_with_the_key(tmp_path):
    body = (FIXTURES / "plans.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        assert request.url.params["filter[gpu]"] == "true"
        return httpx.Response(200, content=body)

    fetch(context(tmp_path, SOURCE.name, handler, settings=SourceSettings(latitude_api_key=KEY)))
    assert len(parse(read_payloads(tmp_path / STAMP, "latitude")).records) == 5
