"""The pandera schema and duplicate rules: every refused record comes back with its reason."""

from __future__ import annotations

import math

import pytest

from chipcost.transform.validate import validate_batches, validate_records
from tests.helpers import record

SOURCES = {"aws-pricing-api": "aws"}


def test_good_records_pass():
    result = validate_records(
        [
            record(),
            record(
                pricing_model="reserved",
                term="1yr",
                payment="all_upfront",
                plan="standard",
                upfront=100000.0,
            ),
        ],
        SOURCES,
    )
    assert len(result.records) == 2 and result.rejects == []


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"price_per_hour": 0.0}, "price_per_hour"),
        ({"price_per_hour": -1.0}, "price_per_hour"),
        ({"price_per_hour": math.inf}, "price_per_hour"),
        ({"price_per_hour": math.nan}, "price_per_hour is missing or NaN"),
        ({"chip_count": 0.0}, "chip_count"),
        ({"currency": "CNY"}, "currency CNY is not one prices are stored in (USD, EUR)"),
        ({"chip": "H100"}, "not a canonical chip"),
        ({"pricing_model": "hourly"}, "pricing_model='hourly'"),
        ({"term": "5yr"}, "term='5yr'"),
        ({"payment": "monthly"}, "payment='monthly'"),
        ({"provider": "acme"}, "provider='acme'"),
        ({"source": "nowhere"}, "source='nowhere'"),
        ({"instance_type": ""}, "instance_type"),
        ({"price_per_hour": 5000.0}, "outside the plausible range"),
        ({"price_per_hour": 0.001}, "outside the plausible range"),
        # a provider's name as long as a page: refused, its length said, not its whole text
        ({"region": "L" * 120_000}, "region of 120,000 characters ('LLLL"),
        ({"instance_type": "g" * 201}, "longer than any provider's name (200 at most)"),
        ({"sku": "s" * 5_000}, "sku of 5,000 characters"),
    ],
)
def test_bad_records_are_rejected_with_a_reason(changes, reason):
    result = validate_records([record(), record(zone="eu-west-1a", **changes)], SOURCES)
    assert [r.zone for r in result.records] == [""]
    assert len(result.rejects) == 1
    assert reason in result.rejects[0].reason and len(result.rejects[0].reason) < 300
    assert result.rejects[0].row["zone"] == "eu-west-1a"


def test_unknown_chip_is_loaded_not_dropped():
    result = validate_records([record(chip="unknown")], SOURCES)
    assert len(result.records) == 1


def test_exact_duplicate_keeps_the_first():
    result = validate_records([record(sku="A"), record(sku="B")], SOURCES)
    assert [r.sku for r in result.records] == ["A"]
    assert "duplicate offer key" in result.rejects[0].reason


def test_conflicting_duplicates_are_all_rejected():
    result = validate_records([record(), record(price_per_hour=60.0)], SOURCES)
    assert result.records == []
    assert len(result.rejects) == 2
    assert all("different prices" in r.reason for r in result.rejects)


def test_several_reasons_are_kept_together():
    result = validate_records([record(price_per_hour=0.0, currency="CNY")], SOURCES)
    assert "price_per_hour" in result.rejects[0].reason
    assert "currency CNY" in result.rejects[0].reason


def test_batches_validated_together_are_judged_as_each_alone():
    # The same offer in two batches is no duplicate; within one it is. A reject in one
    # batch leaves the others' records and frame rows alone; an empty batch stays empty.
    batches = [
        [record(sku="A"), record(sku="B"), record(zone="eu-west-1a", chip="H100")],
        [],
        [record(sku="C"), record(zone="us-east-1b", price_per_hour=60.0)],
        [record(zone="us-east-1c", currency="CNY")],
    ]
    together = validate_batches(batches, SOURCES)
    for batch, found in zip(batches, together, strict=True):
        alone = validate_records(batch, SOURCES)
        assert found.records == alone.records
        assert [(r.reason, r.row) for r in found.rejects] == [
            (r.reason, r.row) for r in alone.rejects
        ]
        assert found.frame.equals(alone.frame)
    assert [len(v.records) for v in together] == [1, 0, 2, 0]
    assert [len(v.rejects) for v in together] == [2, 0, 0, 1]
