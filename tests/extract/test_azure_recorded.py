"""azure: real Retail Prices API items (another project's recording, tests/fixtures/azure/
ORIGIN.md) through parse(), each price checked against the item it comes from.

The items were recorded with seven fields each: no currencyCode, which the page's envelope
(BillingCurrency) states instead."""

from __future__ import annotations

import json

import pytest

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chips
from chipcost.core.errors import ParseError
from chipcost.core.record import PriceRecord
from chipcost.extract.azure import PRICES_URL, parse
from tests.sources import payloads_of

RECORDED = "recorded-items-gpu-price-index.json"
payload = payloads_of("azure", PRICES_URL)


def _records() -> list[PriceRecord]:
    result = parse([payload(RECORDED)])
    assert not result.rejects, [r.reason for r in result.rejects]
    return result.records


def _one(records: list[PriceRecord], region: str, size: str, plan: str = "") -> PriceRecord:
    found = [
        r
        for r in records
        if (r.region, r.instance_type) == (region, size) and (not plan or r.plan == plan)
    ]
    assert len(found) == 1, found
    return found[0]


def test_the_recording_loads_every_linux_item_and_skips_the_windows_ones():
    items = json.loads(payload(RECORDED).data)["Items"]
    windows = [i for i in items if "Windows" in i["productName"]]
    assert (len(items), len(windows)) == (83, 30)
    result = parse([payload(RECORDED)])
    assert len(result.records) == 83 - 30 and not result.rejects
    assert any("30 row(s) not loaded: a Windows row" in note for note in result.notes)
    # every size the recording names is one of the catalog's chips (issue 75, item 3)
    assert {r.chip for r in result.records} <= set(canonical_chips()) - {UNKNOWN_CHIP}


@pytest.mark.parametrize(
    ("region", "size", "plan", "chip", "count", "instance_price", "model"),
    [
        # "retailPrice": 98.32, eastus and westus3, "Virtual Machines NDsr H100 v5 Series"
        ("eastus", "Standard_ND96isr_H100_v5", "", "H100-SXM", 8, 98.32, "on_demand"),
        ("westus3", "Standard_ND96isr_H100_v5", "", "H100-SXM", 8, 98.32, "on_demand"),
        ("westeurope", "Standard_ND96isr_H100_v5", "", "H100-SXM", 8, 127.816, "on_demand"),
        ("spaincentral", "Standard_ND96isr_H100_v5", "", "H100-SXM", 8, 23.620397, "spot"),
        ("eastus", "Standard_NC40ads_H100_v5", "", "H100-NVL", 1, 6.98, "on_demand"),
        ("eastus", "Standard_NC80adis_H100_v5", "", "H100-NVL", 2, 13.96, "on_demand"),
        ("eastus", "Standard_ND96amsr_A100_v4", "", "A100-80GB", 8, 32.77, "on_demand"),
        ("eastus", "Standard_NC24ads_A100_v4", "default", "A100-80GB-PCIe", 1, 3.673, "on_demand"),
        ("eastus", "Standard_NC24ads_A100_v4", "", "A100-80GB-PCIe", 1, 3.673, "on_demand"),
        ("northeurope", "Standard_ND96isr_MI300X_v5", "", "MI300X", 8, 57.6, "on_demand"),
        ("japaneast", "Standard_ND96isr_H200_v5", "", "H200", 8, 106.0, "on_demand"),
        # "ND96asr_A100_v4 Spot" at 5.904469 (Linux); its "Low Priority" row is Windows
        ("eastus", "Standard_ND96asr_v4", "default", "A100-40GB", 8, 5.904469, "spot"),
        # "NC48ads_A100_v4 Low Priority" at 1.469, "NCads A100 v4 Series Linux"
        ("eastus", "Standard_NC48ads_A100_v4", "low_priority", "A100-80GB-PCIe", 2, 1.469, "spot"),
    ],
)
def test_each_price_is_the_recorded_items_per_chip(
    region, size, plan, chip, count, instance_price, model
):
    records = [r for r in _records() if r.pricing_model == model]
    if model == "on_demand":
        plan = "default"
    record = _one(records, region, size, plan)
    assert (record.chip, record.chip_count, record.currency) == (chip, count, "USD")
    assert record.price_per_hour == instance_price
    assert record.price_per_hour / record.chip_count == pytest.approx(instance_price / count)


def test_a_windows_price_is_never_a_linux_one():
    """centralus lists ND96isr H100 v5 only as a Windows row (125.35): no price of it there."""
    assert not [r for r in _records() if r.region == "centralus" and "H100" in r.instance_type]


def test_an_items_own_currency_comes_before_the_envelopes():
    body = json.loads(payload(RECORDED).data)
    body["Items"][0]["currencyCode"] = "EUR"
    result = parse([payload(RECORDED, data=json.dumps(body).encode())])
    assert [r.reason for r in result.rejects] == [
        "currency 'EUR' is not USD (the request asked for USD)"
    ]


def test_items_without_a_currency_on_a_page_that_states_none_are_refused_naming_it():
    body = json.loads(payload(RECORDED).data)
    del body["BillingCurrency"]
    with pytest.raises(ParseError, match="lacks currencyCode"):
        parse([payload(RECORDED, data=json.dumps(body).encode())])
