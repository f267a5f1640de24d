"""ovhcloud: parse() on the public catalog's GPU flavors, euro prices converted at the ECB's rate,
bad rows, no rate, and fetch() without a key."""

from __future__ import annotations

import httpx

from chipcost.archive import read_payloads
from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.ovhcloud import CATALOG_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payload

FIXTURES = FIXTURES / "ovhcloud"
RATE = 1.0556  # the recorded ECB file's dollar


def answers(catalog: str = "catalog.json") -> list:
    return [payload("ovhcloud", catalog, CATALOG_URL),
            payload("ovhcloud", "ecb-eurofxref-daily.xml", ECB_DAILY_URL)]  # fmt: skip


def test_each_gpu_flavor_is_its_hourly_price_in_dollars():
    result = parse(answers())
    found = {r.instance_type: r for r in result.records}
    h100 = found["h100-380"]
    assert (h100.chip_count, h100.sku, h100.region) == (1.0, "h100-380.consumption", "global")
    assert h100.price_per_hour == round(2.80 * RATE, 6) and h100.currency == "USD"
    assert h100.extra["price_listed"] == "2.8 EUR" and h100.extra["eur_usd"] == RATE
    assert h100.extra["monthly_price"] == "1940 EUR a month"
    assert (h100.vcpus, h100.ram_gb) == (30.0, 380.0)
    assert found["h100-1520"].chip_count == 4.0
    assert {found[n].chip for n in ("l40s-90", "l4-90", "a10-45")} == {"L40S", "L4", "A10"}
    assert len(found) == 6 and not result.rejects
    notes = " | ".join(result.notes)
    assert "a CPU-only flavor (b2-7)" in notes and "not an instance flavor" in notes


def test_bad_rows_become_rejects():
    result = parse([answers()[1], payload("ovhcloud", "bad-rows.json", CATALOG_URL)])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'2.80' is not a positive whole number", "no pricing per hour",
                  "GPU count 0 is below 1", "-140000000 is not a positive"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 4 and len(result.records) == 2


def test_euro_prices_without_a_rate_are_refused_and_said():
    result = parse(answers()[:1])
    assert not result.records and len(result.rejects) == 6
    assert "a euro price with no ECB rate" in result.rejects[0].reason
    assert "no EUR/USD rate from the ECB" in " ".join(result.notes)


def test_fetch_needs_no_key_and_archives_the_catalog_and_the_rates(tmp_path):
    files = {"api.ovh.com": "catalog.json", "www.ecb.europa.eu": "ecb-eurofxref-daily.xml"}

    def handler(request: httpx.Request) -> httpx.Response:
        body = (FIXTURES / files[request.url.host]).read_bytes()
        return httpx.Response(200, content=body)

    fetched = fetch(context(tmp_path, SOURCE.name, handler))
    assert [p.url for p in fetched] == [CATALOG_URL, ECB_DAILY_URL]
    assert len(parse(read_payloads(tmp_path / STAMP, "ovhcloud")).records) == 6
