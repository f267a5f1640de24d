"""hyperbolic: parse() on rows of SkyPilot's published Hyperbolic catalog in the answer's shape,
bad rows, and fetch() with and without HYPERBOLIC_API_KEY.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.hyperbolic import CATALOG_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "hyperbolic"
KEY = "hyp-secret0key"
payload = payloads_of("hyperbolic", CATALOG_URL)


def offers(name: str = "vms.json") -> dict[tuple[str, str], object]:
    return {(r.instance_type, r.pricing_model): r for r in parse([payload(name)]).records}


def test_each_vm_shape_is_an_on_demand_price_per_instance_hour():
    found = offers()
    one = found[("1x-H100-28-271", "on_demand")]
    assert (one.chip, one.chip_count, one.price_per_hour) == ("H100-SXM", 1.0, 1.39)
    eight = found[("8x-H100-224-2165", "on_demand")]
    assert (eight.chip_count, eight.price_per_hour) == (8.0, 11.12)
    assert found[("4x-RTX4090-43-181", "on_demand")].chip == "RTX-4090"
    assert len(found) == 8 and not [k for k in found if k[1] == "spot"]  # no SpotPrice listed


def test_the_default_region_is_global_and_the_shape_is_kept():
    one = offers()[("1x-H100-45-433", "on_demand")]
    assert one.region == "global" and one.extra["region_listed"] == "default"
    # vCPUs 45, MemoryGiB 433, StorageGiB 480: the record's host.
    assert (one.vcpus, one.ram_gb, one.disk_gb) == (45.0, 433.0, 480.0)
    assert one.extra["gpu_model"] == "NVIDIA-H100-80GB-HBM3" and one.extra["gpu_memory_gb"] == 79.6


def test_bad_rows_become_rejects_and_a_spot_price_is_a_spot_record():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$1.39/hr' is not a plain number", "Price: no price (None)",
                  "GPU count 0 is below 1", "has no InstanceType or AcceleratorName",
                  "SpotPrice: price 'cheap'"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 5
    found = {(r.instance_type, r.pricing_model, r.region): r.price_per_hour for r in result.records}
    assert found[("1x-H100-spot", "spot", "global")] == 0.69
    assert found[("1x-H100-eu", "on_demand", "eu-north-1")] == 1.39
    assert found[("1x-H100-badspot", "on_demand", "global")] == 1.39  # its on-demand price stands


def test_the_gpu_name_gpuinfo_states_decides_the_chip():
    """Issue 48: AcceleratorName "H100" names no part; GpuInfo's GPU name does. On c4783d0
    GpuInfo.Name was kept in extra only, so a PCIe H100 loaded as the SXM part."""
    result = parse([payload("stated-names.json")])
    chips = {r.instance_type: r.chip for r in result.records}
    assert chips["1x-H100-pcie"] == "H100-PCIe"
    assert chips["1x-H100-sxm"] == "H100-SXM"  # NVIDIA-H100-80GB-HBM3
    assert chips["1x-H100-noname"] == "H100-SXM"  # no name: AcceleratorName with its 80 GB
    # a stated name chipcost does not know is not passed over for "H100": unknown, named
    assert chips["1x-H100-odd"] == "unknown"
    assert any("NVIDIA-H100-Mystery-Edition" in note for note in result.notes)


def keyed(tmp_path: Path, handler, key: str = KEY):
    settings = SourceSettings(hyperbolic_api_key=key)
    return context(tmp_path, SOURCE.name, handler, settings=settings)


def test_without_a_key_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a key")

    with pytest.raises(SourceSkipped, match="^HYPERBOLIC_API_KEY is not set"):
        fetch(keyed(tmp_path, handler, key=""))


def test_fetch_sends_the_key_and_never_archives_it(tmp_path):
    body = (FIXTURES / "vms.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(keyed(tmp_path, handler))
    assert fetched.url == CATALOG_URL
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "hyperbolic"))
    assert len(parse(read_payloads(tmp_path / STAMP, "hyperbolic")).records) == 8
