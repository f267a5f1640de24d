"""civo: parse() on the recorded pricing page's GPU tables (on demand and four commitment
terms), N/A cells counted, bad rows, and fetch() without a key."""

from __future__ import annotations

import httpx

from chipcost.extract.civo import PRICING_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import context, payloads_of

FIXTURES = FIXTURES / "civo"
payload = payloads_of("civo", PRICING_URL)


def offers(name: str = "pricing.html") -> dict[tuple[str, str, str], object]:
    found = parse([payload(name)]).records
    return {(r.instance_type, r.pricing_model, r.term): r for r in found}


def test_each_size_is_priced_per_instance_hour_on_demand_and_per_term():
    found = offers()
    small = found[("1x L40S Small", "on_demand", "none")]
    assert (small.chip, small.chip_count, small.price_per_hour) == ("L40S", 1.0, 1.29)
    assert (small.vcpus, small.ram_gb, small.disk_gb) == (12.0, 96.0, 200.0)
    terms = {t: found[("1x L40S Small", "commitment", t)].price_per_hour
             for t in ("6mo", "1yr", "2yr", "3yr")}  # fmt: skip
    assert terms == {"6mo": 1.19, "1yr": 1.09, "2yr": 0.99, "3yr": 0.89}
    assert found[("8x L40S Extra Large", "on_demand", "none")].price_per_hour == 10.32
    assert len(found) == 13


def test_a_size_rented_under_commitment_only_has_no_on_demand_price():
    found = offers()
    b200 = {k[1:]: r.price_per_hour for k, r in found.items() if k[0] == "8x B200 Extra Large"}
    assert b200 == {("commitment", "1yr"): 35.92, ("commitment", "2yr"): 31.92,
                    ("commitment", "3yr"): 30.32}  # fmt: skip
    notes = " ".join(parse([payload("pricing.html")]).notes)
    assert "on demand: not offered (N/A)" in notes and "6mo commitment: not offered" in notes


def test_bad_rows_become_rejects_with_reasons():
    result = parse([payload("bad-rows.html")])
    reasons = " | ".join(r.reason for r in result.rejects)
    assert "size detail 'NVIDIA L40S - 48GB' is not '<count> x <GPU>'" in reasons
    assert "8x L40S Extra Large none: no price listed (Contact us)" in reasons
    assert {r.term for r in result.records} == {"6mo", "1yr", "2yr", "3yr"}


def test_fetch_needs_no_key(tmp_path):
    body = (FIXTURES / "pricing.html").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == PRICING_URL
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert len(parse([fetched]).records) == 13
