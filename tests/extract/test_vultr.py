"""vultr: parse() on gpuhunt's plan-list mocks (bare metal and Cloud GPU), bad rows, fetch().

tests/fixtures/vultr/ holds GET /v2/plans-metal and GET /v2/plans?type=all in the API's shape
(ORIGIN.md), rows the parser must refuse, and a list where hourly_cost was renamed.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import ArchiveWriter, read_payloads
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract.base import FetchContext
from chipcost.extract.vultr import METAL_URL, PLANS_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import FETCHED_AT, STAMP, assert_loadable, payloads_of

FIXTURES = FIXTURES / "vultr"


payload = payloads_of("vultr", METAL_URL)


def good() -> list[Payload]:
    return [payload("plans-metal.json"), payload("plans.json", PLANS_URL)]


def offers(records, name):
    return {(r.region, r.pricing_model): r for r in records if r.instance_type == name}


def test_bare_metal_plans_priced_per_server_with_preemptible_as_spot():
    records = parse(good()).records
    mi300x = offers(records, "vbm-256c-2048gb-8-mi300x-gpu")
    assert set(mi300x) == {("ord", "on_demand"), ("ord", "spot")}
    on_demand = mi300x[("ord", "on_demand")]
    assert (on_demand.chip, on_demand.chip_count, on_demand.price_per_hour) == ("MI300X", 8, 17.52)
    assert mi300x[("ord", "spot")].price_per_hour == 14.72
    h100 = offers(records, "vbm-112c-2048gb-8-h100-gpu")[("sea", "on_demand")]
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-SXM", 8, 23.92)
    # cpu_threads 224; ram 2097152 MB; disk 960 GB times disk_count 2.
    assert (h100.vcpus, h100.ram_gb, h100.disk_gb) == (224.0, 2048.0, 1920.0)
    assert h100.source_url == METAL_URL and h100.payload_ref.endswith("plans-metal.json")


def test_whole_cloud_gpu_cards_load_and_slices_are_priced_as_shares():
    result = parse(good())
    [a100] = offers(result.records, "vcg-a100-12c-120g-80vram").values()
    assert (a100.region, a100.chip, a100.chip_count, a100.price_per_hour) == (
        "ewr", "A100-80GB", 1, 2.397,
    )  # fmt: skip
    assert "share" not in a100.extra
    # vcpu_count 12; ram 122880 MB; disk 1400 GB, disk_count 1.
    assert (a100.vcpus, a100.ram_gb, a100.disk_gb) == (12.0, 120.0, 1400.0)
    # The slice rule (extract/_slices.py): 4 GB and 40 GB of an 80 GB A100 are 1/20 and 1/2 of
    # one, priced per whole-chip equivalent and marked.
    [tiny] = offers(result.records, "vcg-a100-1c-6g-4vram").values()
    [half] = offers(result.records, "vcg-a100-6c-60g-40vram").values()
    assert (tiny.chip, tiny.chip_count, tiny.price_per_hour) == ("A100-80GB", 0.05, 0.123)
    assert (half.chip, half.chip_count, half.price_per_hour) == ("A100-80GB", 0.5, 1.397)
    assert tiny.extra["share"] == "1/20 of one A100-80GB"
    assert half.extra["share"] == "1/2 of one A100-80GB"
    assert not any("slice" in n for n in result.notes)
    assert_loadable(result)


def test_one_record_per_location():
    body = json.loads((FIXTURES / "plans-metal.json").read_text())
    body["plans_metal"][0]["locations"] = ["ord", "ewr", "lax"]
    data = json.dumps(body).encode()
    records = parse([Payload(data, METAL_URL, FETCHED_AT, "x", "x")]).records
    regions = {r.region for r in records if r.chip == "MI300X" and r.pricing_model == "on_demand"}
    assert regions == {"ord", "ewr", "lax"}


@pytest.mark.parametrize(
    ("sku", "reason"),
    [
        ("vbm-256c-2048gb-8-mi300x-gpu", "price '$17.52/hr' is not a plain number"),
        ("vbm-112c-2048gb-8-h100-gpu", "price 0 is not a positive amount"),
        ("vbm-custom-gpu-cluster", "a GPU bare-metal id this parser cannot read"),
    ],
)
def test_bad_bare_metal_rows_become_rejects(sku, reason):
    result = parse([payload("bad-rows.json")])
    [refused] = [r for r in result.rejects if r.sku == sku]
    assert reason in refused.reason and refused.payload_ref.endswith("bad-rows.json")
    assert not [r for r in result.records if r.instance_type == sku]
    assert not [r for r in result.rejects if r.sku == "vbm-8c-132gb"]  # CPU server: not read


def test_bad_cloud_gpu_rows_become_rejects_and_free_cpu_plans_are_ignored():
    result = parse([payload("bad-cloud-gpu-rows.json", PLANS_URL)])
    reasons = {r.sku: r.reason for r in result.rejects}
    assert "not a whole number of 80 GB A100-80GB cards" in reasons["vcg-a100-18c-180g-120vram"]
    assert "without gpu_type" in reasons["vcg-mystery-4c-30g"]
    assert "vc2-1c-1gb-free" not in reasons and not result.records


def test_an_error_object_fails_the_source():
    data = json.dumps({"error": "Invalid API token.", "status": 401}).encode()
    with pytest.raises(ParseError, match="plans_metal list"):
        parse([Payload(data, METAL_URL, FETCHED_AT, "e", "e")])


def test_fetch_follows_the_cursor_and_archives_every_page(tmp_path: Path):
    metal = json.loads((FIXTURES / "plans-metal.json").read_text())
    first = {"plans_metal": metal["plans_metal"][:1], "meta": {"links": {"next": "bmV4dA=="}}}
    second = {"plans_metal": metal["plans_metal"][1:], "meta": {"links": {"next": ""}}}
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        if request.url.path.endswith("/plans"):
            return httpx.Response(200, content=(FIXTURES / "plans.json").read_bytes())
        return httpx.Response(200, json=second if request.url.params.get("cursor") else first)

    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, STAMP, SOURCE.name),
        transport=httpx.MockTransport(handler),
        sleep=lambda s: None,
    )
    payloads = fetch(ctx)
    assert [p.url for p in payloads] == [METAL_URL, METAL_URL, PLANS_URL]
    assert seen[1].params["cursor"] == "bmV4dA==" and seen[2].params["type"] == "all"
    assert all("Authorization" not in str(p.request) for p in payloads)
    archived = read_payloads(tmp_path / STAMP, "vultr")
    assert {r.instance_type for r in parse(archived).records} >= {
        "vbm-256c-2048gb-8-mi300x-gpu", "vbm-112c-2048gb-8-h100-gpu", "vcg-a100-12c-120g-80vram",
    }  # fmt: skip


def test_a_price_that_cannot_be_deployed_is_not_loaded_and_is_said():
    """On 368c4bd a plan with deploy_ondemand false was recorded at an on-demand price no one
    can rent at (Vultr's 8 x MI300X bare metal: preemptible only)."""
    result = parse([payload("deploy-flags.json")])
    mi300x = offers(result.records, "vbm-256c-2048gb-8-mi300x-gpu")
    assert set(mi300x) == {("ord", "spot")} and mi300x[("ord", "spot")].price_per_hour == 14.80
    h100 = offers(result.records, "vbm-112c-2048gb-8-h100-gpu")
    assert {model for _, model in h100} == {"on_demand"}
    [on_demand] = [n for n in result.notes if "deploy_ondemand" in n]
    [preemptible] = [n for n in result.notes if "deploy_preemptible" in n]
    assert "vbm-256c-2048gb-8-mi300x-gpu" in on_demand
    assert "vbm-112c-2048gb-8-h100-gpu" in preemptible


def test_dedicated_plans_named_only_by_their_id_are_read():
    """On 8ef611a a list of vdm plans alone failed the source ("2 row(s): 0 refused, 2 not
    offers"): they have no gpu_type, the id names the GPU and the plan's video memory."""
    result = parse([payload("plans-vdm.json", PLANS_URL)])
    a40 = offers(result.records, "vcg-a40-24c-120g-48vram")
    assert set(a40) == {("blr", "on_demand")}  # deploy_preemptible false, no preemptible price
    assert (a40[("blr", "on_demand")].chip, a40[("blr", "on_demand")].chip_count) == ("A40", 1.0)
    assert a40[("blr", "on_demand")].price_per_hour == 1.712
    mi325x = offers(result.records, "vcg-mi325x-252c-2872g-1536vram")
    assert mi325x == {}  # deploy_ondemand false and no preemptible price listed
    assert any("vcg-mi325x-252c-2872g-1536vram" in note for note in result.notes)


def test_a_dedicated_plan_whose_memory_is_no_whole_number_of_cards_is_refused():
    plan = {"id": "vcg-a40-24c-120g-40vram", "type": "vdm", "hourly_cost": 1.0, "locations": ["x"]}
    body = json.dumps({"plans": [plan]}).encode()
    result = parse([Payload(body, PLANS_URL, FETCHED_AT)])
    [reject] = result.rejects
    assert "40 GB is not a whole number of 48 GB A40 cards" in reject.reason


def test_a_dedicated_plans_cards_are_its_memory_over_the_cards_as_its_ids_count_them():
    """Issue 48: on c4783d0 vcg-mi325x-126c-1436g-768vram loaded as 3 MI325X (768 GB over the
    card's 256; only the 8-card plan was in an exact-id table), a per-chip price 33% high.
    Vultr's ids count 192 GB an MI325X card (its 8 x MI325X server is 1536vram)."""
    result = parse([payload("plans-vdm-mi325x.json", PLANS_URL)])
    counts = {r.instance_type: (r.chip, r.chip_count) for r in result.records}
    assert counts["vcg-mi325x-126c-1436g-768vram"] == ("MI325X", 4.0)
    assert counts["vcg-mi325x-252c-2872g-1536vram"] == ("MI325X", 8.0)
    half = offers(result.records, "vcg-mi325x-126c-1436g-768vram")[("ord", "on_demand")]
    assert half.extra["card_count_basis"] == "768 GB / 192 GB a card"
