"""digitalocean: parse() on gpuhunt's /v2/sizes mock, bad sizes, and fetch() with and without
a token (skipped without one, Bearer token never archived, pages followed).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.digitalocean import SIZES_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "digitalocean"
TOKEN = "dop_v1_secret0token"
payload = payloads_of("digitalocean", SIZES_URL)


def test_gpu_sizes_priced_per_droplet_in_each_region():
    records = parse([payload("sizes.json")]).records
    offers = {(r.instance_type, r.region): r for r in records}
    assert set(offers) == {("gpu-h100x8-640gb", "nyc1"), ("gpu-mi300x8-1536gb", "nyc1")}
    h100 = offers[("gpu-h100x8-640gb", "nyc1")]
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-SXM", 8, 23.92)
    mi300x = offers[("gpu-mi300x8-1536gb", "nyc1")]
    assert (mi300x.chip, mi300x.extra["gpu_memory_gb"]) == ("MI300X", 192.0)
    assert h100.source_url == SIZES_URL and h100.pricing_model == "on_demand"
    # vcpus 160; memory 1966080 MiB; disk_info: local 2046 GiB and scratch 40960 GiB.
    assert (h100.vcpus, h100.ram_gb, h100.disk_gb) == (160.0, 1920.0, 2046.0 + 40960.0)


def test_bad_sizes_become_rejects_and_unsold_sizes_a_note():
    result = parse([payload("bad-rows.json")])
    reasons = {r.sku: r.reason for r in result.rejects}
    assert "'$23.92/hr' is not a plain number" in reasons["gpu-h100x8-text-price"]
    assert "GPU count 0 is below 1" in reasons["gpu-h100x0"]
    assert "no model" in reasons["gpu-nomodel"] and len(reasons) == 3
    assert any("sold in no region (gpu-h100x8-nowhere)" in n for n in result.notes)
    [unknown] = result.records
    assert unknown.chip == "unknown" and any("nvidia_x9000" in n for n in result.notes)


def keyed(tmp_path: Path, handler, token: str = TOKEN):
    settings = SourceSettings(digitalocean_api_key=token)
    return context(tmp_path, SOURCE.name, handler, settings=settings)


def test_without_a_token_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a token")

    with pytest.raises(SourceSkipped, match="^DIGITALOCEAN_TOKEN is not set"):
        fetch(keyed(tmp_path, handler, token=""))


def test_fetch_sends_the_token_follows_pages_and_never_archives_it(tmp_path):
    body = json.loads((FIXTURES / "sizes.json").read_text())
    second = f"{SIZES_URL}?page=2&per_page=200"
    first = dict(body, sizes=body["sizes"][:2], links={"pages": {"next": second}})
    last = dict(body, sizes=body["sizes"][2:], links={"pages": {"prev": SIZES_URL}})

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        return httpx.Response(200, json=last if request.url.params.get("page") else first)

    payloads = fetch(keyed(tmp_path, handler))
    assert [p.url for p in payloads] == [SIZES_URL, second]
    archived = read_payloads(tmp_path / STAMP, "digitalocean")
    assert len(parse(archived).records) == 2
    manifest = json.dumps(read_manifest(tmp_path / STAMP / "digitalocean"))
    assert TOKEN not in manifest


def test_a_refused_token_fails_the_source_naming_the_variable(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"id": "Unauthorized", "message": "Unable to authenticate"})

    with pytest.raises(Exception) as error:
        fetch(keyed(tmp_path, handler))
    assert "DIGITALOCEAN_TOKEN" in str(error.value) and TOKEN not in str(error.value)
