"""hyperstack: parse() on flavors priced from the pricebook (its documented example among them),
bad rows, a missing pricebook, and fetch() with and without HYPERSTACK_API_KEY."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import ParseError, SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.hyperstack import FLAVORS_URL, PRICEBOOK_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payload

FIXTURES = FIXTURES / "hyperstack"
KEY = "hs-secret0key"


def answers(flavors: str = "flavors.json") -> list:
    return [payload("hyperstack", "pricebook.json", PRICEBOOK_URL),
            payload("hyperstack", flavors, FLAVORS_URL)]  # fmt: skip


def test_each_gpu_flavor_is_its_gpus_list_rate_per_instance_hour():
    result = parse(answers())
    found = {(r.instance_type, r.region): r for r in result.records}
    one = found[("n3-H100x1", "CANADA-1")]
    assert (one.chip, one.chip_count, one.price_per_hour) == ("H100-PCIe", 1.0, 1.9)
    assert (one.vcpus, one.ram_gb, one.disk_gb) == (28.0, 180.0, 100.0)
    # The list rate (original_value), not the key's discounted value, which is kept beside it.
    assert one.extra["account_rate_per_gpu_hour"] == 1.71
    assert found[("n3-H100x8", "CANADA-1")].price_per_hour == 15.2
    assert found[("n3-H100-SXM5x8", "US-1")].chip == "H100-SXM"
    assert found[("n1-RTX-A6000x2", "NORWAY-1")].price_per_hour == 1.0  # two at $0.50
    assert len(found) == 4
    assert [r.reason for r in result.rejects] == [
        "n3-H200x8: GPU 'H200-141G-SXM5' has no rate in the pricebook"
    ]
    assert "a CPU-only flavor (n1-cpu-small)" in " ".join(result.notes)


def test_bad_flavors_become_rejects():
    result = parse(answers("bad-rows.json"))
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("GPU count 0.5 is not a whole number", "has no name or region",
                  "'B200-180G-SXM6' has no rate in the pricebook",
                  "a flavor group or flavor that is not an object"):  # fmt: skip
        assert words in reasons
    assert [(r.instance_type, r.price_per_hour) for r in result.records] == [("n3-H100x2", 3.8)]


def test_flavors_without_a_pricebook_fail_the_parse():
    with pytest.raises(ParseError, match="no pricebook"):
        parse([payload("hyperstack", "flavors.json", FLAVORS_URL)])


def keyed(tmp_path: Path, handler, key: str = KEY):
    return context(tmp_path, SOURCE.name, handler, settings=SourceSettings(hyperstack_api_key=key))


def test_without_a_key_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a key")

    with pytest.raises(SourceSkipped, match="^HYPERSTACK_API_KEY is not set"):
        fetch(keyed(tmp_path, handler, key=""))


def test_fetch_sends_the_key_and_never_archives_it(tmp_path):
    files = {PRICEBOOK_URL: "pricebook.json", FLAVORS_URL: "flavors.json"}

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["api_key"] == KEY
        body = (FIXTURES / files[str(request.url)]).read_bytes()
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    fetched = fetch(keyed(tmp_path, handler))
    assert [p.url for p in fetched] == [PRICEBOOK_URL, FLAVORS_URL]
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "hyperstack"))
    assert len(parse(read_payloads(tmp_path / STAMP, "hyperstack")).records) == 4
