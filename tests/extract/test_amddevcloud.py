"""amddevcloud: parse() on the Developer Cloud's sizes (DigitalOcean's shape, reconstructed),
bad sizes, and fetch() with and without AMD_DEVCLOUD_TOKEN (skipped without it)."""

from __future__ import annotations

import httpx
import pytest

from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.amddevcloud import SIZES_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import context, payloads_of

payload = payloads_of("amddevcloud", SIZES_URL)
KEY = "amd-devcloud-token"


def test_each_gpu_size_is_priced_per_instance_in_its_region():
    result = parse([payload("sizes.json")])
    sizes = {r.instance_type: r for r in result.records}
    one, eight = sizes["gpu-mi300x1-192gb-devcloud"], sizes["gpu-mi300x8-1536gb-devcloud"]
    assert (one.provider, one.region, one.chip, one.chip_count, one.price_per_hour) == (
        "amddevcloud", "atl1", "MI300X", 1.0, 1.99,
    )  # fmt: skip
    assert (eight.chip_count, eight.price_per_hour, eight.extra["gpu_memory_gb"]) == (8, 15.92, 192)
    assert (one.vcpus, one.ram_gb, one.disk_gb) == (20.0, 240.0, 5376.0)
    assert any("a CPU Droplet" in note for note in result.notes)


def test_bad_sizes_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("is not a plain number", "GPU count 0 is below 1", "gpu_info has no model"):
        assert words in reasons
    [record] = result.records
    assert (record.chip, record.price_per_hour) == ("MI325X", 2.49)


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("no request may be sent without a token")


def test_without_a_token_the_source_is_skipped(tmp_path):
    with pytest.raises(SourceSkipped, match="^AMD_DEVCLOUD_TOKEN is not set"):
        fetch(context(tmp_path, SOURCE.name, refuse))


def test_fetch_asks_the_developer_clouds_own_host(tmp_path):
    body = (FIXTURES / "amddevcloud" / "sizes.json").read_bytes()

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.host == "api-amd.digitalocean.com"
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        return httpx.Response(200, content=body)

    ctx = context(tmp_path, SOURCE.name, answer, settings=SourceSettings(amddevcloud_api_key=KEY))
    [fetched] = fetch(ctx)
    assert len(parse([fetched]).records) == 2
