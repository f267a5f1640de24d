"""mithril: parse() joins the spot auctions to the instance types of the same run, bad rows,
and fetch() with and without MITHRIL_API_KEY.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.mithril import AVAILABILITY_URL, SOURCE, TYPES_URL, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "mithril"
KEY = "fkey_secret0key"
payload = payloads_of("mithril")


def answers(auctions: str = "spot-availability.json") -> list:
    return [payload("instance-types.json", TYPES_URL), payload(auctions, AVAILABILITY_URL)]


def test_each_auction_is_a_spot_price_per_instance_hour_in_its_region():
    records = parse(answers()).records
    found = {(r.instance_type, r.region): r for r in records}
    h100 = found[("h100-80gb.sxm.8x", "us-central1-b")]
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-SXM", 8.0, 8.0)
    assert (h100.pricing_model, h100.provider, h100.sku) == (
        "spot",
        "mithril",
        "it_XqgKWbhZ5gznAYsG",
    )
    assert found[("h100-80gb.sxm.8x", "us-central2-a")].price_per_hour == 12.0
    one = found[("a100-80gb.sxm.1x", "us-central3-a")]
    assert (one.chip, one.price_per_hour, one.extra["capacity"]) == ("A100-80GB", 0.5, 32)
    # The instance type's num_cpus 26 and ram_gb 190; no disk is listed.
    assert (one.vcpus, one.ram_gb, one.disk_gb) == (26.0, 190.0, None)
    assert len(records) == 8


def test_an_auction_without_its_instance_type_is_refused_not_guessed():
    result = parse([payload("spot-availability.json", AVAILABILITY_URL)])
    assert not result.records and len(result.rejects) == 8
    assert all("is not listed" in r.reason for r in result.rejects)


def test_bad_rows_become_rejects_with_reasons():
    result = parse(answers("bad-rows.json"))
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'12.00/hr?' is not one USD amount", "no price listed (nothing)",
                  "'it_unknownType0000' is not listed", "no region"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 4
    [kept] = result.records
    assert (kept.price_per_hour, kept.extra["min_bid_price"]) == (0.75, 0.4)


def keyed(tmp_path: Path, handler, key: str = KEY):
    return context(tmp_path, SOURCE.name, handler, settings=SourceSettings(mithril_api_key=key))


def test_without_a_key_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a key")

    with pytest.raises(SourceSkipped, match="^MITHRIL_API_KEY is not set"):
        fetch(keyed(tmp_path, handler, key=""))


def test_fetch_asks_for_types_then_auctions_and_never_archives_the_key(tmp_path):
    bodies = {"/v2/instance-types": "instance-types.json",
              "/v2/spot/availability": "spot-availability.json"}  # fmt: skip

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        return httpx.Response(200, content=(FIXTURES / bodies[request.url.path]).read_bytes())

    fetched = fetch(keyed(tmp_path, handler))
    assert [p.url for p in fetched] == [TYPES_URL, AVAILABILITY_URL]
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "mithril"))
    assert len(parse(read_payloads(tmp_path / STAMP, "mithril")).records) == 8
