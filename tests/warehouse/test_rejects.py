"""Refused rows said by kind: each row's own values (a price, an instance type, a region, a
quoted text) taken out, the values every row shares kept; reasons as the parsers and the
validator write them."""

from __future__ import annotations

import pytest

from chipcost.warehouse.rejects import is_refused_said, reason_kinds, refused_said


def kinds(*reasons: str) -> list[tuple[str, int]]:
    return reason_kinds((reason, 1) for reason in reasons)


@pytest.mark.parametrize(
    ("reasons", "said"),
    [
        (  # the validator's plausibility check: sixty prices, one kind
            [
                f"per-chip hourly price {price} outside the plausible range 0.01-150.0 USD"
                for price in (460.35, 425.7, 198.0, 153.43)
            ],
            [("per-chip hourly price … outside the plausible range 0.01-150.0 USD", 4)],
        ),
        (  # the spot feed: each row named by its type and region, its text quoted
            [
                "p6-b200.48xlarge in us-east-1: no spot market: the feed lists 'N/A*' (not "
                "offered as spot here)",
                "p4d.24xlarge in eu-west-1: no spot market: the feed lists 'N/A' (not offered "
                "as spot here)",
            ],
            [("… in …: no spot market: the feed lists '…' (not offered as spot here)", 2)],
        ),
        (  # rows named in words of their own: the kind after the name
            [
                "NVIDIA GB200 NVL72 spot: no price listed (N/A)",
                "NVIDIA L40S spot: no price listed (N/A)",
                "NVIDIA HGX B300 on-demand: no price listed (empty)",
            ],
            # one row of a kind is said whole, its name too
            [
                ("no price listed (N/A)", 2),
                ("NVIDIA HGX B300 on-demand: no price listed (empty)", 1),
            ],
        ),
        (  # Azure's unit and currency: a value every row shares is said
            ["unit '1 Second' is not '1 Hour'"] * 3
            + ["currency 'EUR' is not USD (the request asked for USD)"] * 2,
            [
                ("unit '1 Second' is not '1 Hour'", 3),
                ("currency 'EUR' is not USD (the request asked for USD)", 2),
            ],
        ),
        (  # a ": " inside brackets names no row
            [
                f"chip_count {n} is more chips than any set rented as one (256: v6e-256 "
                "(gcp_tpu_slices.csv)): a misread count"
                for n in ("1e+09", "300")
            ],
            [
                (
                    "chip_count … is more chips than any set rented as one (256: v6e-256 "
                    "(gcp_tpu_slices.csv)): a misread count",
                    2,
                )
            ],
        ),
    ],
)
def test_reasons_are_grouped_by_kind_without_the_rows_own_values(reasons, said):
    assert kinds(*reasons) == said


def test_the_line_counts_every_row_and_the_most_common_kinds():
    found = kinds(
        *["price is zero"] * 5,
        *[f"price '{text}' is not a number" for text in ("N/A", "call", "tbd")],
        "unknown region name in the feed: add it to REGION_ALIASES",
    )
    line = refused_said(found)
    assert line == (
        "9 rows refused: 5 for price is zero, 3 for price '…' is not a number, 1 for 1 other reason"
    )
    assert is_refused_said(line) and not is_refused_said("format drift (azure): new x")
    assert refused_said(kinds("price is zero")) == "1 row refused: price is zero"
