"""civo: parse() on the recorded pricing page's GPU tables (on demand and four commitment
terms), N/A cells counted, bad rows, a price in another unit than the hour, the section twice,
and fetch() without a key."""

from __future__ import annotations

import httpx
import pytest

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


def recorded(*changes: tuple[str, str]):
    """The recorded page with each (old, new) replaced once."""
    html = (FIXTURES / "pricing.html").read_text()
    for old, new in changes:
        assert html.count(old) == 1, old
        html = html.replace(old, new)
    return payload("pricing.html", data=html.encode())


@pytest.mark.parametrize(
    ("price", "unit"),
    [
        # 8x L40S Extra Large's price per GPU: read as the instance's hour, 8x too cheap a chip
        ("$1.29", "per GPU per hour"),
        ("$0.0215", "per minute"),
        ("$7,533.60", "per month"),
        ("$0.0029", "per second"),
    ],
)
def test_a_price_in_another_unit_than_the_instances_hour_is_a_reject_naming_it(price, unit):
    """The unit <span> the recorded page prints after each price ("per hour") is read: another
    is refused naming it, the size's other terms loaded."""
    result = parse([recorded(("$10.32<span>per hour</span>", f"{price}<span>{unit}</span>"))])
    name = "8x L40S Extra Large"
    assert not [
        r for r in result.records if (r.instance_type, r.pricing_model) == (name, "on_demand")
    ]
    [refused] = [r for r in result.rejects if r.sku == name]
    assert refused.reason == (
        f"{name} none: price unit {unit!r} of {price!r} is not an instance-hour: not read as one"
    )
    assert len(result.records) == 12  # its commitment terms, each "per hour", still load


def test_the_hour_the_page_prints_is_the_instances_hour():
    spaced = recorded(("$10.32<span>per hour</span>", "$10.32<span> Per  Hour </span>"))
    found = {(r.instance_type, r.pricing_model): r for r in parse([spaced]).records}
    assert found[("8x L40S Extra Large", "on_demand")].price_per_hour == 10.32


SECTION = '<section class="pricing-product" id="nvidia-gpus">'


def twice(html: str, copy: str | None = None) -> str:
    """`html` with its NVIDIA GPUs section followed by a second copy (`copy`, else itself)."""
    start, end = html.index(SECTION), html.index("</section>") + len("</section>")
    return html[:end] + (copy or html[start:end]) + html[end:]


def test_a_page_pricing_its_gpu_section_twice_differently_loads_neither_price():
    html = (FIXTURES / "pricing.html").read_text()
    section = html[html.index(SECTION) : html.index("</section>") + len("</section>")]
    dearer = section.replace("$10.32<span>per hour</span>", "$11.04<span>per hour</span>")
    for page in (twice(html, dearer), twice(html.replace(section, dearer), section)):
        result = parse([payload("pricing.html", data=page.encode())])
        assert ("8x L40S Extra Large", "on_demand") not in {
            (r.instance_type, r.pricing_model) for r in result.records
        }
        reasons = [r.reason for r in result.rejects if "8x L40S Extra Large" in r.reason]
        assert len(reasons) == 2 and all("priced 2 times in one payload" in r for r in reasons)
        assert "10.32" in reasons[0] and "11.04" in reasons[0]
        assert len(result.records) == 12  # the copies agree on every other price


def test_a_page_pricing_its_gpu_section_twice_alike_loads_it_once():
    html = (FIXTURES / "pricing.html").read_text()
    result = parse([payload("pricing.html", data=twice(html).encode())])
    assert not result.rejects
    assert prices(result.records) == prices(parse([payload("pricing.html")]).records)


def prices(records) -> dict[tuple[str, str], float]:
    return {(r.instance_type, r.term): r.price_per_hour for r in records}
