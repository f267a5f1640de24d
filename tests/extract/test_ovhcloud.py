"""ovhcloud: parse() on the public catalog's GPU flavors (euro prices stored as stated), bad rows,
an earlier archive with the ECB's file beside the catalog, and fetch() without a key."""

from __future__ import annotations

import json

import httpx
import pytest

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


def test_an_earlier_archive_with_the_ecb_file_beside_the_catalog_replays_with_its_rates():
    ecb = payload("ovhcloud", "ecb-eurofxref-daily.xml", ECB_DAILY_URL)
    earlier = parse([*answers(), ecb])
    assert earlier.records == parse(answers()).records and not earlier.rejects
    rates = {r["currency"]: r for r in earlier.facts["fx_rates"]}
    assert (str(rates["USD"]["day"]), rates["USD"]["per_eur"]) == ("2017-03-08", 1.0556)
    assert {(r["source"], r["payload_ref"]) for r in rates.values()} == {("ovhcloud", ecb.ref)}


def test_fetch_needs_no_key_and_archives_the_catalog_only(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.host == "api.ovh.com"
        return httpx.Response(200, content=(FIXTURES / "catalog.json").read_bytes())

    fetched = fetch(context(tmp_path, SOURCE.name, handler))
    assert [p.url for p in fetched] == [CATALOG_URL]
    assert len(parse(read_payloads(tmp_path / STAMP, "ovhcloud")).records) == 6


def with_pricings(*pricings: dict) -> list:
    """The recorded catalog with h100-380.consumption's pricings replaced by `pricings`."""
    body = json.loads((FIXTURES / "catalog.json").read_bytes())
    addon = next(a for a in body["addons"] if a["planCode"] == "h100-380.consumption")
    recorded = addon["pricings"][0]
    addon["pricings"] = [{**recorded, **p} for p in pricings]
    return [payload("ovhcloud", "catalog.json", CATALOG_URL, data=json.dumps(body).encode())]


def h100(result) -> list:
    return [r for r in result.records if r.instance_type == "h100-380"]


@pytest.mark.parametrize(
    ("interval", "unit", "price", "hourly"),
    [
        (1, "hour", 280_000_000, 2.8),
        (720, "hour", 720 * 280_000_000, 2.8),  # a price for 720 hours, not per hour
        (3, "hour", 3 * 150_000_000, 1.5),
        (1, "day", 24 * 280_000_000, 2.8),
        (7, "day", 7 * 24 * 100_000_000, 1.0),
    ],
)
def test_a_pricing_is_read_over_its_period(interval, unit, price, hourly):
    result = parse(with_pricings({"interval": interval, "intervalUnit": unit, "price": price}))
    [record] = h100(result)
    assert record.price_per_hour == pytest.approx(hourly)


@pytest.mark.parametrize(
    ("interval", "unit", "named"),
    [
        (1, "minute", "1 'minute'"),
        (1, "week", "1 'week'"),
        (1, None, "1 None"),
        (1, "HOUR", "1 'HOUR'"),
        (0, "hour", "interval is not a whole number"),
        ("720", "hour", "interval is not a whole number"),
        (None, "hour", "interval is not a whole number"),
        (1.5, "hour", "interval is not a whole number"),
    ],
)
def test_a_period_not_read_is_a_reject_naming_it(interval, unit, named):
    result = parse(
        with_pricings({"interval": interval, "intervalUnit": unit, "price": 280_000_000})
    )
    assert not h100(result)
    [refused] = [r for r in result.rejects if r.sku == "h100-380.consumption"]
    assert "pricing period" in refused.reason and named in refused.reason
    assert len(result.records) == 5  # the other flavours load


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ((1, "hour", 280_000_000), (1, "hour", 306_000_000)),
        ((1, "hour", 280_000_000), (720, "hour", 280_000_000)),
        ((1, "day", 24 * 280_000_000), (1, "hour", 300_000_000)),
    ],
)
@pytest.mark.parametrize("order", [1, -1])
def test_two_hourly_pricings_at_different_prices_are_refused(first, second, order):
    pricings = [{"interval": i, "intervalUnit": u, "price": p} for i, u, p in (first, second)][
        ::order
    ]
    result = parse(with_pricings(*pricings))
    assert not h100(result)
    [refused] = [r for r in result.rejects if r.sku == "h100-380.consumption"]
    assert "2 pricings per hour at different prices" in refused.reason
    assert f"{first[2]} per {first[0]} {first[1]}" in refused.reason


def test_pricings_alike_over_their_periods_are_one_price_and_a_month_is_kept_apart():
    result = parse(
        with_pricings(
            {"interval": 1, "intervalUnit": "hour", "price": 280_000_000},
            {"interval": 1, "intervalUnit": "day", "price": 24 * 280_000_000},
            {"interval": 1, "intervalUnit": "month", "price": 194_000_000_000},
        )
    )
    [record] = h100(result)
    assert record.price_per_hour == 2.8 and not result.rejects
