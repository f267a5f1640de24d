"""Numbers read from providers' text (extract/_kit.py): ASCII decimal numbers only.

float() reads more than a price list or feed writes: "1_7.776" as 17.776 (digit grouping),
"\u0667.1220" as 7.122 (Arabic-Indic digits), " 2.5\n" as 2.5. Each of those loaded as a price
before; each is refused now, naming the cell.
"""

from __future__ import annotations

import pytest

from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import decimal, json_price, parse_count, positive


class Refused(Exception):
    pass


@pytest.mark.parametrize(
    ("text", "value"),
    [("17.776", 17.776), ("9.0E-4", 0.0009), ("3", 3.0), ("1e2", 100.0), (2.5, 2.5), (7, 7.0)],
)
def test_a_plain_decimal_number_is_read(text, value):
    assert positive(text, "PricePerUnit", Refused) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        "1_7.776",  # float() reads 17.776
        "2_3.8843",
        "\u0667.1220",  # float() reads 7.122
        "\u0662\u0663.8843",
        "\uff12.5",  # a full-width 2
        " 2.5",
        "2.5\n",
        "+2.5",
        "-2.5",
        "0",
        "0.0000000000",
        "infinity",
        "nan",
        "1e400",  # past a float: infinity
        ".5",
        "5.",
        "",
        True,
        None,
        10**400,
    ],
)
def test_anything_else_is_refused_naming_the_cell(text):
    with pytest.raises(Refused) as refused:
        positive(text, "PricePerUnit", Refused)
    assert str(refused.value) == f"PricePerUnit {text!r} is not a positive number"


def test_decimal_reads_zero_and_nothing_float_would_read_otherwise():
    assert decimal("0.0000000000") == 0.0 and decimal(0) == 0.0
    assert [decimal(t) for t in ("1_0", "\u0661", " 1", "1 ", "inf", "-1")] == [None] * 6


@pytest.mark.parametrize("text", ["2_048", "\u0662\u0660\u0664\u0668", "1_6"])
def test_a_host_spec_in_other_digits_is_left_empty(text):
    assert host_spec(text) is None
    assert host_spec("2,048") == 2048.0 and host_spec(" 96 ") == 96.0 and host_spec(192) == 192.0


def test_a_json_price_in_other_digits_is_refused():
    assert json_price("2.19", "price") == (2.19, "")
    value, why = json_price("\u0662.19", "price")
    assert value is None and "is not a plain number" in why


@pytest.mark.parametrize("text", ["\u0668", "\u0668x", " \u0661\u0666 "])
def test_a_gpu_count_in_other_digits_is_refused(text):
    with pytest.raises(ValueError, match="is not a whole number of GPUs"):
        parse_count(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2,048", 2048.0),
        ("2 048", 2048.0),
        ("2\u00a0048", 2048.0),
        ("2\u2009048", 2048.0),
        ("1,024,000", 1024000.0),
        ("1,234.5", 1234.5),
        ("1 234,5", 1234.5),
        ("22,5", 22.5),  # a decimal comma: it read 225, every comma dropped
        ("1,2,3", None),
        ("1,234,5", None),  # a decimal after a thousands comma, or a group cut short
        ("1.234,5", None),  # a point grouping thousands, or a second decimal mark
        ("2 90", None),
        ("2, 048", None),
    ],
)
def test_a_host_spec_reads_grouped_thousands_and_a_decimal_comma_or_nothing(text, value):
    assert host_spec(text) == value
