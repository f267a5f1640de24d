"""massedcompute: parse() on the GPU inventory in the API's shape (brevdev/cloud's test values),
unpriced configurations, and fetch() with and without MASSED_COMPUTE_API_KEY."""

from __future__ import annotations

import json

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.massedcompute import INVENTORY_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "massedcompute"
KEY = "mc-secret0key"
payload = payloads_of("massedcompute", INVENTORY_URL)


def test_each_configuration_is_priced_per_instance_hour_from_cents():
    found = {r.instance_type: r for r in parse([payload("gpu-inventory.json")]).records}
    l40 = found["gpu_1x_l40"]
    assert (l40.chip, l40.chip_count, l40.price_per_hour, l40.pricing_model) == (
        "L40", 1.0, 0.86, "on_demand",
    )  # fmt: skip
    assert (l40.vcpus, l40.ram_gb, l40.disk_gb) == (14.0, 72.0, 625.0)
    assert l40.extra["regions_with_capacity"] == ["us-central-1"]
    # "4x H200 NVL (141GB) NVLink [Spot]": four H200 NVL, interruptible.
    spot = found["gpu_4x_h200_nvl_nvlink_discount"]
    assert (spot.chip, spot.chip_count, spot.pricing_model) == ("H200-NVL", 4.0, "spot")
    assert found["gpu_1x_a6000_low_ram"].chip == "RTX-A6000"
    assert len(found) == 4


def test_a_cpu_configuration_is_counted_and_unpriced_ones_are_rejects():
    assert "CPU-only configuration" in " ".join(parse([payload("gpu-inventory.json")]).notes)
    result = parse([payload("bad-rows.json")])
    assert [r.instance_type for r in result.records] == ["gpu_1x_l40"]
    assert {r.unpriced["instance_type"] for r in result.rejects} == {
        "gpu_4x_h100_nvl_nvlink", "gpu_8x_DGX_A100", "gpu_2x_a6000_nvlink", "gpu_1x_a5000",
    }  # fmt: skip
    # no price: each names no sku and no offer, so its offer is withdrawn
    assert {(r.sku, str(r.offer)) for r in result.rejects} == {("", "{}")}
    assert all("no price (None)" in r.reason for r in result.rejects)


def test_without_a_key_the_source_is_skipped(tmp_path):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request without a key")

    with pytest.raises(SourceSkipped, match="^MASSED_COMPUTE_API_KEY is not set"):
        fetch(context(tmp_path, SOURCE.name, refuse))


def test_fetch_sends_the_key_as_a_bearer_token_and_never_archives_it(tmp_path):
    body = (FIXTURES / "gpu-inventory.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        return httpx.Response(200, content=body)

    settings = SourceSettings(massed_compute_api_key=KEY)
    fetch(context(tmp_path, SOURCE.name, handler, settings=settings))
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "massedcompute"))
    assert len(parse(read_payloads(tmp_path / STAMP, "massedcompute")).records) == 4
