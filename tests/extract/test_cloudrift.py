"""cloudrift: parse() on a reconstructed instance-type list, bad variants, fetch().

tests/fixtures/cloudrift/ holds POST /api/v1/instance-types/list answers in the shape gpuhunt
and SkyPilot read (ORIGIN.md: reconstructed, no recording exists) and variants the parser must
refuse. What every source must do is the contract test's (tests/extract/test_contract.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract.cloudrift import LIST_URL, REQUEST, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import FETCHED_AT, STAMP, context, payloads_of

FIXTURES = FIXTURES / "cloudrift"
payload = payloads_of("cloudrift", LIST_URL)


def test_one_record_per_gpu_variant_and_datacenter_in_dollars():
    records = parse([payload("instance-types.json")]).records
    offers = {(r.instance_type, r.region): r for r in records}
    eight = offers[("rtx49-16c-nr.8", "eu-north-1")]
    assert (eight.chip, eight.chip_count, eight.price_per_hour) == ("RTX-4090", 8, 3.12)
    assert ("rtx49-16c-nr.8", "us-east-nc-nr-1") in offers
    assert offers[("rtxpro6k-24c-nr.1", "us-east-nc-nr-1")].chip == "RTX-PRO-6000"
    assert eight.extra["gpu_memory_gb"] == 24 and eight.extra["nodes"] == 1
    # logical_cpu_count 128; dram 549755813888 and disk 4294967296000 bytes.
    assert (eight.vcpus, eight.ram_gb, eight.disk_gb) == (128.0, 512.0, 4000.0)
    assert {r.pricing_model for r in records} == {"on_demand"}


def test_a_variant_in_no_datacenter_is_not_offered():
    names = {r.instance_type for r in parse([payload("instance-types.json")]).records}
    assert "rtx59-16c-nr.4" not in names and "rtx59-16c-nr.1" in names


def test_a_gpu_the_catalog_lacks_loads_as_unknown_and_is_named():
    result = parse([payload("instance-types.json")])
    [mi350x] = [r for r in result.records if r.instance_type == "mi350x-32c-nr.8"]
    assert mi350x.chip in ("MI350X", "unknown")  # a canonical chip once the catalog has one
    if mi350x.chip == "unknown":
        assert any("MI350X" in note for note in result.notes)


@pytest.mark.parametrize(
    ("sku", "reason"),
    [
        ("rtx49-bad-price.1", "price '$0.39' is not a plain number"),
        ("rtx49-zero.1", "price 0 is not a positive amount"),
        ("rtx49-half.1", "GPU count '1/2' is not a whole number"),
    ],
)
def test_bad_variants_become_rejects(sku, reason):
    result = parse([payload("bad-rows.json")])
    [refused] = [r for r in result.rejects if r.sku == sku]
    assert reason in refused.reason
    assert [r.instance_type for r in result.records] == ["h100-good.1"]
    assert any("has no brand_short" in r.reason for r in result.rejects)
    assert not [r for r in result.rejects if r.sku == "cpu-only"]  # CPU-only: not read


def test_an_answer_that_is_a_bare_string_fails_the_source_with_it():
    with pytest.raises(ParseError, match="unsupported version"):
        text = json.dumps("unsupported version").encode()
        parse([Payload(text, LIST_URL, FETCHED_AT, "error.json", "error.json")])


def test_fetch_posts_the_versioned_request_and_archives_it(tmp_path: Path):
    body = (FIXTURES / "instance-types.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and json.loads(request.content) == REQUEST
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert fetched.url == LIST_URL
    [entry] = read_manifest(tmp_path / STAMP / "cloudrift")["payloads"]
    assert entry["request"] == {"method": "POST", "json": REQUEST}
    assert len(parse(read_payloads(tmp_path / STAMP, "cloudrift")).records) == 7
