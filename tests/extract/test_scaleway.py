"""scaleway: parse() on a recorded products answer (euro prices stored as stated), bad rows, an
earlier archive with the ECB's file beside the products, and fetch() over the zones and their
pages without a key."""

from __future__ import annotations

import json

import httpx

from chipcost.archive import read_payloads
from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.scaleway import PER_PAGE, PRODUCTS_URL, SOURCE, ZONES, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payload

FIXTURES = FIXTURES / "scaleway"
URL = PRODUCTS_URL.format(zone="fr-par-2") + f"?page=1&per_page={PER_PAGE}"


def answers(products: str = "products-servers.json") -> list:
    return [payload("scaleway", products, URL)]


def test_each_gpu_type_is_its_hourly_price_in_euros_in_its_zone():
    result = parse(answers())
    found = {r.instance_type: r for r in result.records}
    h100 = found["H100-1-80G"]
    assert (h100.chip, h100.chip_count, h100.region) == ("H100-PCIe", 1.0, "fr-par-2")
    assert (h100.price_per_hour, h100.currency) == (2.8665, "EUR")
    assert h100.extra["monthly_price"] == "2092.545 EUR a month"
    assert (h100.vcpus, h100.ram_gb) == (24.0, 240.0)
    assert found["H100-SXM-8-80G"].chip == "H100-SXM" and found["B300-SXM-8-288G"].chip == "B300"
    assert found["L4-2-24G"].chip_count == 2.0 and found["RENDER-S"].chip == "P100"
    assert len(found) == 7 and not result.rejects
    assert "a CPU-only instance type (DEV1-S)" in " ".join(result.notes)


def test_bad_rows_become_rejects():
    result = parse(answers("bad-rows.json"))
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'0,7875' is not a plain number", "GPU count 0.5 is not a whole number",
                  "no gpu_info.gpu_name", "hourly_price: no price (None)"):  # fmt: skip
        assert words in reasons
    assert "end of service (RENDER-S)" in " ".join(result.notes)
    assert len(result.rejects) == 4 and len(result.records) == 2


def test_an_earlier_archive_with_the_ecb_file_beside_the_products_replays_with_its_rates():
    ecb = payload("scaleway", "ecb-eurofxref-daily.xml", ECB_DAILY_URL)
    earlier = parse([*answers(), ecb])
    assert earlier.records == parse(answers()).records and not earlier.rejects
    rates = {r["currency"]: r for r in earlier.facts["fx_rates"]}
    assert (str(rates["USD"]["day"]), rates["USD"]["per_eur"]) == ("2017-03-08", 1.0556)
    assert {(r["source"], r["payload_ref"]) for r in rates.values()} == {("scaleway", ecb.ref)}


def test_fetch_reads_every_zone_page_by_page_without_a_key(tmp_path):
    full = {"servers": {f"T-{n}": {"gpu": 0, "ncpus": 2, "hourly_price": 0.01}
                        for n in range(PER_PAGE)}}  # fmt: skip
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        assert "x-auth-token" not in request.headers
        seen.append(str(request.url))
        if "fr-par-2" in request.url.path and request.url.params["page"] == "1":
            return httpx.Response(200, content=json.dumps(full).encode())
        return httpx.Response(200, content=(FIXTURES / "products-servers.json").read_bytes())

    fetched = fetch(context(tmp_path, SOURCE.name, handler))
    assert len(fetched) == len(ZONES) + 1  # fr-par-2 has a second page; no ECB file
    assert any("fr-par-2" in url and "page=2" in url for url in seen)
    assert all("ecb.europa.eu" not in url for url in seen)
    assert parse(read_payloads(tmp_path / STAMP, "scaleway")).records
