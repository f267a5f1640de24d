"""modal: parse() on the pricing page (reconstructed): per-second GPU prices stored per GPU-hour,
bad rows, an empty page refused, and fetch() without a key."""

from __future__ import annotations

import httpx
import pytest

from chipcost.core.errors import ParseError
from chipcost.extract.modal import PAGE_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import context, payloads_of

payload = payloads_of("modal", PAGE_URL)


def test_a_per_second_price_is_stored_per_gpu_hour():
    records = {r.instance_type: r for r in parse([payload("pricing.html")]).records}
    h100 = records["1x H100"]
    # $0.001097 a second is $3.9492 an hour (the page's own H100 price, as quoted).
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-SXM", 1.0, 3.9492)
    assert (h100.region, h100.pricing_model) == ("global", "on_demand")
    assert h100.extra["listed"] == "$0.001097 / sec"
    assert records["1x A100, 80 GB"].chip == "A100-80GB"
    assert records["1x A100, 40 GB"].chip == "A100-40GB"
    assert records["1x T4"].price_per_hour == pytest.approx(0.5904)
    assert len(records) == 10  # the CPU and memory rows are no GPU


H100_ROW = '<p class="gpu-name">Nvidia H100</p><p class="price">$0.001097 / sec</p></div>'


def with_a_copy(price: str, *, after: bool = False) -> bytes:
    """The page with a second H100 row at `price` a second, before its own or after it."""
    text = (FIXTURES / "modal" / "pricing.html").read_text(encoding="utf-8")
    row = text[text.rindex('<div class="price-row">', 0, text.index(H100_ROW)) :]
    row = row[: row.index(H100_ROW) + len(H100_ROW)]
    copy = row.replace("$0.001097", price)
    return text.replace(row, row + copy if after else copy + row).encode("utf-8")


@pytest.mark.parametrize("after", [False, True], ids=["copy-first", "copy-after"])
def test_a_gpu_priced_twice_otherwise_is_refused(after):
    """An H100 row at $0.001920 a second beside the page's $0.001097: which Modal means cannot
    be told, so neither loads and both are rejects saying so (the first row's was loaded: 6.912
    an hour with the copy first); the other GPUs load."""
    result = parse([payload("pricing.html", data=with_a_copy("$0.001920", after=after))])
    records = {r.instance_type: r.price_per_hour for r in result.records}
    assert "1x H100" not in records and len(records) == 9
    assert [r.reason for r in result.rejects] == [
        "offer modal / global / 1x H100 / on_demand / none / none / default is priced 2 times in "
        "one payload (3.9492 USD/h, 6.912 USD/h): which price the provider means cannot be told, "
        "so none is loaded"
    ] * 2


def test_a_gpu_listed_twice_at_one_price_loads_once():
    result = parse([payload("pricing.html", data=with_a_copy("$0.001097"))])
    assert result.rejects == [] and len(result.records) == 10
    assert {r.instance_type: r.price_per_hour for r in result.records}["1x H100"] == 3.9492


def test_bad_rows_become_rejects_and_an_unknown_gpu_is_named():
    result = parse([payload("bad-rows.html")])
    reasons = " | ".join(r.reason for r in result.rejects)
    assert "Nvidia A100, 80 GB: price: no price listed (—)" in reasons
    assert "Nvidia L4: price: price '$-0.0002' is not a plain number" in reasons
    assert {r.instance_type for r in result.records} >= {"1x H100"}


def test_a_page_without_gpu_rows_is_refused():
    with pytest.raises(ParseError, match="modal: the listing at https://modal.com/pricing"):
        parse([payload("empty.html")])


def test_fetch_reads_the_page_with_no_key(tmp_path):
    body = (FIXTURES / "modal" / "pricing.html").read_bytes()

    def answer(request: httpx.Request) -> httpx.Response:
        assert "Authorization" not in request.headers and str(request.url) == PAGE_URL
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, answer))
    assert len(parse([fetched]).records) == 10
