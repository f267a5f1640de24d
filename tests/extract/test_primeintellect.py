"""primeintellect: parse() on the documented offers and catalog-derived ones, the seller kept,
the cheapest of an offer listed twice, bad rows, and fetch() through every page.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceError, SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.primeintellect import AVAILABILITY_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "primeintellect"
KEY = "prime-secret0key"
payload = payloads_of("primeintellect", AVAILABILITY_URL)


def offers(name: str = "gpus.json") -> dict[tuple[str, str, str], object]:
    return {(r.instance_type, r.region, r.plan): r for r in parse([payload(name)]).records}


def test_each_offer_is_priced_per_configuration_and_place():
    found = offers()
    doc = found[("hyperstack/1x n3-H100x1", "CANADA-1", "secure")]
    assert (doc.chip, doc.chip_count, doc.price_per_hour) == ("H100-PCIe", 1.0, 1.9)
    assert (doc.provider, doc.pricing_model) == ("primeintellect", "on_demand")
    eight = found[("lambdalabs/8x gpu_8x_a100_80gb_sxm4", "us-midwest-1", "secure")]
    assert (eight.chip, eight.chip_count, eight.price_per_hour) == ("A100-80GB", 8.0, 14.32)
    assert found[("runpod/1x NVIDIA H100 PCIe", "US-KS-2", "secure")].price_per_hour == 2.69
    assert {k[1] for k in found if k[0] == "latitude/8x g3-a100-large"} == {"DAL", "FRA"}


def test_the_upstream_cloud_is_kept_as_the_seller():
    found = offers()
    lam = found[("lambdalabs/8x gpu_8x_a100_80gb_sxm4", "australia-east-1", "secure")]
    assert (lam.extra["seller"], lam.extra["cloud"]) == ("lambda", "lambdalabs")
    assert lam.extra["channel"] == "primeintellect" and lam.extra["stock_status"] == "Low"
    assert lam.sku == "gpu_8x_a100_80gb_sxm4"
    # vcpu and memory defaultCount 240 and 1800; the disk (defaultCount 100) is billed apart.
    assert (lam.vcpus, lam.ram_gb, lam.disk_gb) == (240.0, 1800.0, None)


def test_a_recorded_answer_loads_its_community_offers_at_their_community_price():
    """Prime's CLI tests record an answer of 79 offers, 34 of them community cloud with
    onDemand null and the price in communityPrice: on c4783d0 each of the 34 was a reject."""
    result = parse([payload("prime-cli-2025-01.json")])
    assert (len(result.records), result.rejects) == (79, [])
    community = [r for r in result.records if r.plan == "community"]
    assert len(community) == 34
    assert {r.extra["seller"] for r in community} == {"tensordock", "runpod"}
    assert {r.extra["price_field"] for r in community} == {"communityPrice"}
    found = {(r.instance_type, r.plan): r for r in result.records}
    assert found[("runpod/1x NVIDIA A100 80GB PCIe", "community")].price_per_hour == 1.2068
    assert found[("runpod/1x NVIDIA A100 80GB PCIe", "secure")].price_per_hour == 1.6568
    assert found[("runpod/1x NVIDIA A100 80GB PCIe", "secure")].extra["price_field"] == "onDemand"


def test_what_the_price_covers_is_said_as_the_answer_shows_it():
    found = {
        (r.instance_type, r.plan): r for r in parse([payload("prime-cli-2025-01.json")]).records
    }
    # RunPod: "defaultIncludedInPrice": false, yet 1.6568 is RunPod's 1.64 plus 120 GB x 0.00014
    runpod = found[("runpod/1x NVIDIA A100 80GB PCIe", "secure")]
    assert runpod.disk_gb == 120.0 and runpod.extra["disk_charge_in_price"] == 0.0168
    assert "the default disk (120 GB) included, 0.0168 an hour, though the offer says it is " \
        "billed apart" in runpod.extra["price_basis"]  # fmt: skip
    # Hyperstack says its default 750 GB disk is in the price (defaultIncludedInPrice true)
    hyperstack = found[("hyperstack/1x n3-A100x1", "secure")]
    assert hyperstack.disk_gb == 750.0 and "billed apart" not in hyperstack.extra["price_basis"]
    # TensorDock bills vCPUs, memory and disk beside its 1.00: none given as what 1.00 buys
    tensordock = found[("tensordock/1x 353c7146-1d73-41ae-b19c-80a578297621_1", "community")]
    assert (tensordock.vcpus, tensordock.ram_gb, tensordock.disk_gb) == (None, None, None)
    for words in ("vcpu billed apart at 0.005 per vCPU-hour", "disk billed apart at 0.0005"):
        assert words in tensordock.extra["price_basis"]


def test_the_paged_answer_of_the_cli_tests_loads_every_offer():
    result = parse([payload("prime-cli-2025-11.json")])
    assert (len(result.records), result.rejects) == (8, [])
    assert {r.region for r in result.records} >= {"US-KS-2"}


def test_bad_rows_become_rejects_and_an_offer_listed_twice_keeps_its_cheapest_price():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'1.90 USD' is not a plain number",
                  "prices.onDemand: no price (neither onDemand nor communityPrice)",
                  "GPU count 0 is below 1", "has no provider, cloudId or gpuType",
                  "security 'private_cloud'"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 5
    found = {(r.instance_type, r.plan, r.pricing_model): r for r in result.records}
    twice = found[("hyperstack/1x n3-H100x1", "secure", "on_demand")]
    assert (twice.price_per_hour, twice.extra["listings"], twice.extra["max"]) == (1.9, 2, 2.05)
    assert found[("hyperstack/1x n3-H100x1", "community", "on_demand")].price_per_hour == 1.49
    assert found[("hyperstack/1x n3-H100x1-spot", "secure", "spot")].price_per_hour == 0.95


def test_the_stated_socket_decides_the_chip():
    """Issue 48: an H100_80GB over socket "PCIe Gen5" loaded as the SXM part on c4783d0."""
    result = parse([payload("stated-parts.json")])
    chips = {r.sku: r.chip for r in result.records}
    assert chips["n3-H100x1-gen5"] == "H100-PCIe"
    assert chips["n3-H100x1-sxm5"] == "H100-SXM"
    assert chips["n3-H100x1-nosocket"] == "H100-SXM"  # nothing stated: H100 with 80 GB
    # a part no H100 is sold in here: unknown, and the notes name the spelling
    assert chips["n3-H100x1-oam"] == "unknown"
    assert any("H100 OAM" in note for note in result.notes)


def keyed(tmp_path: Path, handler, key: str = KEY):
    settings = SourceSettings(primeintellect_api_key=key)
    return context(tmp_path, SOURCE.name, handler, settings=settings)


def test_without_a_key_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a key")

    with pytest.raises(SourceSkipped, match="^PRIME_API_KEY is not set"):
        fetch(keyed(tmp_path, handler, key=""))


def paged(total: int, per_page: int) -> httpx.MockTransport:
    """Pages of the good fixture's first item until `total` offers were sent."""
    item = json.loads((FIXTURES / "gpus.json").read_bytes())["items"][0]

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        page = int(request.url.params["page"])
        assert request.url.params["page_size"] == "100"
        sent = min(per_page, max(0, total - (page - 1) * per_page))
        items = [{**item, "cloudId": f"n3-H100x1-{page}-{n}"} for n in range(sent)]
        return httpx.Response(200, json={"items": items, "totalCount": total})

    return handler


def test_fetch_follows_the_pages_until_the_total_count_and_never_archives_the_key(tmp_path):
    fetched = fetch(keyed(tmp_path, paged(total=5, per_page=2)))
    assert [p.url for p in fetched] == [AVAILABILITY_URL] * 3
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "primeintellect"))
    assert len(parse(read_payloads(tmp_path / STAMP, "primeintellect")).records) == 5


def test_a_listing_that_never_ends_fails_the_source_naming_it(tmp_path):
    with pytest.raises(SourceError, match="still had offers after 50 pages"):
        fetch(keyed(tmp_path, paged(total=10_000, per_page=1)))
