"""gmicloud: parse() on the recorded pricing page's GPU cards (starting prices per GPU-hour),
a card without a price, a unit not understood, and fetch() without a key."""

from __future__ import annotations

import httpx
import pytest

from chipcost.extract.gmicloud import PRICING_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import context, payloads_of

FIXTURES = FIXTURES / "gmicloud"
payload = payloads_of("gmicloud", PRICING_URL)


def test_each_card_is_a_starting_price_per_gpu_hour():
    result = parse([payload("pricing.html")])
    found = {r.instance_type: r for r in result.records}
    assert {k: r.price_per_hour for k, r in found.items()} == {
        "1x GB200": 8.0, "1x H100": 2.0, "1x H200": 2.6, "1x B200": 4.0,
    }  # fmt: skip
    h200 = found["1x H200"]
    assert (h200.chip, h200.chip_count, h200.pricing_model) == ("H200", 1.0, "on_demand")
    assert h200.extra["listed"] == "from $2.60 /GPU-hour" and h200.extra["starting_price"]
    assert found["1x B200"].extra["availability"] == "Limited Availability"
    # "NVIDIA H100 GPU": the page names no form factor or memory, so no chip is guessed.
    assert found["1x H100"].chip == "unknown"
    # The GB300 card prints "Pre order" where a price would be: a reject naming its offer.
    assert [r.offer["instance_type"] for r in result.rejects] == ["1x GB300"]


def test_a_unit_other_than_a_gpu_hour_is_refused():
    result = parse([payload("bad-rows.html")])
    reasons = " | ".join(r.reason for r in result.rejects)
    assert "price unit '/GPU-month' is not a GPU-hour" in reasons
    assert "price '$' is not one USD amount" in reasons
    assert {r.instance_type for r in result.records} == {"1x GB200", "1x B200"}


def test_fetch_needs_no_key(tmp_path):
    body = (FIXTURES / "pricing.html").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert fetched.url == PRICING_URL and len(parse([fetched]).records) == 4


H200_HEADING = (
    '<h3 class="p-6 pb-4 text-base font-medium leading-4 text-black sm:text-2xl sm:leading-6 '
    'lg:p-8 lg:pb-6 lg:pt-14">NVIDIA H200</h3>'
)


@pytest.mark.parametrize(
    "heading",
    [
        H200_HEADING.replace("NVIDIA H200", "NVIDIA® H200"),
        H200_HEADING.replace("NVIDIA H200", "NVIDIA(TM) H200™"),
        "<h2>NVIDIA H200</h2>",
        "<div>NVIDIA® H200</div>",
    ],
    ids=["registered", "trade-marks", "h2", "div"],
)
def test_a_card_is_read_whatever_its_heading_and_marks(heading):
    """A mark after the name, or a heading not an <h3>: the card is the same GPU under the same
    name, 1x H200 at $2.60 (the card was dropped with no reject, the offer withdrawn)."""
    text = (FIXTURES / "pricing.html").read_text(encoding="utf-8")
    assert H200_HEADING in text
    result = parse([payload("pricing.html", data=text.replace(H200_HEADING, heading).encode())])
    h200 = {r.instance_type: r for r in result.records}["1x H200"]
    assert (h200.chip, h200.price_per_hour, h200.extra["availability"]) == (
        "H200",
        2.6,
        "AVAILABLE NOW",
    )
    assert len(result.records) == 4 and len(result.rejects) == 1  # GB300's "Pre order"
