"""azure: parse() on recorded Retail Prices pages, fetch() with NextPageLink paging.

Fixtures in tests/fixtures/azure/ have the Retail Prices API response shape (written with
chipcost.sample.build.azure): consumption-* and reservation-* are good pages (the ND
consumption query spans two pages); bad-* and empty.json are the failure cases.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.core.errors import ParseError, SourceError
from chipcost.extract import azure
from chipcost.extract._azure_sizes import map_size, series_table
from chipcost.extract.azure import PRICES_URL, documented_sizes, fetch, parse, query_params
from tests.paths import FIXTURES
from tests.sources import STAMP, assert_loadable, payloads_of
from tests.sources import context as fake_context

GOOD = (
    "consumption-nd-page-1.json",
    "consumption-nd-page-2.json",
    "consumption-nc.json",
    "reservation-nd.json",
    "reservation-nc.json",
)


payload = payloads_of("azure", PRICES_URL)
# The series a query asks for: "... and contains(armSkuName, 'Standard_ND') and ...".
ASKED = re.compile(r"contains\(armSkuName, '([^']+)'\)")
EMPTY = json.dumps({"Items": [], "NextPageLink": None, "Count": 0}).encode()


def find(records, sku, region, model="on_demand", term="none", plan="default"):
    found = [
        r
        for r in records
        if (r.instance_type, r.region, r.pricing_model, r.term, r.plan)
        == (sku, region, model, term, plan)
    ]
    assert len(found) == 1, (sku, region, model, term, plan, len(found))
    return found[0]


@pytest.fixture(scope="module")
def good():
    return parse([payload(name) for name in GOOD])


def test_on_demand_spot_and_low_priority_are_told_apart_by_name(good):
    h100 = "Standard_ND96isr_H100_v5"
    demand = find(good.records, h100, "eastus")
    assert (demand.price_per_hour, demand.chip, demand.chip_count) == (98.32, "H100-SXM", 8.0)
    assert demand.extra["meter"] == "ND96isr H100 v5"
    # the eastus rows hold a public capture's prices (tests/fixtures/azure/ORIGIN.md)
    assert find(good.records, h100, "eastus", "spot").price_per_hour == 18.169536
    low = find(good.records, "Standard_ND96asr_v4", "westeurope", "spot", plan="low_priority")
    assert (low.price_per_hour, low.chip) == (5.44, "A100-40GB")
    assert find(good.records, "Standard_ND96asr_v4", "westeurope", "spot").price_per_hour == 10.88


def test_savings_plans_come_from_the_consumption_rows(good):
    one = find(
        good.records, "Standard_ND96isr_H200_v5", "eastus2", "savings_plan", "1yr", "compute"
    )
    three = find(
        good.records, "Standard_ND96isr_H200_v5", "eastus2", "savings_plan", "3yr", "compute"
    )
    assert (one.price_per_hour, three.price_per_hour) == (78.82, 53.02)
    assert one.payment == "no_upfront" and one.upfront is None


def test_reservations_are_term_totals_amortised_per_hour(good):
    one = find(good.records, "Standard_ND96isr_H100_v5", "swedencentral", "reserved", "1yr")
    assert one.upfront == 521712.0 and one.payment == "all_upfront"
    assert one.price_per_hour == pytest.approx(521712.0 / 8760)
    three = find(good.records, "Standard_ND96isr_H100_v5", "swedencentral", "reserved", "3yr")
    assert three.price_per_hour == pytest.approx(1098340.0 / 26280)


def test_a_fractional_gpu_size_is_priced_per_whole_chip_and_marked_as_a_share(good):
    # NC8ads_A10_v4 rents a third of an A10: the slice rule (extract/_slices.py), as AWS's g6f.
    sliced = [r for r in good.records if r.instance_type == "Standard_NC8ads_A10_v4"]
    assert sorted((r.pricing_model, r.chip, round(r.chip_count, 6)) for r in sliced) == [
        ("on_demand", "A10", 0.333333),
        ("spot", "A10", 0.333333),
    ]
    assert {r.extra["share"] for r in sliced} == {"1/3 of one A10"}
    spot = find(good.records, "Standard_NC8ads_A10_v4", "eastus", "spot")
    assert spot.price_per_hour / spot.chip_count == pytest.approx(0.36 * 3)  # one whole A10
    assert not good.rejects
    assert_loadable(good)


def test_every_size_in_the_fixtures_is_mapped_by_rule(good):
    skus = {r.instance_type for r in good.records}
    assert {map_size(s)[0].chip for s in skus} == {
        "H100-SXM", "H200", "MI300X", "A100-80GB", "A100-80GB-PCIe", "A100-40GB", "H100-NVL",
        "A10",
    }  # fmt: skip


def count(size):
    mapped, why = map_size(size)
    assert mapped is not None, why
    return mapped.chip, mapped.count


def test_the_whole_a10_size_is_an_a10_the_parts_are_fractions():
    assert count("Standard_NC32ads_A10_v4") == ("A10", 1)
    assert [count(f"Standard_NC{n}ads_A10_v4")[1] for n in (8, 16)] == [
        Fraction(1, 3),
        Fraction(2, 3),
    ]


def test_bad_rows_become_rejects_or_are_skipped_with_a_note():
    result = parse([payload("bad-rows.json")])
    reasons = sorted(r.reason for r in result.rejects)
    assert reasons == [
        "currency 'EUR' is not USD (the request asked for USD)",
        "reservationTerm '5 Years' is not 1 Year or 3 Years",
        "retailPrice 0.0 is not a positive price",
        "savingsPlan entry {'unitPrice': 2.2, 'retailPrice': 2.2, 'term': '2 Years'} has no "
        "known term or numeric price",
    ]
    notes = " | ".join(result.notes)
    for skipped in ("a DevTestConsumption row", "a Windows row", "a secondary meter"):
        assert f"1 row(s) not loaded: {skipped} (not Linux GPU VM prices)" in notes
    # A size no rule maps is a note naming it, not a reject: the source stays ok.
    assert "no series 'ND B300 v7'" in notes and "Standard_ND96isr_B300_v7" in notes
    # The A100 row and its 1yr plan; the NC16ads size, 2/3 of an A10, by the slice rule.
    assert [r.term for r in result.records] == ["none", "none", "1yr"]
    assert result.records[0].extra["share"] == "2/3 of one A10"


def one_row(**changed):
    """The first row of consumption-nc.json alone, with `changed` fields."""
    body = json.loads((FIXTURES / "azure" / "consumption-nc.json").read_text())
    body["Items"] = [{**body["Items"][0], **changed}]
    return parse([payload("consumption-nc.json", data=json.dumps(body).encode())])


@pytest.mark.parametrize("field", ["unitOfMeasure", "currencyCode"])
def test_a_row_without_its_unit_or_currency_is_refused_naming_it(field):
    # A row's currency may come from its page (BillingCurrency): here the page states none.
    body = json.loads((FIXTURES / "azure" / "consumption-nc.json").read_text())
    del body["BillingCurrency"]
    del body["Items"][0][field]
    result = parse([payload("consumption-nc.json", data=json.dumps(body).encode())])
    [refused] = result.rejects
    assert refused.reason == f"lacks {field}: it decides what its price means, so it is not read"
    assert refused.sku == body["Items"][0]["skuId"]
    assert len(result.records) > 1  # the page's other rows load


def test_a_spot_price_not_below_on_demand_is_loaded_and_marked():
    body = json.loads((FIXTURES / "azure" / "consumption-nc.json").read_text())
    spot = next(i for i in body["Items"] if i["meterName"] == "NC8ads A10 v4 Spot")
    listed = next(
        i for i in body["Items"]
        if i["armSkuName"] == spot["armSkuName"] and i["meterName"] == "NC8ads A10 v4"
    )  # fmt: skip
    spot["retailPrice"] = listed["retailPrice"]  # the spot meter at the on-demand rate
    result = parse([payload("consumption-nc.json", data=json.dumps(body).encode())])
    marked = find(result.records, spot["armSkuName"], "eastus", "spot")
    assert marked.extra["spot_not_below_on_demand"].startswith(
        f"spot {listed['retailPrice']:g} USD/h is not below on demand in eastus "
        f"({listed['retailPrice']:g})"
    )
    assert "1 spot price(s) not below on demand" in " ".join(result.notes)
    others = [r for r in result.records if r is not marked]
    assert not any("spot_not_below_on_demand" in r.extra for r in others)


def test_a_us_government_region_is_loaded_and_marked():
    result = one_row(armRegionName="usgovvirginia")
    assert len(result.records) == 3  # on demand and its two savings plans
    assert {r.extra["restricted_region"] for r in result.records} == {"a US government region"}
    assert "out of the index and the cheapest answers" in " ".join(result.notes)
    assert not any("restricted_region" in r.extra for r in one_row().records)


def test_a_renamed_field_is_a_layout_change():
    with pytest.raises(ParseError, match="lacks armSkuName"):
        parse([payload("bad-renamed-field.json")])


def test_pages_without_any_gpu_vm_are_loud():
    with pytest.raises(ParseError, match="azure: the listing at .* gave no offer"):
        parse([payload("empty.json")])


def test_fetch_follows_next_page_links_and_archives_every_page(tmp_path):
    pages = {
        ("Consumption", "Standard_ND"): [payload(GOOD[0]).data, payload(GOOD[1]).data],
        ("Consumption", "Standard_NC"): [payload(GOOD[2]).data],
        ("Reservation", "Standard_ND"): [payload(GOOD[3]).data],
        ("Reservation", "Standard_NC"): [payload(GOOD[4]).data],
    }
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        query = parse_qs(urlparse(str(request.url)).query)
        text = query["$filter"][0]
        price_type = "Reservation" if "'Reservation'" in text else "Consumption"
        series = ASKED.search(text)[1]
        index = int(query.get("$skip", ["0"])[0]) // 1000
        return httpx.Response(200, content=pages.get((price_type, series), [EMPTY])[index])

    fetched = fetch(fake_context(tmp_path, "azure", handler))
    # Five pages for ND and NC, one empty page for each of NV and NG and each price type.
    assert len(fetched) == len(seen) == 5 + 4
    first = parse_qs(urlparse(str(seen[0].url)).query)
    assert first["api-version"] == ["2023-01-01-preview"] and first["currencyCode"] == ["'USD'"]
    manifest = read_manifest(tmp_path / STAMP / "azure")["payloads"]
    assert manifest[0]["request"]["params"] == query_params("Consumption", "Standard_ND")
    assert "$skip=1000" in manifest[1]["url"]
    assert len(parse(fetched).records) == len(parse([payload(n) for n in GOOD]).records)


def test_a_looping_next_page_link_stops_the_source(tmp_path, monkeypatch):
    monkeypatch.setattr(azure, "PRICE_TYPES", ("Consumption",))
    body = json.loads(payload(GOOD[0]).data)
    body["NextPageLink"] = f"{PRICES_URL}?$skip=1000"
    ctx = fake_context(tmp_path, "azure", lambda request: httpx.Response(200, json=body))
    with pytest.raises(SourceError, match="repeated one: the API is looping"):
        fetch(ctx)
    assert len(read_manifest(tmp_path / STAMP / "azure")["payloads"]) == 2  # both kept


def test_ndv2_is_eight_32_gb_v100s():
    """On main at 368c4bd ND40rs_v2 was mapped to the 16 GB V100 (NDv2 has 32 GB cards)."""
    assert count("Standard_ND40rs_v2") == ("V100-32GB", 8)


def test_the_nv_and_ng_series_are_read_by_rule():
    """On 368c4bd NVadsA10 v5, NVv3, NVv4 and NGads V620 sizes were missing from the table."""
    assert count("Standard_NV36ads_A10_v5") == ("A10", 1)
    assert count("Standard_NV72ads_A10_v5") == ("A10", 2)
    assert count("Standard_NV6ads_A10_v5")[1] == Fraction(1, 6)
    assert count("Standard_NV48s_v3") == ("M60", 4)
    assert count("Standard_NV32as_v4") == ("Radeon-Instinct-MI25", 1)
    assert count("Standard_NV4as_v4")[1] == Fraction(1, 8)
    assert count("Standard_NG32adms_V620_v1") == ("Radeon-Pro-V620", 1)
    assert count("Standard_NG8ads_V620_v1")[1] == Fraction(1, 4)
    assert count("Standard_NV12s_v2") == ("M60", 2)


def test_the_a100_v4_sizes_larger_than_96_vcpus_are_eight_gpus_of_their_memory():
    """On 65af2cf ND112asr and ND112amsr A100 v4 were 112 / 12 = 28/3 A100 80GB each."""
    assert count("Standard_ND112asr_A100_v4") == ("A100-40GB", 8)
    assert count("Standard_ND120asr_A100_v4") == ("A100-40GB", 8)
    assert count("Standard_ND112amsr_A100_v4") == ("A100-80GB", 8)
    assert count("Standard_ND96amsr_A100_v4") == ("A100-80GB", 8)


def test_rtx_pro_6000_sizes_have_the_counts_their_size_page_gives():
    assert count("Standard_NC128ds_xl_RTXPRO6000BSE_v6") == ("RTX-PRO-6000", 1)
    assert count("Standard_NC256lds_xl_RTXPRO6000BSE_v6") == ("RTX-PRO-6000", 2)
    assert count("Standard_NC320ds_xl_RTXPRO6000BSE_v6") == ("RTX-PRO-6000", 2)
    mapped, why = map_size("Standard_NC64ds_xl_RTXPRO6000BSE_v6")  # no page gives its count
    assert mapped is None and why == "series 'NC RTXPRO6000BSE v6' gives no GPU count for the size"


@pytest.mark.parametrize(
    ("size", "gpus"),
    [
        ("Standard_NC24lds_xl_RTXPRO6000BSE_v6", Fraction(1, 4)),
        ("Standard_NC36ds_xl_RTXPRO6000BSE_v6", Fraction(1, 4)),
        ("Standard_NC72lds_xl_RTXPRO6000BSE_v6", Fraction(1, 2)),
        ("Standard_NC144ds_xl_RTXPRO6000BSE_v6", 1),
        ("Standard_NC288lds_xl_RTXPRO6000BSE_v6", 2),
    ],
)
def test_the_ga_rtx_pro_6000_sizes_rent_shares_of_one_gpu_up_to_two(size, gpus):
    """The GA sizes below 144 vCPUs are a quarter or a half of one 96 GB GPU (Microsoft:
    'NC36ds ... 1/4 ... 24 GB'); Azure's Resource SKUs round them up to one GPU."""
    assert count(size) == ("RTX-PRO-6000", gpus)


@pytest.mark.parametrize(
    "size", ["Standard_NV6_Promo", "Standard_NV24_Promo", "Standard_NC12_Promo"]
)
def test_sizes_of_a_retired_series_are_refused_as_retired(size):
    mapped, why = map_size(size)
    assert mapped is None and "was retired on 2023-09-06" in why and "no GPU count" not in why


def test_every_documented_size_maps_and_every_series_is_asked_for():
    sizes = documented_sizes()
    documented = {name for s in series_table().values() for name in s.documented}
    assert set(sizes) == documented and len(sizes) >= 50
    assert all(name.startswith(azure.SERIES) for name in sizes)


def test_the_queries_ask_for_every_size_the_sku_table_prices(tmp_path):
    """On 8ef611a the queries asked for ND and NC only: 17 NV/NG sizes could never be priced."""
    filters: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        filters.append(parse_qs(urlparse(str(request.url)).query)["$filter"][0])
        return httpx.Response(200, content=EMPTY)

    fetch(fake_context(tmp_path, "azure", handler))
    asked = {series for text in filters for series in ASKED.findall(text)}
    types = {price for text in filters for price in ("Consumption", "Reservation") if price in text}
    assert types == {"Consumption", "Reservation"}
    unasked = [size for size in documented_sizes() if not any(s in size for s in asked)]
    assert unasked == []
    assert {"Standard_NV", "Standard_NG"} <= asked


def test_every_gpu_size_in_a_retail_prices_page_is_mapped_or_named():
    """On c4783d0 48 of the sizes Azure lists (the RTX PRO 6000 BSE v6 sizes, ND96is/isf/isrf
    H100 v5, ND96is MI300X v5, ND128isrf GB200 v6, NV v2, the Promo sizes) were refused as
    missing from a hand-kept table. The page: real size names (tests/fixtures/azure/ORIGIN.md)
    in the API's shape."""
    page = json.loads(payload("retail-gpu-sizes.json").data)
    sizes = {item["armSkuName"] for item in page["Items"]}
    result = parse([payload("retail-gpu-sizes.json")])
    priced = {r.instance_type for r in result.records}
    refused = {r.row["armSkuName"] for r in result.rejects}
    notes = " | ".join(result.notes)
    named = {size for size in sizes if size in notes}
    assert sizes == priced | refused | named
    assert not priced & named
    for size in ("Standard_ND96is_MI300X_v5", "Standard_ND128isrf_NDR_GB200_v6",
                 "Standard_ND96isf_H100_v5", "Standard_ND96isrf_H100_v5", "Standard_NV12s_v2",
                 "Standard_NC6_Promo"):  # fmt: skip
        assert size in priced, size
    gb200 = find(result.records, "Standard_ND128isrf_NDR_GB200_v6", "eastus")
    assert (gb200.chip, gb200.chip_count) == ("GB200", 4.0)
    assert find(result.records, "Standard_NC6_Promo", "eastus").extra["promo"] is True
    # The RTX PRO 6000 sizes whose count a size page gives are priced; the others are named,
    # not guessed.
    rtx = find(result.records, "Standard_NC128lds_xl_RTXPRO6000BSE_v6", "eastus")
    assert (rtx.chip, rtx.chip_count) == ("RTX-PRO-6000", 1.0)
    assert "Standard_NC64lds_xl_RTXPRO6000BSE_v6" in named
    ga = find(result.records, "Standard_NC288ds_xl_RTXPRO6000BSE_v6", "eastus")
    assert (ga.chip, ga.chip_count) == ("RTX-PRO-6000", 2.0)
    assert "series 'NC RTXPRO6000BSE v6' gives no GPU count for the size" in notes
    assert {"Standard_ND40s_v3", "Standard_NV6_Promo", "Standard_NC12_Promo"} <= named
    assert "series 'NV - v1' was retired on 2023-09-06" in notes
    assert_loadable(result)


def test_the_recorded_answer_marks_its_government_rows_and_its_spot_at_on_demand():
    # The real Retail Prices items of tests/fixtures/azure/ORIGIN.md: uksouth's ND96isr H200 v5
    # Spot meter at 106.0, the size's on-demand rate in japaneast and usgovvirginia (uksouth
    # lists no on-demand H200 there), and two usgovvirginia sizes.
    result = parse([payload("recorded-items-gpu-price-index.json")])
    spot = find(result.records, "Standard_ND96isr_H200_v5", "uksouth", "spot")
    assert spot.price_per_hour == 106.0
    assert spot.extra["spot_not_below_on_demand"] == (
        "spot 106 USD/h is not below on demand elsewhere, its region listing none (106): no "
        "discount, a stale or mislabelled price"
    )
    marked = {r.instance_type for r in result.records if "spot_not_below_on_demand" in r.extra}
    assert marked == {"Standard_ND96isr_H200_v5"}
    governed = {
        (r.instance_type, r.extra["restricted_region"])
        for r in result.records
        if "restricted_region" in r.extra
    }
    assert governed == {
        ("Standard_ND96isr_H200_v5", "a US government region"),
        ("Standard_ND96asr_v4", "a US government region"),
    }
    assert {r.region for r in result.records if "restricted_region" in r.extra} == {"usgovvirginia"}
