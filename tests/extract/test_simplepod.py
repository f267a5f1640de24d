"""simplepod: parse() on market machines in the reconstructed shape (a median per GPU model and
location), bad machines, and fetch() with and without SIMPLEPOD_API_KEY (skipped without it)."""

from __future__ import annotations

import httpx
import pytest

from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.simplepod import MARKET_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import context, payloads_of

payload = payloads_of("simplepod", MARKET_URL)
KEY = "simplepod-secret-key"


def test_each_gpu_model_and_location_is_one_offer_at_the_median_per_gpu_price():
    records = {(r.instance_type, r.region): r for r in parse([payload("market.json")]).records}
    rtx4090 = records[("1x RTX 4090", "Europe-PL")]
    # Three machines at 0.34, 0.32 and 0.34 per GPU-hour: the median, for one GPU.
    assert (rtx4090.chip, rtx4090.chip_count, rtx4090.price_per_hour) == ("RTX-4090", 1.0, 0.34)
    assert (rtx4090.extra["machines"], rtx4090.extra["gpus"], rtx4090.extra["min"]) == (3, 13, 0.32)
    assert records[("1x RTX 3060", "North America-CA")].chip == "RTX-3060"  # 12288 MiB: 12 GB
    assert records[("1x RTX PRO 6000 Blackwell", "Europe-PL")].chip == "RTX-PRO-6000"
    assert len(records) == 6


def test_bad_machines_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("is not a plain number", "no price (None)", "GPU count 0 is below 1",
                  "has no gpuModel", "names no region or country"):  # fmt: skip
        assert words in reasons
    [record] = result.records
    assert (record.instance_type, record.price_per_hour) == ("1x RTX 4090", 0.30)
    assert any("not rentable on demand now (6)" in note for note in result.notes)


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("no request may be sent without a key")


def test_without_a_key_the_source_is_skipped(tmp_path):
    with pytest.raises(SourceSkipped, match="^SIMPLEPOD_API_KEY is not set"):
        fetch(context(tmp_path, SOURCE.name, refuse))


def test_fetch_sends_the_key_in_x_auth_token(tmp_path):
    body = (FIXTURES / "simplepod" / "market.json").read_bytes()

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.headers["X-AUTH-TOKEN"] == KEY and "Authorization" not in request.headers
        assert request.url.params["rentalStatus"] == "active"
        return httpx.Response(200, content=body)

    ctx = context(tmp_path, SOURCE.name, answer, settings=SourceSettings(simplepod_api_key=KEY))
    [fetched] = fetch(ctx)
    assert len(parse([fetched]).records) == 6
