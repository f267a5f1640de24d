"""crusoe: parse() on the pricing page's GPU table (read by its column headers), bad rows, an
unread column named, and fetch() without a key."""

from __future__ import annotations

import httpx

from chipcost.archive import read_payloads
from chipcost.extract.crusoe import PRICING_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "crusoe"
payload = payloads_of("crusoe", PRICING_URL)


def offers(name: str = "pricing.html") -> dict[tuple[str, str, str], object]:
    found = parse([payload(name)]).records
    return {(r.instance_type, r.pricing_model, r.term): r for r in found}


def test_each_gpu_is_a_per_gpu_hour_price_on_demand_and_spot():
    found = offers()
    h100 = found[("1x H100 80GB", "on_demand", "none")]
    assert (h100.chip, h100.chip_count, h100.price_per_hour, h100.region) == (
        "H100-SXM", 1.0, 3.9, "global")  # fmt: skip
    assert found[("1x H100 80GB", "spot", "none")].price_per_hour == 1.6
    assert found[("1x H200 141GB", "on_demand", "none")].chip == "H200"
    assert found[("1x MI300x 192GB", "spot", "none")].chip == "MI300X"
    # Two A100s of one memory, told apart by form factor in the name; 40 GB by its memory.
    assert found[("1x A100 SXM 80GB", "on_demand", "none")].price_per_hour == 1.95
    assert found[("1x A100 PCIe 80GB", "on_demand", "none")].price_per_hour == 1.65
    assert found[("1x A100 PCIe 40GB", "on_demand", "none")].chip == "A100-40GB"
    assert len(found) == 15


def test_cells_without_a_price_are_rejects_with_the_cell_text():
    result = parse([payload("pricing.html")])
    reasons = [r.reason for r in result.rejects]
    assert "1x H200 141GB spot: no price listed (Contact Us)" in reasons
    assert sum("6-month: no price listed (Contact Us)" in r for r in reasons) == 8
    assert len(reasons) == 25  # H200 spot, and three commitment columns of eight GPUs


def test_bad_rows_become_rejects_and_an_unread_column_is_named():
    result = parse([payload("bad-rows.html")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$ 2-3' is not one USD amount", "spot: price 'call'",
                  "a table row with no GPU name",
                  "1x L40S 48GB spot: no price listed (—)"):  # fmt: skip
        assert words in reasons
    found = {(r.instance_type, r.pricing_model, r.term): r.price_per_hour
             for r in result.records}  # fmt: skip
    assert found == {("1x L40S 48GB", "on_demand", "none"): 1.0,
                     ("1x L40S 48GB", "commitment", "6mo"): 0.85}  # fmt: skip
    assert "price column(s) not read: reserved cluster" in " ".join(result.notes)


def test_fetch_needs_no_key_and_archives_the_page(tmp_path):
    body = (FIXTURES / "pricing.html").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == PRICING_URL
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert fetched.url == PRICING_URL
    assert len(parse(read_payloads(tmp_path / STAMP, "crusoe")).records) == 15
