"""coreweave: parse() on the pricing page as recorded and as reconstructed, its changed layouts,
and fetch() over HTTP.

tests/fixtures/coreweave/pricing-2026-08-22.html is a recording of the page's GPU and first CPU
tables; pricing.html reproduces its Webflow structure (GPU rows with labelled values and price
spans, a CPU table, a region label, footnote markers), trimmed, with the sample's prices.
"""

from __future__ import annotations

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.extract.coreweave import PRICING_URL, SOURCE, fetch, parse
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES
from tests.sources import FETCHED_AT, STAMP, context, payload

FIXTURES = FIXTURES / "coreweave"


def page(html: str | None = None) -> Payload:
    data = None if html is None else html.encode()
    return payload("coreweave", "pricing.html", PRICING_URL, data=data)


def html() -> str:
    return (FIXTURES / "pricing.html").read_text()


def find(records, instance_type, model="on_demand"):
    found = [r for r in records if (r.instance_type, r.pricing_model) == (instance_type, model)]
    assert len(found) == 1, f"{len(found)} records for {instance_type} {model}"
    return found[0]


def test_instance_prices_with_gpu_counts_from_the_page():
    result = parse([page()])
    h100 = find(result.records, "NVIDIA HGX H100")
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-SXM", 8.0, 49.24)
    assert h100.region == "north-america" and h100.sku == "nvidia-h100"
    assert h100.source_url == PRICING_URL and h100.payload_ref.endswith("pricing.html")
    assert h100.observed_at == FETCHED_AT
    # The row's cells under "vCPUs", "System RAM (GB)" and "Local Storage (TB)": 128, 2,048
    # and 61.44 (TB, 1,000 GB each).
    assert (h100.vcpus, h100.ram_gb, h100.disk_gb) == (128.0, 2048.0, 61440.0)
    assert find(result.records, "NVIDIA HGX H200").price_per_hour == 50.44
    assert find(result.records, "NVIDIA A100").chip == "A100-80GB"  # by its 80 GB VRAM


def test_spot_prices_are_read_where_the_row_lists_them():
    result = parse([page()])
    spot = find(result.records, "NVIDIA HGX B200", "spot")
    assert (spot.chip, spot.chip_count, spot.price_per_hour) == ("B200", 8.0, 34.11)
    spot_types = {r.instance_type for r in result.records if r.pricing_model == "spot"}
    assert spot_types == {"NVIDIA HGX B200", "NVIDIA HGX H200", "NVIDIA HGX H100", "NVIDIA L40S"}


def test_footnote_marker_is_not_part_of_the_gpu_count():
    gb200 = find(parse([page()]).records, "NVIDIA GB200 NVL72")
    assert (gb200.chip, gb200.chip_count, gb200.price_per_hour) == ("GB200", 4.0, 42.0)
    assert gb200.extra["gpu_count_footnotes"] == ["1"]


def test_contact_sales_is_a_reject_with_its_reason_and_cpu_rows_are_not_read():
    result = parse([page()])
    [refused] = result.rejects
    assert "GB300 NVL72" in refused.reason and "Contact sales" in refused.reason
    assert refused.payload_ref.endswith("pricing.html")
    assert not [r for r in result.records if "Genoa" in r.instance_type]


def test_unmapped_gpu_names_load_as_unknown_and_are_reported():
    # GH200 and L40 have chip rows; a name no alias lists (GH200 renamed) loads as unknown.
    assert find(parse([page()]).records, "NVIDIA GH200").chip == "GH200"
    result = parse([page(html().replace("NVIDIA GH200", "NVIDIA GX900"))])
    assert find(result.records, "NVIDIA GX900").chip == "unknown"
    [note] = result.notes
    assert "NVIDIA GX900" in note and "chip_aliases.csv" in note


def test_every_record_passes_validation():
    records = parse([page()]).records
    validated = validate_records(records, {"coreweave": "coreweave"})
    assert validated.rejects == [] and len(validated.records) == len(records) == 13


def test_rows_without_the_gpu_count_label_fail_the_source_naming_url():
    changed = html().replace("<div>GPU Count</div>", "<div>GPUs per node</div>")
    with pytest.raises(ParseError) as error:
        parse([page(changed)])
    assert "coreweave" in str(error.value) and PRICING_URL in str(error.value)
    assert "GPU Count" in str(error.value)


def test_a_page_without_gpu_rows_fails_instead_of_reporting_no_offers():
    changed = html().replace("kubernetes-gpu-pricing", "gpu-pricing-v3")
    with pytest.raises(ParseError, match="coreweave: the listing at .* gave no offer"):
        parse([page(changed)])


@pytest.mark.parametrize(
    ("cell", "reason"),
    [
        ("Contact sales", "no price listed (Contact sales)"),
        ("—", "no price listed (—)"),
        ("$2-3", "is not one USD amount"),
        # The instance's price column: a per-GPU price read as the 8-GPU instance's was 8x too
        # cheap a chip, and a lowest price read as the price.
        ("$18.00/GPU", "is per GPU, where this column is read as a price per instance"),
        ("$18.00 per GPU-hour", "is per GPU"),
        ("From $49.24", "is a lowest price ('From')"),
        ("starting at $49.24/hr", "is a lowest price ('starting at')"),
    ],
)
def test_bad_price_cells_become_rejects(cell, reason):
    changed = html().replace(
        '<span class="item-value">$49.24</span>', f'<span class="item-value">{cell}</span>'
    )
    result = parse([page(changed)])
    assert any(reason in r.reason and "HGX H100" in r.reason for r in result.rejects)
    assert not [
        r
        for r in result.records
        if r.instance_type == "NVIDIA HGX H100" and r.pricing_model == "on_demand"
    ]


def test_hourly_suffix_and_decimal_comma_are_read_as_amounts():
    changed = html().replace(">$49.24<", ">$49.24/hr<").replace(">$50.44<", ">50,44<")
    result = parse([page(changed)])
    assert find(result.records, "NVIDIA HGX H100").price_per_hour == 49.24
    assert find(result.records, "NVIDIA HGX H200").price_per_hour == 50.44


@pytest.mark.parametrize(("count", "reason"), [("0", "below 1"), ("1/2", "not a whole number")])
def test_bad_gpu_counts_become_rejects(count, reason):
    h100_count = (
        'NVIDIA HGX H100</h3><div class="table-meta">'
        '<div class="table-meta-item"><div class="table-meta-value">{}<'
    )
    changed = html().replace(h100_count.format(8), h100_count.format(count))
    result = parse([page(changed)])
    assert any("NVIDIA HGX H100" in r.reason and reason in r.reason for r in result.rejects)
    assert not [r for r in result.records if r.instance_type == "NVIDIA HGX H100"]


def test_fetch_archives_the_page_as_it_arrives(tmp_path):
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=(FIXTURES / "pricing.html").read_bytes(),
                              headers={"Content-Type": "text/html; charset=utf-8"})  # fmt: skip

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert str(seen[0].url) == PRICING_URL and "chipcost" in seen[0].headers["User-Agent"]
    [archived] = read_payloads(tmp_path / STAMP, "coreweave")
    assert archived.data == fetched.data and archived.name.endswith(".html.gz")
    assert len(parse([archived]).records) == 13


def test_fetch_failure_names_the_provider_and_url(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, headers={"Retry-After": "1"})

    with pytest.raises(SourceError) as error:
        fetch(context(tmp_path, SOURCE.name, handler))
    assert "coreweave" in str(error.value) and PRICING_URL in str(error.value)


def test_a_row_without_any_price_is_a_reject_not_a_silent_gap():
    l40_price = (
        '<span class="instance-price">On-Demand Price: <span class="item-value">$10.00</span>'
        " / Hour<br/></span>"
    )
    result = parse([page(html().replace(l40_price, ""))])
    assert [r.reason for r in result.rejects if r.sku == "nvidia-l40"] == [
        "NVIDIA L40: the row shows no On-Demand or Spot price"
    ]
    assert not [r for r in result.records if r.instance_type == "NVIDIA L40"]


def test_the_recorded_page_loads_every_gpu_row_of_both_regions():
    """The HGX H100 row's kind is "gpu-pricing-and-kubernetes-gpu-pricing", and the served
    page writes the GB200's count "4^1" (a footnote its script raises in the browser)."""
    recorded = payload("coreweave", "pricing-2026-08-22.html", PRICING_URL)
    result = parse([recorded])
    north = [r for r in result.records if r.region == "north-america"]
    h100 = find(north, "NVIDIA HGX H100")
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-SXM", 8.0, 49.24)
    assert find(north, "NVIDIA HGX H100", "spot").price_per_hour == 19.71
    gb200 = find(north, "NVIDIA GB200 NVL72")
    assert (gb200.chip, gb200.chip_count, gb200.price_per_hour) == ("GB200", 4.0, 42.0)
    assert gb200.extra["gpu_count_footnotes"] == ["1"]
    assert {r.region for r in result.records} == {"north-america", "europe"}
    assert len(result.records) == 32
    assert "AMD Genoa (9274F)" not in {r.instance_type for r in result.records}  # a CPU row
    # Prices the page does not list (GB300 and B300 on demand: "Contact sales"; N/A spot)
    reasons = [r.reason for r in result.rejects]
    assert len(reasons) == 12 and all("no price listed" in r for r in reasons)
    assert not validate_records(result.records, {"coreweave": "coreweave"}).rejects


B200 = "NVIDIA HGX B200"


def recorded() -> str:
    return (FIXTURES / "pricing-2026-08-22.html").read_text()


def b200_priced(text: str) -> str:
    """The recorded page with North America's HGX B200 on demand ("$68.80 / Hour") `text`."""
    hour = '<span class="item-value">$68.80</span> / Hour'
    assert recorded().count(hour) == 2  # North America's, then Europe's
    return recorded().replace(hour, text, 1)


@pytest.mark.parametrize(
    ("price", "unit"),
    [
        # its 8 GPUs priced each: read as the instance's hour, 8x too cheap a chip
        ("$8.60", "/ GPU / Hour"),
        ("$1.15", "/ Minute"),
        ("$50,224.00", "/ Month"),
        ("$0.0191", "per second"),
    ],
)
def test_a_price_in_another_unit_than_the_instances_hour_is_a_reject_naming_it(price, unit):
    """The unit the recorded page prints after each price (" / Hour") is read: another is
    refused naming it, the row's other prices loaded."""
    changed = b200_priced(f'<span class="item-value">{price}</span> {unit}')
    result = parse([page(changed)])
    north = [r for r in result.records if r.region == "north-america"]
    assert not [r for r in north if (r.instance_type, r.pricing_model) == (B200, "on_demand")]
    assert find(north, B200, "spot").price_per_hour == 34.11
    [refused] = [r for r in result.rejects if r.sku == "nvidia-b200"]
    assert refused.reason == (
        f"{B200} on-demand: price unit {unit!r} of {price!r} is not an instance-hour: not read "
        "as one"
    )
    assert len(result.records) == 31


def test_the_hour_the_page_prints_is_the_instances_hour():
    changed = b200_priced('<span class="item-value">$68.80</span>/hour')
    north = [r for r in parse([page(changed)]).records if r.region == "north-america"]
    assert find(north, B200).price_per_hour == 68.8
