"""vastai: the marketplace summary (median per GPU) on recorded offer searches, and fetch().

Fixtures in tests/fixtures/vastai/ have the bundles search response shape: search-on-demand.json
and search-bid.json answer the two searches; bundles.json is an archive from before the bid
search (the legacy path); bad-* are the failure cases. ORIGIN.md says where each comes from.
"""

from __future__ import annotations

import json
import statistics

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract.vastai import ALLOCATED_STORAGE_GIB, BUNDLES_URL, SEARCHES, fetch, parse
from tests.sources import FETCHED_AT, STAMP, assert_loadable, payloads_of
from tests.sources import context as fake_context

payload = payloads_of("vastai", BUNDLES_URL)


def searched(name: str, model: str, data: bytes | None = None) -> Payload:
    """A fixture as the answer to one of the two searches (its request archived with it)."""
    body = data if data is not None else payload(name).data
    request = {"method": "POST", "json": SEARCHES[model]}
    return Payload(body, BUNDLES_URL, FETCHED_AT, name, f"fixtures/vastai/{name}", request)


@pytest.fixture(scope="module")
def both():
    on_demand = searched("search-on-demand.json", "on_demand")
    return parse([on_demand, searched("search-bid.json", "spot")])


def summary(records, instance_type, model="on_demand"):
    [found] = [r for r in records if (r.instance_type, r.pricing_model) == (instance_type, model)]
    return found


@pytest.fixture(scope="module")
def good():
    return parse([payload("bundles.json")])


@pytest.fixture(scope="module")
def offers():
    return json.loads(payload("bundles.json").data)["offers"]


def test_the_price_is_the_median_per_gpu_so_one_odd_host_does_not_set_it(good, offers):
    h100 = [o for o in offers if o["gpu_name"] == "H100 SXM"]
    per_gpu = [o["dph_base"] / o["num_gpus"] for o in h100]
    assert max(per_gpu) == pytest.approx(24.0)  # the odd host
    record = summary(good.records, "1x H100 SXM 80GB")
    assert record.price_per_hour == pytest.approx(statistics.median(per_gpu), abs=1e-4)
    assert record.price_per_hour == pytest.approx(1.915)
    assert record.extra["offers"] == len(h100) == 8
    assert record.extra["min"] == pytest.approx(1.73)
    assert record.extra["max"] == pytest.approx(24.0)
    assert (record.chip, record.chip_count, record.region) == ("H100-SXM", 1.0, "global")


def test_interruptible_prices_are_the_min_bid_per_gpu(good, offers):
    h200 = [o for o in offers if o["gpu_name"] == "H200"]
    spot = summary(good.records, "1x H200 141GB", "spot")
    expected = statistics.median(o["min_bid"] / o["num_gpus"] for o in h200)
    assert spot.price_per_hour == pytest.approx(expected, abs=1e-4)
    assert (spot.plan, spot.extra["price_field"]) == ("interruptible", "min_bid")


def test_one_on_demand_and_one_spot_record_per_gpu_model(good):
    assert len(good.records) == 14
    assert sorted({r.instance_type for r in good.records}) == [
        "1x A100 SXM4 80GB",
        "1x B200 180GB",
        "1x H100 PCIE 80GB",
        "1x H100 SXM 80GB",
        "1x H200 141GB",
        "1x L40S 45GB",
        "1x RTX 4090 24GB",
    ]
    assert not good.rejects
    assert_loadable(good)


@pytest.mark.parametrize(
    ("instance_type", "chip"),
    [
        ("1x H100 SXM 80GB", "H100-SXM"),
        ("1x H100 PCIE 80GB", "H100-PCIe"),
        ("1x H200 141GB", "H200"),
        ("1x B200 180GB", "B200"),
        ("1x A100 SXM4 80GB", "A100-80GB"),
        ("1x L40S 45GB", "L40S"),
        ("1x RTX 4090 24GB", "RTX-4090"),
    ],
)
def test_every_fixture_spelling_maps_to_its_chip(good, instance_type, chip):
    assert summary(good.records, instance_type).chip == chip


def test_bad_offers_become_rejects_with_reasons_and_the_rest_loads():
    result = parse([payload("bad-offers.json")])
    reasons = [r.reason for r in result.rejects]
    assert "GPU count 0 is below 1" in reasons
    assert "GPU count '1/2' is not a whole number of GPUs" in reasons
    assert "gpu_ram None is not a memory size in MB" in reasons
    assert "offer has no gpu_name" in reasons
    assert "min_bid is None: not a price (offer 18500013, 1x H100 SXM)" in reasons
    on_demand = summary(result.records, "1x H100 SXM 80GB")
    assert on_demand.extra["offers"] == 4  # three good offers and the one without a bid
    assert summary(result.records, "1x H100 SXM 80GB", "spot").extra["offers"] == 3
    assert_loadable(result)


def test_a_renamed_price_field_is_a_layout_change():
    with pytest.raises(ParseError, match="lacks dph_base"):
        parse([payload("bad-renamed-field.json")])


def test_an_html_error_page_is_not_json():
    with pytest.raises(ParseError, match=f"vastai: the response from {BUNDLES_URL}.*not JSON"):
        parse([payload("bad-error-page.html")])


def test_fetch_posts_both_searches_and_archives_them(tmp_path):
    seen: list[httpx.Request] = []
    answers = {"on-demand": "search-on-demand.json", "bid": "search-bid.json"}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(503)
        return httpx.Response(
            200, content=payload(answers[json.loads(request.content)["type"]]).data
        )

    waits: list[float] = []
    fetched = fetch(fake_context(tmp_path, "vastai", handler, waits))
    assert waits == [1.0]
    sent = [json.loads(r.content) for r in seen[1:]]
    assert sent == [SEARCHES["on_demand"], SEARCHES["spot"]]
    assert {s["type"] for s in sent} == {"on-demand", "bid"}
    assert all(s["allocated_storage"] == ALLOCATED_STORAGE_GIB for s in sent)
    assert all(s["verified"] == {"eq": True} and s["rentable"] == {"eq": True} for s in sent)
    entries = read_manifest(tmp_path / STAMP / "vastai")["payloads"]
    assert [e["request"]["json"]["type"] for e in entries] == ["on-demand", "bid"]
    assert len(parse(fetched).records) == 24


def test_both_searches_are_priced_on_one_storage_basis(both):
    on_demand = json.loads(payload("search-on-demand.json").data)["offers"]
    bid = json.loads(payload("search-bid.json").data)["offers"]
    verified = [o for o in on_demand if o["verification"] == "verified"]
    h100 = [o for o in verified if o["gpu_name"] == "H100 SXM"]
    record = summary(both.records, "1x H100 SXM 80GB")
    expected = statistics.median(o["dph_total"] / o["num_gpus"] for o in h100)
    assert record.price_per_hour == pytest.approx(expected, abs=1e-4)
    assert record.extra["price_field"] == "dph_total"
    spot = summary(both.records, "1x H100 SXM 80GB", "spot")
    assert spot.plan == "interruptible" and spot.price_per_hour < record.price_per_hour
    # Vast adds the same allocated storage to the on-demand rate and to the minimum bid.
    storage = {o["id"]: round(o["dph_total"] - o["dph_base"], 6) for o in on_demand}
    assert all(round(o["dph_total"] - o["min_bid"], 6) == storage[o["id"]] for o in bid)
    assert not [n for n in both.notes if "above the on-demand median" in n]
    assert_loadable(both)


def test_offers_of_hosts_not_verified_are_left_out_and_counted(both):
    record = summary(both.records, "1x RTX 4090 24GB")
    assert record.extra["offers"] == 6 and record.extra["min"] > 0.2  # not the 0.18 one
    # each offer is in both searches (on demand and interruptible): two rows each
    for status, offer in (("deverified", 18402628), ("unverified", 18402591)):
        note = f"2 row(s) not loaded: a host not verified ({status}): left out of the medians"
        assert f"{note} ({offer})" in both.notes


def test_new_gpu_spellings_load_as_their_chips(both):
    chips = {r.instance_type: r.chip for r in both.records}
    assert chips["1x RTX A6000 48GB"] == "RTX-A6000"
    assert chips["1x RTX 6000Ada 48GB"] == "RTX-6000-Ada"
    assert chips["1x A10 22GB"] == "A10" and chips["1x A40 45GB"] == "A40"
    assert "unknown" not in chips.values()


def test_an_interruptible_median_above_on_demand_is_named():
    bid = json.loads(payload("search-bid.json").data)
    for offer in bid["offers"]:
        if offer["gpu_name"] == "A40":
            offer["dph_total"] = 5.0
    data = json.dumps(bid).encode()
    result = parse([searched("search-on-demand.json", "on_demand"), searched("b", "spot", data)])
    assert any(n.startswith("1x A40 45GB: the interruptible median 2.5") for n in result.notes)


def test_an_archive_from_before_the_bid_search_still_parses_and_says_so(good):
    assert any("an archive from before the interruptible search" in n for n in good.notes)


# A real answer of the bundles search, recorded 2026-08-22 (ORIGIN.md): the whole B300 book
# then, one machine (144888, Utah) listing a 2-GPU and a 4-GPU offer, both verified.
RECORDED = "b300-search-2026-08-22.json"


def test_a_recorded_answer_is_summarised_per_gpu_at_its_median():
    """As the answer to the on-demand search: dph_total per GPU, 15.002083/2 and 30.002083/4."""
    result = parse([searched(RECORDED, "on_demand")])
    [b300] = result.records
    assert (b300.instance_type, b300.chip, b300.chip_count) == ("1x B300 269GB", "B300", 1.0)
    assert (b300.region, b300.pricing_model, b300.plan) == ("global", "on_demand", "default")
    per_gpu = [30.00208333333334 / 4, 15.002083333333335 / 2]  # the offers' dph_total / num_gpus
    assert b300.price_per_hour == round(statistics.median(per_gpu), 4) == 7.5008
    assert (b300.extra["min"], b300.extra["max"], b300.extra["offers"]) == (7.5005, 7.501, 2)
    assert (b300.extra["cheapest_offer"], b300.extra["price_field"]) == (47419091, "dph_total")
    assert not result.rejects
    assert_loadable(result)


def test_a_recorded_answer_without_our_storage_basis_reads_the_host_rates():
    """As recorded (a search without allocated_storage): dph_base 15.0 and 30.0, min_bid 11.25
    and 22.5, per GPU 7.5 on demand and 5.625 interruptible, said to be the older basis."""
    result = parse([payload(RECORDED)])
    assert summary(result.records, "1x B300 269GB").price_per_hour == 7.5
    assert summary(result.records, "1x B300 269GB", "spot").price_per_hour == 5.625
    assert any("an archive from before the interruptible search" in n for n in result.notes)


def test_a_recorded_book_leaves_hosts_not_verified_out_of_the_median():
    """The H100 SXM book of 2026-08-22 (eight offers, the dearest first): two `unverified` and
    one `deverified` host are counted out; the median is of the five verified offers."""
    result = parse([searched("h100-sxm-search-2026-08-22.json", "on_demand")])
    [h100] = result.records
    assert (h100.instance_type, h100.chip) == ("1x H100 SXM 80GB", "H100-SXM")
    verified = [35.159555555555556 / 8, 20.375555555555554 / 4, 17.58088888888889 / 4,
                13.778222222222224 / 4, 12.482222222222221 / 4]  # fmt: skip
    assert h100.price_per_hour == round(statistics.median(verified), 4) == 4.3949
    assert (h100.extra["min"], h100.extra["max"], h100.extra["offers"]) == (3.1206, 5.0939, 5)
    assert h100.extra["cheapest_offer"] == 28762962  # India, 4 GPUs at 12.482222 an hour
    notes = " ".join(result.notes)
    assert "2 row(s) not loaded: a host not verified (unverified)" in notes
    assert "1 row(s) not loaded: a host not verified (deverified)" in notes
    assert not result.rejects
