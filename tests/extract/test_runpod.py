"""runpod: parse() on REST v2 catalog and GraphQL gpuTypes answers, fetch() against fake endpoints.

tests/fixtures/runpod/ORIGIN.md says where each file comes from: RunPod's documented catalog
example, and both answers in RunPod's shapes with synthetic prices; bad-* are the failure cases.
"""

from __future__ import annotations

import json

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.settings import SourceSettings
from chipcost.extract.runpod import (
    API_KEY,
    GPU_TYPES_QUERY,
    GRAPHQL_URL,
    REST_URL,
    SOURCE,
    fetch,
    parse,
)
from tests.paths import FIXTURES
from tests.sources import FETCHED_AT, STAMP, assert_loadable, payloads_of
from tests.sources import context as fake_context

payload = payloads_of("runpod", GRAPHQL_URL)
catalog = payloads_of("runpod", REST_URL)


def offer(records, instance_type, model="on_demand", plan="secure", term="none"):
    found = [
        r
        for r in records
        if (r.instance_type, r.pricing_model, r.plan, r.term) == (instance_type, model, plan, term)
    ]
    assert len(found) == 1, (instance_type, model, plan, term, len(found))
    return found[0]


@pytest.fixture(scope="module")
def good():
    return parse([payload("gpu-types.json")])


def test_every_price_field_becomes_one_record(good):
    h100 = [r for r in good.records if r.sku == "NVIDIA H100 80GB HBM3"]
    assert len(h100) == 8  # secure, community, two spot, four commitment terms
    assert offer(good.records, "1x H100 SXM").price_per_hour == 2.69
    assert offer(good.records, "1x H100 SXM", plan="community").price_per_hour == 1.99
    assert offer(good.records, "1x H100 SXM", "spot").price_per_hour == 1.75
    assert offer(good.records, "1x H100 SXM", "spot", "community").price_per_hour == 1.25
    for term, price in (("1w", 2.59), ("1mo", 2.49), ("3mo", 2.39), ("6mo", 2.29)):
        assert offer(good.records, "1x H100 SXM", "commitment", term=term).price_per_hour == price
    assert_loadable(good)


def test_records_are_per_gpu_with_provenance(good):
    h200 = offer(good.records, "1x H200 SXM")
    assert (h200.chip, h200.chip_count, h200.region) == ("H200", 1.0, "global")
    assert h200.source_url == GRAPHQL_URL
    assert h200.payload_ref == f"{STAMP}/runpod/gpu-types.json"
    assert h200.extra["memory_gb"] == 141 and h200.extra["priced"] == "per GPU-hour"


def test_clouds_and_options_not_sold_give_no_record(good):
    assert not [r for r in good.records if r.sku == "NVIDIA H200" and r.plan == "community"]
    assert not [r for r in good.records if r.sku == "NVIDIA B200" and r.pricing_model == "spot"]
    assert not [r for r in good.records if r.sku == "unknown"]  # RunPod's placeholder type
    assert not good.rejects


@pytest.mark.parametrize(
    ("gpu_id", "chip"),
    [
        ("NVIDIA H100 80GB HBM3", "H100-SXM"),
        ("NVIDIA H100 PCIe", "H100-PCIe"),
        ("NVIDIA H100 NVL", "H100-NVL"),
        ("NVIDIA H200", "H200"),
        ("NVIDIA B200", "B200"),
        ("NVIDIA A100 80GB PCIe", "A100-80GB-PCIe"),  # the PCIe card, not the SXM module
        ("NVIDIA A100-SXM4-80GB", "A100-80GB"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA L4", "L4"),
        ("AMD Instinct MI300X OAM", "MI300X"),
        ("NVIDIA GeForce RTX 4090", "RTX-4090"),
    ],
)
def test_every_fixture_spelling_maps_to_its_chip(good, gpu_id, chip):
    assert {r.chip for r in good.records if r.sku == gpu_id} == {chip}


def test_unknown_spellings_are_loaded_and_reported():
    # A GPU id no alias lists (the fixture's 4090 renamed to a card that does not exist).
    data = payload("gpu-types.json").data.replace(b"RTX 4090", b"RTX 9090")
    result = parse([Payload(data, GRAPHQL_URL, FETCHED_AT, "renamed", "renamed")])
    assert {r.chip for r in result.records if r.sku == "NVIDIA GeForce RTX 9090"} == {"unknown"}
    assert any("RTX 9090" in note and "chip_aliases.csv" in note for note in result.notes)


def test_graphql_errors_fail_the_source_with_the_message():
    with pytest.raises(ParseError) as caught:
        parse([payload("bad-graphql-errors.json")])
    message = str(caught.value)
    assert message.startswith(f"runpod: the GraphQL API at {GRAPHQL_URL}")
    assert "Cannot query field" in message and "GPU_TYPES_QUERY" in message


def test_unusable_prices_become_rejects_and_the_rest_loads():
    result = parse([payload("bad-prices.json")])
    reasons = sorted(r.reason for r in result.rejects)
    assert reasons == [
        "gpuTypes entry 'not an object' is not a GPU type with an id",
        "securePrice is None although secureCloud is true: no usable price",
        "secureSpotPrice is '3.50' although secureCloud is true: no usable price",
    ]
    assert {r.instance_type for r in result.records} == {"1x H100 SXM", "1x B200"}
    assert_loadable(result)


def test_fetch_with_a_key_reads_the_rest_catalog_then_graphql_and_archives_no_secret(tmp_path):
    bodies = {
        REST_URL: catalog("catalog-gpus.json").data,
        GRAPHQL_URL: payload("gpu-types.json").data,
    }
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(429, headers={"Retry-After": "2"})
        body = bodies[str(request.url)]
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    waits: list[float] = []
    settings = SourceSettings(runpod_api_key="rp-secret-key")
    ctx = fake_context(tmp_path, "runpod", handler, waits, settings)
    fetched = fetch(ctx)
    assert waits == [2.0] and [str(r.url) for r in seen] == [REST_URL, REST_URL, GRAPHQL_URL]
    assert seen[1].method == "GET" and seen[1].headers["Authorization"] == "Bearer rp-secret-key"
    assert seen[-1].method == "POST" and json.loads(seen[-1].content) == {"query": GPU_TYPES_QUERY}
    assert seen[-1].headers["Authorization"] == "Bearer rp-secret-key"
    manifest = read_manifest(tmp_path / STAMP / "runpod")
    assert "rp-secret-key" not in json.dumps(manifest)
    assert manifest["payloads"][1]["request"]["json"] == {"query": GPU_TYPES_QUERY}
    assert len(parse(fetched).records) == 39


@pytest.fixture(scope="module")
def keyed():
    """A keyed run's two answers: on-demand from the catalog, spot and terms from GraphQL."""
    return parse([catalog("catalog-gpus.json"), payload("gpu-types.json")])


def test_a_keyed_run_takes_on_demand_from_rest_and_spot_and_terms_from_graphql(keyed):
    on_demand = [r for r in keyed.records if r.pricing_model == "on_demand"]
    assert on_demand and {r.source_url for r in on_demand} == {REST_URL}
    others = [r for r in keyed.records if r.pricing_model != "on_demand"]
    assert others and {r.source_url for r in others} == {GRAPHQL_URL}
    h100 = offer(keyed.records, "1x H100 SXM")
    assert (h100.chip, h100.price_per_hour, h100.extra["max_gpus_per_pod"]) == ("H100-SXM", 2.69, 8)
    assert offer(keyed.records, "1x H100 SXM", "spot").price_per_hour == 1.75
    assert offer(keyed.records, "1x H100 SXM", "commitment", term="6mo").price_per_hour == 2.29
    # One record per offer: the same prices as the GraphQL answer alone gives, none twice.
    alone = parse([payload("gpu-types.json")]).records
    assert len(keyed.records) == len(alone) == 39
    assert not keyed.rejects
    assert_loadable(keyed)


def test_runpods_documented_catalog_example_gives_both_clouds():
    result = parse([catalog("documented-catalog-gpus.json")])
    rtx = {r.plan: r for r in result.records}
    assert (rtx["secure"].price_per_hour, rtx["community"].price_per_hour) == (0.44, 0.31)
    assert {r.chip for r in result.records} == {"RTX-4090"}
    assert rtx["community"].extra["max_gpus_per_pod"] == 4
    assert any("no GraphQL answer" in note for note in result.notes)  # on-demand only
    assert_loadable(result)


def test_unusable_catalog_prices_become_rejects():
    result = parse([catalog("bad-catalog-prices.json")])
    assert sorted(r.reason for r in result.rejects) == [
        "gpus entry 'not an object' is not a GPU type with an id",
        "price.community is '1.99' although community is true: no usable price",
        "price.secure is 0.0 although secure is true: no usable price",
    ]
    assert sorted((r.instance_type, r.plan) for r in result.records) == [
        ("1x H100 SXM", "secure"),
        ("1x L4", "community"),
        ("1x L4", "secure"),
    ]


def graphql_gone(request: httpx.Request) -> httpx.Response:
    if str(request.url) == REST_URL:
        return httpx.Response(200, content=catalog("catalog-gpus.json").data)
    return httpx.Response(410, json={"errors": [{"message": "the GraphQL API is retired"}]})


def test_graphql_gone_with_a_key_loads_rest_on_demand_and_says_so(tmp_path):
    messages: list[str] = []
    settings = SourceSettings(runpod_api_key="rp-key")
    ctx = fake_context(tmp_path, "runpod", graphql_gone, settings=settings, messages=messages)
    fetched = fetch(ctx)
    assert [p.url for p in fetched] == [REST_URL]
    assert any("410 Gone" in m for m in messages)
    result = parse(fetched)
    assert {r.pricing_model for r in result.records} == {"on_demand"}
    assert any("no spot or commitment price" in note for note in result.notes)


def test_graphql_gone_without_a_key_is_skipped_naming_the_key(tmp_path):
    with pytest.raises(SourceSkipped) as caught:
        fetch(fake_context(tmp_path, "runpod", graphql_gone))
    message = str(caught.value)
    assert "410 Gone" in message and API_KEY.env in message and "\n" not in message


def test_the_source_names_the_endpoint_its_provider_retires():
    assert "GraphQL" in SOURCE.retiring and "early 2027" in SOURCE.retiring


def test_fetch_without_a_key_sends_no_authorization(tmp_path):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=payload("gpu-types.json").data)

    fetch(fake_context(tmp_path, "runpod", handler))
    assert "Authorization" not in seen[0].headers


def test_a_refused_key_names_the_variable(tmp_path):
    refused = SourceSettings(runpod_api_key="rp-expired-key")
    ctx = fake_context(tmp_path, "runpod", lambda request: httpx.Response(401), settings=refused)
    with pytest.raises(SourceError, match=f"check the API key \\({API_KEY.env}\\)"):
        fetch(ctx)


def with_types(*changed: dict, file: str = "gpu-types.json", drop: tuple[str, ...] = ()):
    """The GraphQL answer of `file`, its first GPU type's fields changed by each of `changed`
    (one GPU type each, added after the others) and `drop` removed from every GPU type."""
    body = json.loads((FIXTURES / "runpod" / file).read_text())
    types = body["data"]["gpuTypes"]
    types += [{**types[0], **change} for change in changed]
    for gpu in types:
        for name in drop:
            gpu.pop(name, None)
    return parse([payload(file, data=json.dumps(body).encode())])


# RunPod's MIG slices of its RTX PRO 6000 Blackwell Server Edition, as RunPod names them (the
# names public RunPod users record: "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb");
# the $0.59 of the 1g.24gb slice is the price issue 75 quotes from a RunPod gpuTypes answer of
# 2026, the rest of each entry the shape of gpu-types.json.
MIG_1G = {
    "id": "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb",
    "displayName": "RTX PRO 6000 MIG 1g.24gb", "memoryInGb": 24, "securePrice": 0.59,
    "communityCloud": False, "communityPrice": 0, "secureSpotPrice": 0, "communitySpotPrice": 0,
    "oneWeekPrice": 0, "oneMonthPrice": 0, "threeMonthPrice": 0, "sixMonthPrice": 0,
}  # fmt: skip
MIG_2G = {**MIG_1G, "id": MIG_1G["id"].replace("1g.24gb", "2g.48gb"), "memoryInGb": 48,
          "displayName": "RTX PRO 6000 MIG 2g.48gb", "securePrice": 1.18}  # fmt: skip


def test_a_mig_slice_is_its_share_of_the_whole_card_priced_per_whole_chip_and_marked():
    result = with_types(MIG_1G, MIG_2G)
    quarter = offer(result.records, "1x RTX PRO 6000 MIG 1g.24gb")
    half = offer(result.records, "1x RTX PRO 6000 MIG 2g.48gb")
    # 24 GB and 48 GB of the 96 GB card (chips.csv): the slice rule, extract/_slices.py.
    assert (quarter.chip, quarter.chip_count, quarter.price_per_hour) == (
        "RTX-PRO-6000",
        0.25,
        0.59,
    )
    assert (half.chip, half.chip_count) == ("RTX-PRO-6000", 0.5)
    assert quarter.extra["share"] == "1/4 of one RTX-PRO-6000"
    assert half.extra["share"] == "1/2 of one RTX-PRO-6000"
    assert quarter.price_per_hour / quarter.chip_count == pytest.approx(2.36)  # a whole card
    whole = [r for r in result.records if "MIG" not in r.instance_type]
    assert not any("share" in r.extra for r in whole)
    assert_loadable(result)


def test_a_mig_slice_of_a_card_chipcost_does_not_know_is_refused_naming_it():
    odd = {**MIG_1G, "id": "NVIDIA Mystery 9000 MIG 1g.10gb", "displayName": "Mystery MIG"}
    result = with_types(odd)
    [refused] = result.rejects
    assert refused.reason.startswith("Mystery MIG: a MIG slice, ")
    assert "no whole chip to price it against" in refused.reason


@pytest.mark.parametrize(
    "flags", [("communityCloud",), ("secureCloud",), ("secureCloud", "communityCloud")]
)
def test_a_gpu_type_without_a_cloud_flag_is_refused_naming_it(flags):
    # Without communityCloud each community price would vanish unsaid; with neither flag,
    # every GPU type would be "sold on neither Secure nor Community Cloud".
    body = json.loads((FIXTURES / "runpod" / "gpu-types.json").read_text())
    first = body["data"]["gpuTypes"][0]
    for flag in flags:
        del first[flag]
    result = parse([payload("gpu-types.json", data=json.dumps(body).encode())])
    [refused] = result.rejects
    verb = "it decides" if len(flags) == 1 else "they decide"
    assert refused.reason == (
        f"lacks {', '.join(flags)}: {verb} what its price means, so it is not read"
    )
    assert refused.sku == first["id"]
    assert not any(r.sku == first["id"] for r in result.records)
    assert len(result.records) > 1  # the other GPU types load


def test_a_rest_entry_without_a_cloud_flag_is_refused_naming_it():
    body = json.loads((FIXTURES / "runpod" / "catalog-gpus.json").read_text())
    first = body["gpus"][0]
    del first["community"]
    result = parse([catalog("catalog-gpus.json", data=json.dumps(body).encode())])
    [refused] = result.rejects
    assert refused.reason == "lacks community: it decides what its price means, so it is not read"
    assert refused.sku == first["id"]
