"""jarvislabs: parse() on gpuhunt's /misc/server_meta mock, bad rows, and fetch() with and
without JL_API_KEY (skipped without it; the key never archived).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.jarvislabs import SERVER_META_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "jarvislabs"
KEY = "jl-secret0key"
payload = payloads_of("jarvislabs", SERVER_META_URL)


def offers(name: str = "server-meta.json") -> dict[tuple[str, str, str], object]:
    records = parse([payload(name)]).records
    return {(r.instance_type, r.region, r.pricing_model): r for r in records}


def test_per_gpu_prices_of_vms_and_containers_per_region():
    found = offers()
    vm = found[("1x A100 80GB VM", "india-noida-01", "on_demand")]
    assert (vm.chip, vm.chip_count, vm.price_per_hour) == ("A100-80GB", 1.0, 1.49)
    # cpus_per_gpu 28 and ram_per_gpu 112 are the one-GPU instance's; no disk is listed.
    assert (vm.vcpus, vm.ram_gb, vm.disk_gb) == (28.0, 112.0, None)
    assert found[("1x L4 container", "india-noida-01", "on_demand")].price_per_hour == 0.44
    assert found[("1x L4 VM", "india-noida-01", "on_demand")].extra["max_gpus"] == 8
    assert found[("1x H100 VM", "europe-01", "on_demand")].chip == "H100-SXM"  # no workload_type


def test_spot_is_read_for_containers_only():
    found = offers()
    assert found[("1x L4 container", "india-noida-01", "spot")].price_per_hour == 0.29
    assert ("1x L4 VM", "india-noida-01", "spot") not in found  # VM rows carry 0.29 too
    assert not [k for k in found if k[2] == "spot" and "VM" in k[0]]


def test_both_spellings_of_rtx_pro_6000_are_one_offer_name_and_one_chip():
    """On 368c4bd "RTX-PRO6000" and "RTX PRO 6000" made two instance names of one card."""
    found = offers()
    chennai = found[("1x RTX PRO 6000 VM", "india-chennai-01", "on_demand")]
    noida = found[("1x RTX PRO 6000 VM", "india-noida-01", "on_demand")]
    assert chennai.chip == noida.chip == "RTX-PRO-6000"
    assert chennai.sku == "RTX-PRO6000" and noida.sku == "RTX PRO 6000"  # as the provider wrote it
    assert not [name for name, _, _ in found if "PRO6000" in name]


def test_bad_rows_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$1.49/hr' is not a plain number", "no price (None)",
                  "has no gpu_type, region or known workload_type", "'0.89 USD'"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 5
    assert {r.instance_type for r in result.records} == {"1x A100 80GB container", "1x H200 VM"}


def keyed(tmp_path: Path, handler, key: str = KEY):
    settings = SourceSettings(jarvislabs_api_key=key)
    return context(tmp_path, SOURCE.name, handler, settings=settings)


def test_without_a_key_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a key")

    with pytest.raises(SourceSkipped, match="^JL_API_KEY is not set"):
        fetch(keyed(tmp_path, handler, key=""))


def test_fetch_sends_the_key_and_never_archives_it(tmp_path):
    body = (FIXTURES / "server-meta.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(keyed(tmp_path, handler))
    assert fetched.url == SERVER_META_URL
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "jarvislabs"))
    assert len(parse(read_payloads(tmp_path / STAMP, "jarvislabs")).records) == 8
