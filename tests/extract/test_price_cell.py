"""A price cell's number read strictly (extract/_price_cell.py): one amount, grouped in threes
at most once, one decimal mark, no minus before it; and every HTML source reading its cells
through the unit and "from" checks.

On c96d2408 a malformed number was read as a made-up price: '$2..49' and '$2.4.9' as 249,
'$2,49,99' as 24999, and a minus anywhere but the cell's first character dropped ('USD
-2.49' as 2.49); crusoe loaded '$1..45/GPU-hr' as an L40S at 145.00 (its price 1.50).
"""

from __future__ import annotations

import pytest

from chipcost.extract._kit import PER_GPU, PER_INSTANCE, PriceError, parse_price, price_of
from tests.paths import FIXTURES
from tests.sources import payloads_of


@pytest.mark.parametrize(
    "text",
    [
        "$2..49",
        "$2.4.9",
        "$2,49,99",
        "$1,23,456.00",
        "12,34.5",
        "1,234,5",
        "1.234.5",
        "2..",
        "$\u0662.49",
    ],
)
def test_a_number_of_no_amount_shape_is_refused_naming_the_cell(text):
    with pytest.raises(PriceError, match="is not a number chipcost reads") as refused:
        parse_price(text)
    assert repr(text) in str(refused.value)


@pytest.mark.parametrize(
    "text",
    # a minus after the amount ending the cell is a debit as accounts write it ("2.49-" was
    # read as 2.49)
    ["USD -2.49", "$-3.90/GPU-hr", "- $2.49", "US$ −2.49", "−2.49", "$ -2", "2.49-", "$2.49 −"],
)
def test_a_minus_before_the_amount_is_refused_as_negative(text):
    with pytest.raises(PriceError, match="is negative"):
        parse_price(text, PER_GPU)


@pytest.mark.parametrize(
    ("text", "price"),
    [
        # the shapes the recorded pages and the tests before them use stay read as they were
        ("$1,234.50", 1234.5),
        ("1.234,50", 1234.5),
        ("1,234", 1234.0),
        ("1,234,567.89", 1234567.89),
        ("1.234.567", 1234567.0),
        ("0,499", 0.499),
        ("2,49", 2.49),
        ("1.234", 1.234),
        ("$2.49.", 2.49),  # the sentence's full stop
        ("$2.49 / GPU / hr", 2.49),
        ("per GPU-hr $2.49", 2.49),  # a hyphen in a word before it is no minus
    ],
)
def test_the_amount_shapes_providers_use_are_read(text, price):
    assert parse_price(text) == price


def test_a_hyphen_after_the_amount_is_still_a_range_not_a_sign():
    with pytest.raises(PriceError, match="not one USD amount"):
        parse_price("$2-3")


def test_price_of_says_why_in_the_reject_reason():
    assert price_of("$2..49", "H100 price", PER_INSTANCE) == (
        None,
        "H100 price: price '$2..49' is not a number chipcost reads ('2..49': one amount, its "
        "digits grouped in threes by one separator at most, one decimal mark): not read as one",
    )


def test_crusoe_refuses_a_doubled_decimal_point_instead_of_loading_145():
    from chipcost.extract.crusoe import PRICING_URL, parse

    page = (FIXTURES / "crusoe" / "pricing-2026-08-22.html").read_text(encoding="utf-8")
    assert page.count("$1.50/GPU-hr") == 1
    spoiled = page.replace("$1.50/GPU-hr", "$1..45/GPU-hr").encode("utf-8")
    result = parse([payloads_of("crusoe", PRICING_URL)("pricing-2026-08-22.html", data=spoiled)])
    assert "1x NVIDIA L40S 48GB" not in {r.instance_type for r in result.records}
    [reject] = [r for r in result.rejects if "L40S" in r.reason]
    assert "'$1..45/GPU-hr' is not a number chipcost reads" in reject.reason
