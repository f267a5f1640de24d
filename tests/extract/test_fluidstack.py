"""fluidstack: parse() on configurations read back from SkyPilot's published Fluidstack catalog,
bad rows, and fetch() with and without FLUIDSTACK_API_KEY."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.fluidstack import CONFIGURATIONS_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "fluidstack"
KEY = "fs-secret0key"
payload = payloads_of("fluidstack", CONFIGURATIONS_URL)


def offers(name: str = "configurations.json") -> dict[tuple[str, str], object]:
    return {(r.instance_type, r.region): r for r in parse([payload(name)]).records}


def test_each_count_and_region_is_an_on_demand_price_per_instance_hour():
    found = offers()
    one = found[("H100_PCIE_80GB::1", "CANADA")]
    assert (one.chip, one.chip_count, one.price_per_hour) == ("H100-PCIe", 1.0, 2.89)
    assert found[("H100_PCIE_80GB::4", "UTAH_USA")].price_per_hour == 11.56
    board = found[("H100_NVLINK_80GB::8", "FINLAND")]
    assert (board.chip, board.price_per_hour, board.extra["price_per_gpu_hour"]) == (
        "H100-SXM", 23.92, 2.99)  # fmt: skip
    assert found[("L40_48GB::8", "CANADA")].chip == "L40"
    assert found[("A100_PCIE_80GB::2", "ARIZONA_USA")].chip == "A100-80GB-PCIe"
    assert len(found) == 23 and {r.pricing_model for r in found.values()} == {"on_demand"}


def test_bad_rows_become_rejects_and_the_good_counts_stay():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$2.89/hr' is not a plain number", "price_per_gpu_hr: no price (None)",
                  "has no gpu_type", "GPU count 0 is below 1",
                  "no gpu_counts or regions"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 5
    found = {(r.instance_type, r.region): r.price_per_hour for r in result.records}
    assert found == {
        ("A100_PCIE_80GB::2", "CANADA"): 3.6, ("H100_NVLINK_80GB::8", "FINLAND"): 23.92,
    }  # fmt: skip


def keyed(tmp_path: Path, handler, key: str = KEY):
    return context(tmp_path, SOURCE.name, handler, settings=SourceSettings(fluidstack_api_key=key))


def test_without_a_key_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a key")

    with pytest.raises(SourceSkipped, match="^FLUIDSTACK_API_KEY is not set"):
        fetch(keyed(tmp_path, handler, key=""))


def test_fetch_sends_the_key_and_never_archives_it(tmp_path):
    body = (FIXTURES / "configurations.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["api-key"] == KEY
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(keyed(tmp_path, handler))
    assert fetched.url == CONFIGURATIONS_URL
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "fluidstack"))
    assert len(parse(read_payloads(tmp_path / STAMP, "fluidstack")).records) == 23
