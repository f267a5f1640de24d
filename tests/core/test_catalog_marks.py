"""A registered or trade mark after a vendor's or product's name ('NVIDIA® H100', 'Intel(R)
Gaudi(R) 2') is no part of the name: the catalog finds the chip as without it."""

from __future__ import annotations

import pytest

from chipcost.core.catalog import canonical_chip, without_marks
from chipcost.extract.coreweave import PRICING_URL, parse
from tests.paths import FIXTURES
from tests.sources import payload

RECORDED = "pricing-2026-08-22.html"


@pytest.mark.parametrize(
    ("spelling", "chip"),
    [
        ("NVIDIA® H200", "H200"),
        ("NVIDIA™ H200", "H200"),
        ("NVIDIA(R) H200", "H200"),
        ("nvidia (tm) H200", "H200"),
        ("NVIDIA®H200", "H200"),
        ("NVIDIA® HGX B200", "B200"),
        ("H200™", "H200"),
    ],
)
def test_a_mark_after_a_name_names_the_same_chip(spelling, chip):
    assert canonical_chip(spelling) == chip


def test_without_marks_leaves_the_name_as_without_them():
    assert without_marks("NVIDIA® HGX B200™") == "NVIDIA HGX B200"
    assert without_marks("Intel(R) Gaudi(R) 2") == "Intel Gaudi 2"
    assert without_marks("NVIDIA H100 (80 GB)") == "NVIDIA H100 (80 GB)"


def test_a_source_naming_the_vendor_with_a_mark_finds_the_chip():
    """CoreWeave's recorded page with 'NVIDIA® HGX B200': the chip is B200 (it was 'unknown',
    the offer out of every chip comparison), the offer named as without the mark."""
    text = (FIXTURES / "coreweave" / RECORDED).read_text(encoding="utf-8")
    assert "NVIDIA HGX B200" in text
    data = text.replace("NVIDIA HGX B200", "NVIDIA® HGX B200").encode()
    result = parse([payload("coreweave", RECORDED, PRICING_URL, data=data)])
    chips = {r.chip for r in result.records if r.instance_type == "NVIDIA HGX B200"}
    assert chips == {"B200"}
