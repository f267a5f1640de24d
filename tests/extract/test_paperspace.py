"""paperspace: parse() on machine types in the console's tRPC shape (reconstructed: ORIGIN.md),
bad rows, and fetch() with and without PAPERSPACE_API_KEY."""

from __future__ import annotations

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.paperspace import MACHINE_TYPES_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "paperspace"
KEY = "ps-secret0key"
payload = payloads_of("paperspace", MACHINE_TYPES_URL)


def test_each_gpu_machine_is_its_hourly_rate_per_instance_hour():
    result = parse([payload("machine-types.json")])
    found = {r.instance_type: r for r in result.records}
    eight = found["H100x8"]
    assert (eight.chip, eight.chip_count, eight.price_per_hour) == ("H100-SXM", 8.0, 47.6)
    assert (eight.vcpus, eight.ram_gb) == (128.0, 1638.0)
    assert eight.extra["available_in"] == ["NY2", "CA1", "AMS1"]
    # "Ampere A100 80G" and "Ampere A6000": the architecture word is not the chip's name.
    assert found["A100-80G"].chip == "A100-80GB"
    # No gpu-count in the metadata: the label's "x4".
    assert (found["A6000x4"].chip, found["A6000x4"].chip_count) == ("RTX-A6000", 4.0)
    assert "CPU-only machine type" in " ".join(result.notes)
    assert len(found) == 4


def test_bad_rows_become_rejects_and_a_monthly_only_machine_is_counted():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    assert "V100-32G hourly rate: price '0.00' is not a positive amount" in reasons
    assert "RTX4000: GPU count 0 is below 1" in reasons
    assert "no hourly rate: rented by the month only (A5000)" in " ".join(result.notes)


def test_without_a_key_the_source_is_skipped(tmp_path):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request without a key")

    with pytest.raises(SourceSkipped, match="^PAPERSPACE_API_KEY is not set"):
        fetch(context(tmp_path, SOURCE.name, refuse))


def test_fetch_sends_the_key(tmp_path):
    body = (FIXTURES / "machine-types.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        return httpx.Response(200, content=body)

    settings = SourceSettings(paperspace_api_key=KEY)
    fetch(context(tmp_path, SOURCE.name, handler, settings=settings))
    assert len(parse(read_payloads(tmp_path / STAMP, "paperspace")).records) == 4
