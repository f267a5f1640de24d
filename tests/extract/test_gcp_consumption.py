"""gcp: each shape priced under every way Google sells it (core/data/gcp_consumption.csv),
SKUs read by their whole meaning, and bad rows one reject each. The pages are the catalog's
recorded shape (tests/fixtures/gcp/ORIGIN.md), changed here one SKU at a time."""

from __future__ import annotations

import copy
import csv
import json
from importlib import resources

import pytest

from chipcost.extract._gcp_skus import OPTIONS_OFFERED, consumption, machine_types
from chipcost.extract.gcp import SERVICES, SKUS_URL, parse
from tests.sources import assert_loadable, payloads_of

payload = payloads_of("gcp", SKUS_URL.format(service=SERVICES[0]))
OPTIONS = ("on_demand", "spot", "flex_start", "calendar_mode", "future_reservation", "commitment")


def pages():
    return [json.loads(payload(f"compute-skus-page-{n}.json").data) for n in (1, 2)]


def parsed(*bodies):
    return parse(
        [payload(f"page-{n}.json", data=json.dumps(b).encode()) for n, b in enumerate(bodies)]
    )


def models(records, name, region="us-central1"):
    return {
        (r.pricing_model, r.term) for r in records if (r.instance_type, r.region) == (name, region)
    }


def test_every_family_has_every_option_with_googles_words():
    table = consumption()
    families = {m.family for m in machine_types()}
    assert {(f, o) for f in families for o in OPTIONS} <= set(table)
    for (family, option), row in table.items():
        assert row.offered in OPTIONS_OFFERED, (family, option)
        assert row.source.startswith("https://") and row.retrieved == "2026-11-25"
        assert len(row.quote) > 30, (family, option)
    # What the issue names: A4X only by future reservation; A4 and A3 Ultra also by calendar mode.
    assert {o for o in OPTIONS if table[("a4x", o)].offered == "yes"} == {
        "future_reservation", "commitment"}  # fmt: skip
    assert table[("a3-ultra", "calendar_mode")].offered == "yes"
    assert table[("a3", "on_demand")].offered == "yes"


def test_the_consumption_file_is_plain_csv_with_one_row_per_family_and_option():
    path = resources.files("chipcost.core").joinpath("data", "gcp_consumption.csv")
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(line for line in handle if not line.startswith("#")))
    keys = [(r["family"], r["option"]) for r in rows]
    assert len(keys) == len(set(keys)) and {r["option"] for r in rows} == set(OPTIONS)


def test_each_shape_is_priced_under_every_model_google_sells_it_by():
    """On c4783d0 a3-highgpu-8g's on-demand price and A3 Ultra's reservation price were dropped."""
    result = parsed(*pages())
    assert ("on_demand", "none") in models(result.records, "a3-highgpu-8g")
    ultra = models(result.records, "a3-ultragpu-8g")
    assert ultra == {("reserved", "none"), ("spot", "none"), ("commitment", "1yr"),
                     ("commitment", "3yr")}  # fmt: skip
    [reserved] = [
        r
        for r in result.records
        if (r.instance_type, r.region, r.pricing_model)
        == ("a3-ultragpu-8g", "us-central1", "reserved")
    ]
    # 8 H200 at the OnDemand SKU's 9.31174 + 224 vCPUs and 2,952 GiB at the A3 Ultra rates.
    assert reserved.price_per_hour == pytest.approx(8 * 9.31174 + 224 * 0.03301 + 2952 * 0.00442)
    assert_loadable(result)


def test_a_price_for_a_way_google_does_not_sell_is_named_with_sku_and_rate():
    first, second = pages()
    spot_l4 = next(
        s for s in first["skus"] if s["description"].startswith("Spot Preemptible Nvidia L4")
    )
    gb200 = copy.deepcopy(spot_l4)
    text = "Spot Preemptible A4X Nvidia GB200 (1 gpu slice) running in Americas"
    gb200 |= {"skuId": "GB20-0000-0001", "description": text}
    first["skus"].append(gb200)
    result = parsed(first, second)
    assert not models(result.records, "a4x-highgpu-4g")
    [note] = [n for n in result.notes if n.startswith("spot price not loaded")]
    assert "a4x-highgpu-4g" in note
    assert "GB20-0000-0001 at 0.224/h" in note and "gcp_consumption.csv" in note


def test_shares_of_a_gpu_and_a4x_max_are_named_not_priced():
    result = parsed(*pages())
    [share] = [n for n in result.notes if "share of one GPU" in n]
    assert "g4-standard-6 (1/8)" in share and "g4-standard-24 (1/2)" in share
    assert any("a4x-maxgpu-4g-metal not priced" in n for n in result.notes)
    names = {m.name: m for m in machine_types()}
    assert (
        names["g4-standard-12"].chip_count == 0.25 and names["a4x-maxgpu-4g-metal"].chip == "GB300"
    )


def test_a_reserved_sku_listed_on_demand_is_not_an_on_demand_price_in_any_case():
    """On c4783d0 'RESERVED Nvidia L4 GPU running in Dallas' (usage type OnDemand) became eight
    on-demand g2 prices."""
    first, second = pages()
    l4 = next(s for s in first["skus"] if s["description"] == "Nvidia L4 GPU running in Americas")
    first["skus"] = [s for s in first["skus"] if s is not l4]
    text = "RESERVED Nvidia L4 GPU running in Dallas"
    fee = copy.deepcopy(l4) | {"skuId": "RSV0-0000-0001", "description": text}
    first["skus"].append(fee)
    records = parsed(first, second).records
    assert not [r for r in records if r.chip == "L4" and r.pricing_model == "on_demand"]
    assert [r for r in records if r.chip == "L4" and r.pricing_model == "spot"]


def test_two_skus_for_one_gpu_region_and_usage_are_a_conflict_refused_with_a_note():
    first, second = pages()
    l4 = next(s for s in first["skus"] if s["description"] == "Nvidia L4 GPU running in Americas")
    twin = copy.deepcopy(l4) | {
        "skuId": "L4L4-0000-0002",
        "description": "L4 GPU running in Americas",
    }
    first["skus"].append(twin)
    result = parsed(first, second)
    on_demand_g2 = [r for r in result.records if r.chip == "L4" and r.pricing_model == "on_demand"]
    assert not on_demand_g2
    [note] = [n for n in result.notes if n.startswith("several SKUs price one part")]
    assert "g2-standard-4 in us-central1 (OnDemand: l4)" in note


def tpu_page():
    return json.loads(payload("compute-skus-page-2.json").data)


def v6e(page):
    return next(s for s in page["skus"] if s["description"] == "TpuV6e running in Americas")


@pytest.mark.parametrize("word", ["Pod", "Idle", "Evaluation"])
def test_tpu_skus_that_price_no_chip_hour_are_not_read(word):
    page = tpu_page()
    base = v6e(page)
    page["skus"] = [
        s for s in page["skus"] if s is not base and "tpu" not in s["description"].lower()
    ]
    page["skus"].append(
        base | {"skuId": "TPU0-0000-0009", "description": f"TpuV6e {word} running in Americas"}
    )
    result = parsed(pages()[0], page)
    assert not [r for r in result.records if r.chip == "TPU-v6e"]
    assert any(f"price no chip-hour ({word.lower()})" in n for n in result.notes)


def test_two_skus_for_one_tpu_region_and_usage_are_a_conflict():
    """On c4783d0 whichever came first was loaded."""
    page = tpu_page()
    base = v6e(page)
    page["skus"].append(
        base | {"skuId": "TPU0-0000-0002", "description": "TPU v6e running in Americas"}
    )
    result = parsed(pages()[0], page)
    on_demand = [
        r for r in result.records
        if r.chip == "TPU-v6e" and r.pricing_model == "on_demand" and r.region == "us-central1"
    ]  # fmt: skip
    assert not on_demand
    assert [r for r in result.records if r.chip == "TPU-v6e" and r.pricing_model == "spot"]
    [note] = [n for n in result.notes if n.startswith("several SKUs price one TPU chip-hour")]
    assert "TPU v6e in us-east5 (OnDemand)" in note and "TPU0-0000-0002" in note


PRICE = ("pricingInfo", 0, "pricingExpression")
TIER = (*PRICE, "tieredRates", 0)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (PRICE, [], "pricingExpression"),
        ((*PRICE, "tieredRates"), {"a": 1}, "tieredRates"),
        ((*TIER, "unitPrice"), "0.56", "unitPrice"),
        ((*TIER, "unitPrice", "nanos"), "5", "nanos"),
        ((*TIER, "unitPrice", "units"), [1], "units"),
        ((*TIER, "startUsageAmount"), {}, "startUsageAmount"),
        (("serviceRegions",), "us-central1", "serviceRegions"),
        (("description",), 7, "description"),
    ],
)
def test_a_field_of_an_unexpected_type_is_one_reject_naming_it(path, value, field):
    first, second = pages()
    sku = next(s for s in first["skus"] if s["description"] == "Nvidia L4 GPU running in Americas")
    target = sku
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    result = parsed(first, second)
    assert len(result.rejects) == 1 and field in result.rejects[0].reason
    assert [r for r in result.records if r.instance_type == "a2-highgpu-1g"]
    assert_loadable(result)
