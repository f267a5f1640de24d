"""ovhcloud: parse() on the public catalog's GPU flavors (euro prices stored as stated), bad rows,
an earlier archive with the ECB's file beside the catalog, and fetch() without a key."""

from __future__ import annotations

import httpx

from chipcost.archive import read_payloads
from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.ovhcloud import CATALOG_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payload

FIXTURES = FIXTURES / "ovhcloud"


def answers(catalog: str = "catalog.json") -> list:
    return [payload("ovhcloud", catalog, CATALOG_URL)]


def test_each_gpu_flavor_is_its_hourly_price_in_euros():
    result = parse(answers())
    found = {r.instance_type: r for r in result.records}
    h100 = found["h100-380"]
    assert (h100.chip_count, h100.sku, h100.region) == (1.0, "h100-380.consumption", "global")
    assert h100.price_per_hour == 2.80 and h100.currency == "EUR"
    assert h100.extra["price_listed"] == "2.8 EUR"
    assert h100.extra["monthly_price"] == "1940 EUR a month"
    assert (h100.vcpus, h100.ram_gb) == (30.0, 380.0)
    assert found["h100-1520"].chip_count == 4.0
    assert {found[n].chip for n in ("l40s-90", "l4-90", "a10-45")} == {"L40S", "L4", "A10"}
    assert len(found) == 6 and not result.rejects
    notes = " | ".join(result.notes)
    assert "a CPU-only flavor (b2-7)" in notes and "not an instance flavor" in notes


def test_bad_rows_become_rejects():
    result = parse([payload("ovhcloud", "bad-rows.json", CATALOG_URL)])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'2.80' is not a positive whole number", "no pricing per hour",
                  "GPU count 0 is below 1", "-140000000 is not a positive"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 4 and len(result.records) == 2


def test_an_earlier_archive_with_the_ecb_file_beside_the_catalog_replays():
    ecb = payload("ovhcloud", "ecb-eurofxref-daily.xml", ECB_DAILY_URL)
    earlier = parse([*answers(), ecb])
    assert earlier.records == parse(answers()).records and not earlier.rejects


def test_fetch_needs_no_key_and_archives_the_catalog_only(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.host == "api.ovh.com"
        return httpx.Response(200, content=(FIXTURES / "catalog.json").read_bytes())

    fetched = fetch(context(tmp_path, SOURCE.name, handler))
    assert [p.url for p in fetched] == [CATALOG_URL]
    assert len(parse(read_payloads(tmp_path / STAMP, "ovhcloud")).records) == 6
