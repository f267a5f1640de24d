"""shadeform: parse() on the documented example and catalog-derived instance types, the seller
kept beside Shadeform, bad rows, and fetch() with and without SHADEFORM_API_KEY.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.shadeform import SOURCE, TYPES_URL, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "shadeform"
KEY = "shade-secret0key"
payload = payloads_of("shadeform", TYPES_URL)


def offers(name: str = "instances-types.json") -> dict[tuple[str, str], object]:
    return {(r.instance_type, r.region): r for r in parse([payload(name)]).records}


def test_each_region_of_a_type_is_an_on_demand_price_per_instance_hour():
    found = offers()
    h100 = found[("hyperstack/H100x8-NVLINK", "montreal-canada-2")]
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-PCIe", 8.0, 15.6)
    assert (h100.provider, h100.source) == ("shadeform", "shadeform")
    assert h100.pricing_model == "on_demand"
    # configuration: vcpus 252, memory_in_gb 1440, storage_in_gb 500.
    assert (h100.vcpus, h100.ram_gb, h100.disk_gb) == (252.0, 1440.0, 500.0)
    assert found[("nebius/H200_sxm5x8_NVLINK", "paris-france-2")].price_per_hour == 28.44
    assert {r for _, r in found if _.startswith("nebius/")} == {
        "helsinki-finland-3", "paris-france-2", "kansascity-usa-3",
    }  # fmt: skip
    assert found[("denvr/H100_sxm5x8", "houston-usa-1")].chip == "H100-SXM"  # interconnect sxm
    assert found[("crusoe/A100_80Gx8", "culpeper-usa-1")].chip == "A100-80GB"
    assert found[("paperspace/V100_32G", "newyork-usa-1")].chip == "V100-32GB"


def test_the_cloud_is_kept_as_the_seller_and_shadeform_as_the_channel():
    b200 = offers()[("datacrunch/B200", "helsinki-finland-5")]
    assert b200.extra["seller"] == "verda" and b200.extra["cloud"] == "datacrunch"
    assert b200.extra["channel"] == "shadeform" and b200.sku == "1B200.31V"
    scaleway = offers()[("scaleway/H100", "paris-france-1")]
    assert scaleway.extra["seller"] == "scaleway" and scaleway.extra["vcpus"] == 24


def test_regions_listed_unavailable_keep_their_price_and_say_so():
    found = offers()
    assert found[("vultr/A16x4", "chicago-usa-1")].extra["available"] is False
    assert found[("vultr/A16x4", "tokyo-japan-2")].extra["available"] is True


def test_the_documented_example_parses_and_its_mismatched_chip_is_named():
    result = parse([payload("documented-example.json")])
    found = {(r.instance_type, r.region): r for r in result.records}
    assert set(found) == {("hyperstack/A6000", r) for r in ("us-central-1", "us-central-2")}
    assert found[("hyperstack/A6000", "us-central-1")].price_per_hour == 2.10
    # gpu_type "A100" with 48 GB per GPU is no A100 the catalog knows: loaded, and named
    assert {r.chip for r in result.records} == {"unknown"}
    # ... with what the aliases needed and what the payload stated (on 0cae6cf: 'A100' alone)
    said = "A100 (needs its memory: 40 GB A100-40GB, 80 GB A100-80GB; stated 48 GB)"
    assert any(said in note for note in result.notes), result.notes


def test_a_spot_entry_is_a_spot_price_in_dollars_beside_the_on_demand_one():
    """Shadeform's spot guide: a second availability entry per region, rental_type "spot",
    hourly_price "a decimal string in dollars". On c4783d0 it became a second on-demand row,
    refused as a duplicate offer key."""
    result = parse([payload("documented-spot.json")])
    found = {(r.region, r.pricing_model): r for r in result.records}
    assert set(found) == {("us-central-1", "on_demand"), ("us-central-1", "spot")}
    assert found[("us-central-1", "on_demand")].price_per_hour == 2.10  # 210 cents
    assert found[("us-central-1", "spot")].price_per_hour == 1.50  # "1.50" dollars
    assert "dollars" in found[("us-central-1", "spot")].extra["price_basis"]
    assert not result.rejects


def test_each_entry_keeps_its_own_available_flag_and_a_bad_availability_is_one_reject():
    result = parse([payload("bad-availability.json")])
    found = {(r.instance_type, r.pricing_model): r for r in result.records}
    # spot listed first and available, on demand sold out: each says its own
    assert found[("hyperstack/A6000-spot-first", "spot")].extra["available"] is True
    assert found[("hyperstack/A6000-spot-first", "on_demand")].extra["available"] is False
    # availability 2 (a number, not the list): one reject naming the field, the rest loaded
    [bad] = result.rejects
    assert "hyperstack/A6000-count: availability 2 is not a list of regions" in bad.reason
    assert ("hyperstack/A6000", "spot") in found and len(result.records) == 4


def test_bad_rows_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$3.08' is not a plain number", "price 0 is not a positive amount",
                  "GPU count 0 is below 1", "configuration has no gpu_type",
                  "has no cloud or shade_instance_type"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 5
    assert any("listed in no region (scaleway/H100-nowhere)" in n for n in result.notes)
    assert {r.instance_type for r in result.records} == {"scaleway/H100x2"}


def keyed(tmp_path: Path, handler, key: str = KEY):
    return context(tmp_path, SOURCE.name, handler, settings=SourceSettings(shadeform_api_key=key))


def test_without_a_key_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a key")

    with pytest.raises(SourceSkipped, match="^SHADEFORM_API_KEY is not set"):
        fetch(keyed(tmp_path, handler, key=""))


def test_fetch_sends_the_key_asks_for_every_type_and_never_archives_the_key(tmp_path):
    body = (FIXTURES / "instances-types.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["X-API-KEY"] == KEY
        assert not request.url.params  # no `available` filter: unavailable types come too
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(keyed(tmp_path, handler))
    assert fetched.url == TYPES_URL
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "shadeform"))
    assert len(parse(read_payloads(tmp_path / STAMP, "shadeform")).records) == 14
