"""hotaisle: parse() on gpuhunt's mock VM and reconstructed lists, bad VMs, and fetch() with and
without the key and team handle (skipped without them; the key never archived).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import ParseError, SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.hotaisle import SOURCE, available_url, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "hotaisle"
KEY = "ha-secret0key"
URL = available_url("my-team")
payload = payloads_of("hotaisle", URL)


def test_one_vm_priced_per_instance_in_dollars():
    [record] = parse([payload("available.json")]).records
    assert (record.instance_type, record.chip, record.chip_count) == (
        "1x MI300X 13c 240GB", "MI300X", 1.0,
    )  # fmt: skip
    assert (record.price_per_hour, record.region, record.pricing_model) == (
        1.99, "global", "on_demand",
    )  # fmt: skip
    assert record.extra["cpu_model"] == "Xeon Platinum 8470"
    # cpu_cores 13; ram_capacity 257698037760 and disk_capacity 13194139533312 bytes.
    assert (record.vcpus, record.ram_gb, record.disk_gb) == (13.0, 240.0, 12288.0)


def test_a_configuration_listed_several_times_is_one_offer_at_its_cheapest():
    records = {r.instance_type: r for r in parse([payload("available-several.json")]).records}
    assert set(records) == {"1x MI300X 13c 240GB", "8x MI300X 104c 1920GB", "1x MI355X 14c 288GB"}
    one = records["1x MI300X 13c 240GB"]
    assert (one.price_per_hour, one.extra["vms_available"], one.extra["max_price"]) == (
        1.99, 3, 2.19,
    )  # fmt: skip
    assert records["8x MI300X 104c 1920GB"].chip_count == 8
    assert records["1x MI355X 14c 288GB"].chip == "MI355X"


def test_null_nothing_available_is_an_empty_listing_refused():
    """Nothing to rent right now is no news that every offer was withdrawn: the source fails
    and the prices held are kept (on main at 368c4bd it loaded as "ok, 0 records")."""
    with pytest.raises(ParseError, match="hotaisle: the listing at .* gave no offer"):
        parse([payload("none-available.json")])


def test_bad_vms_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$1.99' is not a plain number", "no price (None)", "GPU count 0 is below 1",
                  "has no Specs.gpus", "has no model"):  # fmt: skip
        assert words in reasons
    assert [r.instance_type for r in result.records] == ["1x MI300X 26c 480GB"]


def keyed(tmp_path: Path, handler, key: str = KEY, team: str = "my-team"):
    settings = SourceSettings(hotaisle_api_key=key, hotaisle_team=team)
    return context(tmp_path, SOURCE.name, handler, settings=settings)


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("no request may be sent without a key and a team")


@pytest.mark.parametrize(
    ("key", "team", "message"),
    [
        ("", "my-team", "^HOTAISLE_API_KEY is not set"),
        (KEY, "", "^HOTAISLE_TEAM_HANDLE is not set"),
    ],
)
def test_without_key_or_team_the_source_is_skipped(tmp_path, key, team, message):
    with pytest.raises(SourceSkipped, match=message):
        fetch(keyed(tmp_path, refuse, key, team))


def test_fetch_sends_the_key_as_a_token_and_never_archives_it(tmp_path):
    body = (FIXTURES / "available.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Token {KEY}"
        assert str(request.url) == URL
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(keyed(tmp_path, handler))
    assert fetched.url == URL
    assert KEY not in json.dumps(read_manifest(tmp_path / STAMP / "hotaisle"))
    assert len(parse(read_payloads(tmp_path / STAMP, "hotaisle")).records) == 1
