"""oci: parse() on recorded price lists (per-GPU prices times GPUs per shape), and fetch().

Fixtures in tests/fixtures/oci/ have the cetools products API shape (ORIGIN.md): products.json
is good; bad-* are the failure cases.
"""

from __future__ import annotations

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.core.errors import ParseError, SourceError
from chipcost.extract.oci import PARAMS, PRODUCTS_URL, fetch, parse, shape_chip, shape_table
from tests.sources import STAMP, assert_loadable, payloads_of
from tests.sources import context as fake_context

payload = payloads_of("oci", PRODUCTS_URL)


def shape(records, name):
    [found] = [r for r in records if r.instance_type == name]
    return found


@pytest.fixture(scope="module")
def good():
    return parse([payload("products.json")])


@pytest.mark.parametrize(
    ("name", "chip", "gpus", "per_gpu"),
    [
        ("BM.GPU.H100.8", "H100-SXM", 8, 10.0),
        ("BM.GPU.H200.8", "H200", 8, 10.0),
        ("BM.GPU.B200.8", "B200", 8, 14.0),
        ("BM.GPU.GB200.4", "GB200", 4, 16.0),
        ("BM.GPU.MI300X.8", "MI300X", 8, 6.0),
        ("BM.GPU.L40S.4", "L40S", 4, 3.5),
        ("BM.GPU.A100-v2.8", "A100-80GB", 8, 4.0),
        ("VM.GPU.A10.1", "A10", 1, 2.0),
        ("BM.GPU.A10.4", "A10", 4, 2.0),
    ],
)
def test_a_shape_costs_its_per_gpu_price_times_its_gpus(good, name, chip, gpus, per_gpu):
    record = shape(good.records, name)
    assert (record.chip, record.chip_count) == (chip, float(gpus))
    assert record.price_per_hour == pytest.approx(per_gpu * gpus)
    assert record.extra["per_gpu_hour"] == per_gpu
    assert (record.region, record.pricing_model, record.currency) == ("global", "on_demand", "USD")


def test_only_gpu_rentals_are_read(good):
    assert len(good.records) == 10 and not good.rejects
    assert {r.sku for r in good.records} <= set(shape_table())
    assert sorted(good.notes) == [
        "1 row(s) not loaded: a 'GPU Per Hour' row that is NVIDIA AI Enterprise, not a rental",
        "1 row(s) not loaded: another product (not billed per GPU-hour)",
    ]
    assert shape(good.records, "BM.GPU.H100.8").extra["price_list_updated"] == (
        "2026-11-03T09:12:40.118Z"
    )
    assert_loadable(good)


def test_bad_rows_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = sorted(r.reason for r in result.rejects)
    assert reasons == [
        "GPU part B109480 (OCI - Compute - GPU - H100T) is not in "
        "core/data/oci_gpu_shapes.csv: add the shapes it prices",
        "PAY_AS_YOU_GO value 0 is not a positive number",
        "expected one PAY_AS_YOU_GO price, found 2",
        "expected one USD price, found currencies ['EUR']",
    ]
    assert [r.instance_type for r in result.records] == ["BM.GPU.H100.8"]
    assert any("Cloud@Customer" in note for note in result.notes)
    assert any(
        note.startswith("1 GPU part(s) price no shape") and "B109480" in note
        for note in result.notes
    )


def test_oracles_recorded_price_list_prices_every_gpu_part():
    result = parse([payload("recorded-products-opencost.json")])
    assert not result.rejects and not [n for n in result.notes if "no shape" in n]
    bm4 = shape(result.records, "BM.GPU4.8")  # part B92740, "Compute - GPU - E3"
    assert (bm4.chip, bm4.chip_count, bm4.sku) == ("A100-40GB", 8.0, "B92740")
    assert bm4.price_per_hour == pytest.approx(8 * 3.05)
    assert bm4.extra["display_name"] == "Compute - GPU - E3"
    found = {r.instance_type: (r.chip, r.chip_count) for r in result.records}
    assert found["BM.GPU3.8"] == ("V100", 8.0) and found["VM.GPU2.1"] == ("P100", 1.0)
    assert len(found) == 12  # the 7 GPU parts of the list price 12 shapes
    assert_loadable(result)


def test_the_2026_recorded_price_list_prices_mi355x_gb300_and_rtx_pro_6000():
    result = parse([payload("recorded-products-gpu-index.json")])
    found = {r.instance_type: (r.chip, r.chip_count, r.price_per_hour) for r in result.records}
    assert found["BM.GPU.MI355X.8"] == ("MI355X", 8.0, pytest.approx(8 * 8.6))
    assert found["BM.GPU.GB300.4"] == ("GB300", 4.0, 4 * 18.0)
    assert found["BM.GPU.RTXPRO.8"] == ("RTX-PRO-6000", 8.0, 8 * 4.5)
    assert len(found) == 21  # 18 GPU rental parts, 16 of them mapped to their shapes
    # H100T and E4: parts no Oracle page read ties to a shape, refused with the part named.
    assert sorted(r.sku for r in result.rejects) == ["B109480", "B93544"]
    assert all("oci_gpu_shapes.csv" in r.reason for r in result.rejects)
    assert_loadable(result)


@pytest.mark.parametrize(
    ("shape_name", "chip", "gpus"),
    [
        ("BM.GPU4.8", "A100-40GB", 8),
        ("VM.GPU3.2", "V100", 2),
        ("BM.GPU.A100-v2.8", "A100-80GB", 8),
        ("BM.GPU.MI355X.8", "MI355X", 8),
        ("BM.GPU.X9.8", "unknown", 8),
    ],
)
def test_a_shape_name_gives_its_chip_and_gpus(shape_name, chip, gpus):
    models = {"GPU4": "A100-40GB", "GPU3": "V100", "A100-v2": "A100-80GB", "MI355X": "MI355X"}
    assert shape_chip(shape_name, models) == (chip, gpus)


def test_a_renamed_metric_is_a_layout_change():
    with pytest.raises(ParseError) as caught:
        parse([payload("bad-renamed-metric.json")])
    assert str(caught.value).startswith(f"oci: the listing at {PRODUCTS_URL}")


def test_fetch_gets_the_usd_list_and_archives_it(tmp_path):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=payload("products.json").data)

    [fetched] = fetch(fake_context(tmp_path, "oci", handler))
    assert seen[0].url.params["currencyCode"] == "USD"
    entry = read_manifest(tmp_path / STAMP / "oci")["payloads"][0]
    assert entry["request"] == {"method": "GET", "params": PARAMS}
    assert len(parse([fetched]).records) == 10


def test_a_moved_endpoint_says_so(tmp_path):
    ctx = fake_context(tmp_path, "oci", lambda request: httpx.Response(404))
    with pytest.raises(SourceError, match="oci: GET .* answered 404 Not Found: the endpoint moved"):
        fetch(ctx)
