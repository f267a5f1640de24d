"""voltagepark: parse() on recorded bare-metal locations and VM presets, bad rows, and fetch()
of both public answers without a key."""

from __future__ import annotations

import httpx

from chipcost.archive import read_payloads
from chipcost.extract.voltagepark import BARE_METAL_URL, PRESETS_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "voltagepark"
payload = payloads_of("voltagepark")
RECORDED = [
    payload("locations.json", BARE_METAL_URL),
    payload("instant-deploy-presets.json", PRESETS_URL),
]


def offers() -> dict[str, object]:
    return {r.instance_type: r for r in parse(RECORDED).records}


def test_a_bare_metal_node_is_its_per_gpu_price_times_its_gpus_per_fabric():
    found = offers()
    ethernet = found["8x h100-sxm5-80gb bare metal ethernet"]
    infiniband = found["8x h100-sxm5-80gb bare metal infiniband"]
    # gpu_price_ethernet "1.99" and gpu_price_infiniband "2.49" per GPU-hour, 8 GPUs a node.
    assert (ethernet.chip, ethernet.chip_count, ethernet.price_per_hour) == ("H100-SXM", 8.0, 15.92)
    assert infiniband.price_per_hour == 19.92
    assert ethernet.zone == "a3111bd4-550a-47d0-838a-0a52bff2ae3f" and ethernet.region == "global"
    assert (ethernet.vcpus, ethernet.ram_gb, ethernet.disk_gb) == (104.0, 1024.0, 18000.0)
    assert ethernet.extra["gpus_available"] == 0


def test_each_vm_preset_is_its_compute_rate_per_instance_hour():
    found = offers()
    one = found["1x h100-sxm5-80gb VM 26c 116GB"]
    assert (one.chip_count, one.price_per_hour, one.pricing_model) == (1.0, 1.89, "on_demand")
    assert one.extra["storage_rate_hourly"] == "0.100000"
    assert found["8x h100-sxm5-80gb VM 208c 928GB"].price_per_hour == 15.12
    assert len(found) == 6


def test_bad_locations_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json", BARE_METAL_URL)])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("no specs_per_node.gpu_model", "'$1.99' is not a plain number",
                  "no price (None)", "GPU count 0 is below 1"):  # fmt: skip
        assert words in reasons
    assert result.records == []


def test_fetch_needs_no_key_and_archives_both_answers(tmp_path):
    bodies = {
        BARE_METAL_URL: (FIXTURES / "locations.json").read_bytes(),
        PRESETS_URL: (FIXTURES / "instant-deploy-presets.json").read_bytes(),
    }

    def handler(request: httpx.Request) -> httpx.Response:
        assert "Authorization" not in request.headers
        return httpx.Response(200, content=bodies[str(request.url)])

    fetched = fetch(context(tmp_path, SOURCE.name, handler))
    assert [p.url for p in fetched] == [BARE_METAL_URL, PRESETS_URL]
    assert len(parse(read_payloads(tmp_path / STAMP, "voltagepark")).records) == 6
