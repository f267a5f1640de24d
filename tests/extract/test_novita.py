"""novita: parse() on product objects of a recorded shape (price in 1/100,000 USD per GPU-hour),
bad products, and fetch() with and without NOVITA_API_KEY (skipped without it)."""

from __future__ import annotations

import httpx
import pytest

from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.novita import PRODUCTS_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import context, payloads_of

payload = payloads_of("novita", PRODUCTS_URL)
KEY = "novita-secret-key"


def test_a_product_is_one_gpu_priced_per_hour_in_each_of_its_regions():
    records = parse([payload("products.json")]).records
    rtx = {r.region: r for r in records if r.sku == "4090.16c62g"}
    assert set(rtx) == {"US-CA-06", "EU-GB-01"}
    one = rtx["US-CA-06"]
    # "35000" in 1/100,000 USD is $0.35 per GPU-hour, for one GPU.
    assert (one.chip, one.chip_count, one.price_per_hour) == ("RTX-4090", 1.0, 0.35)
    assert (one.vcpus, one.ram_gb, one.disk_gb) == (16.0, 62.0, 6144.0)
    assert one.extra["spot_price_listed"] == "17500"  # kept as sent: its unit is not documented


def test_memory_in_the_name_tells_a100_80gb_and_a_sold_out_product_keeps_its_price():
    records = {r.sku: r for r in parse([payload("products.json")]).records}
    assert (records["A100-80GB.14c240g"].chip, records["A100-80GB.14c240g"].price_per_hour) == (
        "A100-80GB", 1.6,
    )  # fmt: skip
    dallas = records["26"]
    assert (dallas.region, dallas.price_per_hour) == ("US-01", 0.67)
    assert dallas.extra["available_deploy"] is False


def test_bad_products_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("is not a plain number", "no price (None)", "is not a positive amount",
                  "is not a list", "has no id or name"):  # fmt: skip
        assert words in reasons
    assert {r.sku for r in result.records} == {"H100-SXM.good"}  # in its two regions
    assert result.records[0].chip == "H100-SXM"
    assert any("listed in no region (p-none)" in note for note in result.notes)


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("no request may be sent without a key")


def test_without_a_key_the_source_is_skipped(tmp_path):
    with pytest.raises(SourceSkipped, match="^NOVITA_API_KEY is not set"):
        fetch(context(tmp_path, SOURCE.name, refuse))


def test_fetch_sends_the_key_as_a_bearer_token(tmp_path):
    body = (FIXTURES / "novita" / "products.json").read_bytes()

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        return httpx.Response(200, content=body)

    ctx = context(tmp_path, SOURCE.name, answer, settings=SourceSettings(novita_api_key=KEY))
    [fetched] = fetch(ctx)
    assert fetched.url == PRODUCTS_URL and len(parse([fetched]).records) == 4
