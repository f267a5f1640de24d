"""crusoe: parse() on a recording of the pricing page (its GPU instances list, read by its
column headings), cells with no price, bad rows, a changed layout, and fetch() without a key."""

from __future__ import annotations

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError
from chipcost.extract.crusoe import PRICING_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "crusoe"
RECORDED = "pricing-2026-08-22.html"
payload = payloads_of("crusoe", PRICING_URL)


def offers(name: str = RECORDED) -> dict[tuple[str, str], object]:
    found = parse([payload(name)]).records
    return {(r.instance_type, r.pricing_model): r for r in found}


def edited(old: str, new: str) -> bytes:
    """The recorded page with one text replaced (it must be there)."""
    text = (FIXTURES / RECORDED).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new).encode("utf-8")


def test_the_recorded_page_loads_its_six_on_demand_prices_per_gpu_hour():
    found = offers()
    assert {key: (r.chip, r.price_per_hour) for key, r in found.items()} == {
        ("1x NVIDIA H200 141GB HGX", "on_demand"): ("H200", 4.29),
        ("1x NVIDIA H100 80GB HGX", "on_demand"): ("H100-SXM", 3.9),
        ("1x NVIDIA A100 80GB SXM", "on_demand"): ("A100-80GB", 2.3),
        ("1x NVIDIA A100 80GB PCIe", "on_demand"): ("A100-80GB-PCIe", 2.0),
        ("1x NVIDIA L40S 48GB", "on_demand"): ("L40S", 1.5),
        ("1x AMD MI300X 192GB", "on_demand"): ("MI300X", 3.45),
    }
    h100 = found[("1x NVIDIA H100 80GB HGX", "on_demand")]
    assert (h100.chip_count, h100.region, h100.extra["price_basis"]) == (
        1.0, "global", "per GPU-hour")  # fmt: skip


def test_contact_sales_cells_are_counted_in_a_note_not_rejected():
    """Every spot cell and the GB200, B200 and MI355X items read "Contact sales": twelve cells,
    one note, no reject; the self-serve deployments list (an H100 at $5.50) is not read."""
    result = parse([payload(RECORDED)])
    assert result.rejects == []
    [note] = [n for n in result.notes if "no price" in n]
    assert note.startswith("12 row(s) not loaded: a price cell with no price")
    assert "1x NVIDIA GB200 186GB NVL72 on-demand" in note
    assert not [n for n in result.notes if "unknown" in n]
    assert 5.5 not in {r.price_per_hour for r in result.records}


def test_bad_rows_become_rejects_and_an_unread_column_is_named():
    result = parse([payload("bad-rows.html")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("1x NVIDIA H100 80GB HGX on-demand: price '$3-4/GPU-hr' is not one USD amount",
                  "1x NVIDIA L40S 48GB on-demand: price '$1.50/hr' is not per GPU-hour",
                  "a GPU item with no model heading"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 3
    assert ("1x NVIDIA H200 141GB HGX", "on_demand") in offers("bad-rows.html")
    assert "price column(s) not read: reserved cluster" in " ".join(result.notes)


SECTION = '<div class="pricing-dd">'
H100 = ("1x NVIDIA H100 80GB HGX", "on_demand")


def with_a_copy(price: str, *, hidden: bool, after: bool = False) -> bytes:
    """The recorded page with a copy of its GPU instances section, the H100 at `price` in it:
    before the section (in a hidden div or shown) or after it."""
    text = (FIXTURES / RECORDED).read_text(encoding="utf-8")
    start = text.index(SECTION)
    section = text[start : text.index(SECTION, start + 1)]  # the next section opens after it
    copy = section.replace("$3.90/GPU-hr", f"{price}/GPU-hr")
    copy = f'<div style="display:none">{copy}</div>' if hidden else copy
    return text.replace(section, section + copy if after else copy + section).encode("utf-8")


@pytest.mark.parametrize(
    ("hidden", "after"),
    [(True, False), (False, False), (False, True)],
    ids=["hidden-copy-first", "second-section-first", "second-section-after"],
)
def test_a_gpu_priced_otherwise_in_a_second_copy_of_the_list_is_refused(hidden, after):
    """The GPU list twice, the H100 at $7.80 in one copy and $3.90 in the other: which the
    provider means cannot be told, so neither loads and both are rejects saying so (the first
    copy's was loaded: 7.80 with the copy first); the other items, priced alike, load once."""
    result = parse([payload(RECORDED, data=with_a_copy("$7.80", hidden=hidden, after=after))])
    found = {(r.instance_type, r.pricing_model): r.price_per_hour for r in result.records}
    assert H100 not in found
    assert found == {key: r.price_per_hour for key, r in offers().items() if key != H100}
    assert [r.reason for r in result.rejects] == [
        "offer crusoe / global / 1x NVIDIA H100 80GB HGX / on_demand / none / none / default is "
        "priced 2 times in one payload (3.9 USD/h, 7.8 USD/h): which price the provider means "
        "cannot be told, so none is loaded"
    ] * 2


def test_a_second_copy_of_the_list_that_prices_alike_loads_once():
    result = parse([payload(RECORDED, data=with_a_copy("$3.90", hidden=False))])
    assert result.rejects == [] and len(result.records) == 6
    assert {(r.instance_type, r.pricing_model): r.price_per_hour for r in result.records} == {
        key: r.price_per_hour for key, r in offers().items()
    }
    [note] = [n for n in result.notes if "no price" in n]
    assert note.startswith("12 row(s) not loaded")  # each cell of the two copies counted once


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("GPU instances pricing", "GPU pricing", "no 'gpu instances pricing' section"),
        ('class="pricing-rich w-richtext"', 'class="price-cell"', "has a price cell"),
    ],
    ids=["section-renamed", "price-cells-renamed"],
)
def test_a_changed_layout_fails_in_one_line_naming_the_url(old, new, said):
    with pytest.raises(ParseError) as error:
        parse([payload(RECORDED, data=edited(old, new))])
    message = str(error.value)
    assert "\n" not in message and PRICING_URL in message and said in message
    assert "prices loaded before are kept" in message


def test_a_renamed_heading_and_an_empty_list_are_refused():
    with pytest.raises(ParseError, match="lacks On-demand"):
        parse([payload("bad-renamed-field.html")])
    with pytest.raises(ParseError, match="gave no offer"):
        parse([payload("empty.html")])


def test_fetch_needs_no_key_and_archives_the_page(tmp_path):
    body = (FIXTURES / RECORDED).read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == PRICING_URL
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert fetched.url == PRICING_URL
    assert len(parse(read_payloads(tmp_path / STAMP, "crusoe")).records) == 6
