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


def edited(*pairs: str) -> bytes:
    """The recorded page with each OLD string replaced by its NEW one (pairs in turn)."""
    text = (FIXTURES / "modal" / "pricing.html").read_text(encoding="utf-8")
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert old in text
        text = text.replace(old, new)
    return text.encode("utf-8")


@pytest.mark.parametrize("mark", ["®", "™", "(R)", " (TM)"])
def test_a_mark_after_the_vendor_names_the_same_gpu(mark):
    """'Nvidia® H100' is the H100 of 'Nvidia H100', under the same name (its history whole); the
    row was dropped with no reject, the offer withdrawn."""
    result = parse([payload("pricing.html", data=edited("Nvidia H100<", f"Nvidia{mark} H100<"))])
    records = {r.instance_type: r for r in result.records}
    assert result.rejects == [] and len(records) == 10
    assert (records["1x H100"].chip, records["1x H100"].price_per_hour) == ("H100-SXM", 3.9492)


@pytest.mark.parametrize(
    ("old", "new", "said", "kept"),
    [
        (
            "$0.001097 / sec",
            "$3.95 / hr",
            "GPU line 'Nvidia H100 $3.95 / hr': unit '/ hr' is not per second, as the page "
            "prices GPUs: not read, nor converted",
            "1x H100",
        ),
        (
            "Nvidia H200<",
            "Nvidia H200 (141 GB)<",
            "GPU line 'Nvidia H200 (141 GB) $0.001261 / sec': the GPU's name "
            "'Nvidia H200 (141 GB)' is not read (a sign in it no GPU name here has)",
            None,
        ),
        (
            "Nvidia L4<",
            "Nvidia L4+<",
            "GPU line 'Nvidia L4+ $0.000222 / sec': the GPU's name 'Nvidia L4+' is not read "
            "(a sign in it no GPU name here has)",
            None,
        ),
        (
            "$0.000164 / sec",
            "0.000164 / sec",
            "GPU line 'Nvidia T4 0.000164 / sec': no dollar price is read in it",
            None,
        ),
    ],
    ids=["per-hour", "memory-in-brackets", "plus", "no-dollar"],
)
def test_a_gpu_line_not_read_is_a_reject_naming_it(old, new, said, kept):
    """A line of the GPU list that is no row the pattern reads is a reject saying which and
    why; it gave no record and no reject, so the GPU was withdrawn on a run said ok. A price
    per hour is not converted; its GPU's offer, named, is kept open."""
    result = parse([payload("pricing.html", data=edited(old, new))])
    assert [r.reason for r in result.rejects] == [said]
    assert [(r.offer or {}).get("instance_type") for r in result.rejects] == [kept]
    assert len(result.records) == 9


@pytest.mark.parametrize(
    ("old", "new", "listed"),
    [
        ("$0.001097 / sec", "$0.001097 per second", "$0.001097 per second"),
        ("$0.001097 / sec", "$0.001097/GPU/sec", "$0.001097 /GPU/sec"),
        ("$0.001097", "$&nbsp;0.001097", "$ 0.001097 / sec"),
    ],
    ids=["per-second", "per-gpu-per-sec", "no-break-space"],
)
def test_a_price_per_second_however_written_is_read(old, new, listed):
    result = parse([payload("pricing.html", data=edited(old, new))])
    h100 = {r.instance_type: r for r in result.records}["1x H100"]
    assert result.rejects == [] and len(result.records) == 10
    assert (h100.price_per_hour, h100.extra["listed"]) == (3.9492, listed)


@pytest.mark.parametrize(
    ("new", "said"),
    [
        ("Contact us", "Nvidia H100: price: no price listed (Contact us) (listed 'Contact us')"),
        ("—", "Nvidia H100: price: no price listed (—) (listed '—')"),
        (
            "Coming soon.",
            "Nvidia H100: price: no price listed (Coming soon) (listed 'Coming soon')",
        ),
        ("ask us", "GPU line 'Nvidia H100 ask us': no dollar price is read in it"),
    ],
    ids=["contact-us", "dash", "coming-soon", "words"],
)
def test_a_gpu_line_with_no_price_sign_is_a_reject_saying_so(new, said):
    """'Nvidia H100 Contact us' (no '$', no unit) was no line the list was read for: no record
    and no reject, the H100 withdrawn on a run said ok. The page's word that it lists no price
    is refused as every source refuses it, its offer withdrawn; other words, a line not read."""
    result = parse([payload("pricing.html", data=edited("$0.001097 / sec", new))])
    assert [r.reason for r in result.rejects] == [said]
    assert [r.offer for r in result.rejects] == [{}]
    assert len(result.records) == 9 and "1x H100" not in {r.instance_type for r in result.records}
