"""gcp: parse() on a recorded Cloud Billing page and pages in its shape; fetch() against fakes.

tests/fixtures/gcp/ORIGIN.md says which file is recorded (opencost's copy of a real page) and
which are reconstructed in its shape (written with chipcost.sample.build.gcp).
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract import gcp
from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract._gcp_skus import stem_key, tpu_version
from chipcost.extract.gcp import SERVICES, SKUS_URL, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, assert_loadable, payloads_of
from tests.sources import context as fake_context

COMPUTE_URL = SKUS_URL.format(service=SERVICES[0])
TPU_URL = SKUS_URL.format(service=SERVICES[1])
KEY = "AIza-test-key-123"


payload = payloads_of("gcp", COMPUTE_URL)


def good():
    pages = [payload("compute-skus-page-1.json"), payload("compute-skus-page-2.json")]
    return [*pages, payload("tpu-skus-page-1.json", TPU_URL)]


def find(records, instance_type, region="us-central1", model="on_demand", term="none"):
    found = [
        r
        for r in records
        if (r.instance_type, r.region, r.pricing_model, r.term)
        == (instance_type, region, model, term)
    ]
    assert len(found) == 1, (instance_type, region, model, term, len(found))
    return found[0]


def test_the_recorded_page_prices_a2_vms_from_gpu_cores_and_memory():
    result = parse([payload("recorded-compute-skus-opencost.json")])
    a2 = find(result.records, "a2-highgpu-1g")
    # 1 A100 at 2.933908 + 12 vCPUs at 0.031611 + 85 GiB at 0.004237 (Google's own list price).
    assert a2.price_per_hour == pytest.approx(2.933908 + 12 * 0.031611 + 85 * 0.004237)
    assert (a2.chip, a2.chip_count, a2.sku) == ("A100-40GB", 1.0, "039F-D0DA-4055")
    assert a2.extra["effective"] == "2023-03-24T10:52:50.681Z"
    # The VM's 12 vCPUs and 85 GiB (gcp_machine_types.csv); its local SSD is not in the file.
    assert (a2.vcpus, a2.ram_gb, a2.disk_gb) == (12.0, 85.0, None)
    # Five A2 standard types in the three regions the SKUs list; IDR-priced E2/T2D are not ours.
    assert len(result.records) == 15 and not result.rejects
    assert {r.region for r in result.records} == {"us-central1", "us-east1", "us-west1"}
    assert find(result.records, "a2-megagpu-16g", "us-west1").chip_count == 16.0
    assert_loadable(result)


def test_a_machine_carries_the_estimate_marks_of_the_skus_that_price_it_each_once():
    """The sample's mark (extract/_estimate.py) on a SKU reaches every record it prices; a
    machine joined from marked SKUs says each mark once, and an unmarked page marks nothing."""
    body = json.loads((FIXTURES / "gcp" / "recorded-compute-skus-opencost.json").read_bytes())
    marks = {"A2 Instance Core": "synthetic: a", "A2 Instance Ram": "synthetic: a"}
    marks["Nvidia Tesla A100 GPU"] = "synthetic: b"
    for sku in body["skus"]:
        stem = sku["description"].removesuffix(" running in Americas")
        if stem in marks:
            sku[ESTIMATE_KEY] = marks[stem]
    marked = parse([payload("recorded-compute-skus-opencost.json", data=json.dumps(body).encode())])
    a2 = find(marked.records, "a2-highgpu-1g")
    assert a2.extra["estimate"] == "synthetic: a; synthetic: b"
    assert all(r.extra.get("estimate") for r in marked.records)
    plain = parse([payload("recorded-compute-skus-opencost.json")])
    assert not [r for r in plain.records if "estimate" in r.extra]


def test_components_join_across_pages_for_every_usage_type():
    records = parse(good()).records
    g2 = find(records, "g2-standard-4")  # L4 on page 1, G2 cores and memory on page 2
    assert g2.price_per_hour == pytest.approx(0.56004 + 4 * 0.024174 + 16 * 0.002832)
    spot = find(records, "a3-highgpu-8g", model="spot")
    assert spot.price_per_hour == pytest.approx(8 * 2.25 + 208 * 0.0132 + 1872 * 0.00177)
    for term, gpu in (("1yr", 7.73928), ("3yr", 4.40845)):
        cud = find(records, "a3-highgpu-8g", model="commitment", term=term)
        assert cud.payment == "no_upfront" and cud.extra["gpu_per_hour"] == gpu


def test_slice_billed_types_are_chips_times_the_slice_price():
    a4 = find(parse(good()).records, "a4-highgpu-8g", model="commitment", term="1yr")
    assert (a4.chip, a4.chip_count, a4.price_per_hour) == ("B200", 8.0, pytest.approx(8 * 11.1159))
    assert a4.extra["billing"] == "slice" and "vcpu_per_hour" not in a4.extra
    # The slice price includes the VM: 224 vCPUs and 3,968 GiB (gcp_machine_types.csv).
    assert (a4.vcpus, a4.ram_gb) == (224.0, 3968.0)


def test_tpus_are_rented_as_slices_priced_per_chip_hour():
    records = parse(good()).records
    v6e8 = find(records, "ct6e-standard-8t", "us-east5")
    # Google's per chip-hour price (2.70) times the slice's 8 chips.
    assert (v6e8.chip, v6e8.chip_count, v6e8.price_per_hour) == ("TPU-v6e", 8.0, 21.6)
    assert v6e8.extra | {"priced": "per chip-hour", "chip_per_hour": 2.7} == v6e8.extra
    assert (v6e8.extra["accelerator_type"], v6e8.extra["topology"]) == ("v6e-8", "2x4")
    v6e256 = find(records, "v6e-256", model="spot")
    assert v6e256.price_per_hour == pytest.approx(256 * 1.08)
    # Every slice of a chip keeps the chip's price per chip-hour.
    slices = [
        r
        for r in records
        if r.chip == "TPU-v6e" and (r.region, r.pricing_model) == ("us-east5", "on_demand")
    ]
    assert [r.chip_count for r in slices] == [1, 4, 8, 16, 32, 64, 128, 256]
    assert {round(r.price_per_hour / r.chip_count, 9) for r in slices} == {2.7}
    assert find(records, "ct5lp-hightpu-4t", model="spot").chip_count == 4.0
    # v5p names count TensorCores: v5p-8 is the one-host VM of 4 chips, v5p-16 has 8.
    assert find(records, "ct5p-hightpu-4t").extra["accelerator_type"] == "v5p-8"
    assert find(records, "v5p-16").price_per_hour == pytest.approx(8 * 4.2)
    # No one-chip TPU-v6e offer: one v6e chip is rented as ct6e-standard-1t.
    assert not [r for r in records if r.instance_type in {"tpu-v6e", "tpu-v5litepod"}]
    # A TPU with no slices listed (v4) stays one chip.
    v4 = find(records, "tpu-v4", "us-east5", "commitment", "3yr")
    assert (v4.chip_count, v4.price_per_hour) == (1.0, 1.45)


def test_tpu7x_is_rented_as_googles_four_chip_machine_type():
    # Google names the one-host TPU7x VM tpu7x-standard-4t (accelerator type tpu7x-8): a TPU7x
    # SKU in the recorded page's shape, at the v6e SKU's rate, is priced as that, never as one
    # chip named 'tpu-tpu7x'.
    page = json.loads(payload("compute-skus-page-2.json").data)
    v6e = next(s for s in page["skus"] if s["description"] == "TpuV6e running in Americas")
    page["skus"] = [{**v6e, "skuId": "7X00-0000-0001", "description": "TPU7x running in Americas"}]
    records = parse([payload("tpu7x.json", data=json.dumps(page).encode())]).records
    assert {r.instance_type for r in records} == {"tpu7x-standard-4t"}
    ironwood = find(records, "tpu7x-standard-4t", "us-east5")
    assert (ironwood.chip, ironwood.chip_count, ironwood.price_per_hour) == ("TPU-v7", 4.0, 10.8)
    assert (ironwood.extra["accelerator_type"], ironwood.extra["topology"]) == ("tpu7x-8", "2x2x1")
    assert gcp.tpu_types()["tpu7x-standard-4t"] == ("TPU-v7", "tpu7x-8", 4)


def test_tpu_v3_is_priced_and_gpus_attached_to_n1_vms_are_priced_alone():
    result = parse(good())
    # On 368c4bd TPU v3 was an unmapped accelerator (named in a note, no price).
    assert not [note for note in result.notes if "gcp_tpus.csv" in note]
    v3 = [r for r in result.records if r.chip == "TPU-v3"]
    assert v3 and {r.pricing_model for r in v3} >= {"on_demand", "spot", "commitment"}
    assert all(r.chip_count == 1.0 for r in v3)
    # On 8ef611a the T4 and V100 SKUs were counted and left out: no N1 shape was priced.
    t4 = find(result.records, "nvidia-tesla-t4")
    assert (t4.chip, t4.chip_count, t4.price_per_hour) == ("T4", 1.0, 0.35)
    assert t4.extra["priced"] == "the GPUs only: the N1 VM they attach to is billed apart"
    # The price is the GPU's alone: no host is rented with it, so none is given.
    assert (t4.vcpus, t4.ram_gb, t4.disk_gb) == (None, None, None)
    assert find(result.records, "nvidia-tesla-v100", model="spot").chip == "V100"
    assert not result.rejects
    assert_loadable(result)


def test_every_offer_priced_as_the_gpus_alone_is_marked_so_and_no_other():
    """On 5ed854ca the reads marked gpu_alone by source alone (cudo, daytona, tensordock), so
    gcp's N1-attached T4 and V100, priced without their VM, were read as whole instances; the
    mark now takes the types this parser prices so from the same table, and A2, A3 and G2,
    whose price holds the VM, stay unmarked."""
    from chipcost.core.vocabulary import gpu_alone

    records = parse(good()).records
    marked = {r.instance_type for r in records if gpu_alone(r.source, r.instance_type)}
    alone = {r.instance_type for r in records if r.extra.get("billing") == "gpu_only"}
    assert marked == alone == {"nvidia-tesla-t4", "nvidia-tesla-v100"}
    assert {r.instance_type for r in records} > marked  # the VMs' prices are not


def test_bad_rows_become_rejects_and_the_rest_loads():
    result = parse([payload("bad-rows.json")])
    reasons = sorted(r.reason for r in result.rejects)
    assert any("Jakarta: currency 'IDR' is not USD" in r for r in reasons)
    assert any("Warsaw: usageUnit 'mo' is not 'h'" in r for r in reasons)
    assert any("Nowhere: serviceRegions is empty" in r for r in reasons)
    assert any("Zurich: unitPrice" in r and "not a positive price" in r for r in reasons)
    assert any("SKU is a str" in r for r in reasons)
    assert len(reasons) == 5
    assert any("Nvidia GX900 GPU" in note for note in result.notes)
    assert {r.instance_type for r in result.records} >= {"a2-highgpu-1g"}
    assert_loadable(result)


def test_a_renamed_field_is_a_layout_change():
    with pytest.raises(ParseError, match="pricingInfo"):
        parse([payload("bad-renamed-field.json")])


def test_pages_that_price_no_accelerator_fail_loudly():
    with pytest.raises(ParseError, match="parsed 0 offers"):
        parse([payload("error-body.json")])


@pytest.mark.parametrize(
    ("description", "key"),
    [
        ("A2 Instance Core running in Americas", "a2 cpu"),
        ("Commitment v1: A2 Cpu in APAC for 1 Year", "a2 cpu"),
        ("Commitment v1: A2 Ram in Americas for 3 Years", "a2 ram"),
        ("Spot Preemptible Nvidia Tesla A100 GPU running in Americas", "a100"),
        ("Nvidia L4 GPU attached to Spot Preemptible VMs running in Netherlands", "l4"),
        ("Commitment v1: Nvidia L4 GPU running in Frankfurt for 1 Year", "l4"),
    ],
)
def test_description_stems(description, key):
    assert stem_key(description) == key


@pytest.mark.parametrize(
    ("description", "version"),
    [
        ("TpuV6e running in Americas", "v6e"),
        ("Tpu-v5p Pod running in Americas", "v5p"),
        ("TPU v5 lite device running in EMEA", "v5lite"),
        ("TPU7x running in Americas", "7x"),
        ("A3 Instance Core running in Americas", ""),
    ],
)
def test_tpu_versions(description, version):
    assert tpu_version(description) == version


def test_without_a_key_the_source_is_skipped(tmp_path):
    ctx = fake_context(tmp_path, "gcp", lambda request: httpx.Response(500))
    with pytest.raises(SourceSkipped, match="no GCP API key: set GCP_API_KEY"):
        fetch(ctx)


def test_fetch_reads_both_services_page_by_page_and_archives_no_key(tmp_path):
    pages = {
        (COMPUTE_URL, None): payload("compute-skus-page-1.json").data,
        (COMPUTE_URL, "page-2-token"): payload("compute-skus-page-2.json").data,
        (TPU_URL, None): payload("tpu-skus-page-1.json", TPU_URL).data,
    }
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        query = parse_qs(urlparse(str(request.url)).query)
        seen.append(query)
        url = str(request.url).split("?")[0]
        return httpx.Response(200, content=pages[(url, query.get("pageToken", [None])[0])])

    settings = SourceSettings(gcp_api_key=KEY)
    fetched = fetch(fake_context(tmp_path, "gcp", handler, settings=settings))
    assert len(fetched) == 3 and all(q["key"] == [KEY] for q in seen)
    assert all(q["currencyCode"] == ["USD"] for q in seen)
    manifest = read_manifest(tmp_path / STAMP / "gcp")
    assert KEY not in json.dumps(manifest)
    assert manifest["payloads"][1]["request"]["params"]["pageToken"] == "page-2-token"
    assert len(parse(fetched).records) == len(parse(good()).records)


def test_a_looping_page_token_stops_the_source(tmp_path, monkeypatch):
    monkeypatch.setattr(gcp, "SERVICES", (SERVICES[0],))
    body = {"skus": [], "nextPageToken": "same"}
    settings = SourceSettings(gcp_api_key=KEY)
    ctx = fake_context(tmp_path, "gcp", lambda r: httpx.Response(200, json=body), settings=settings)
    with pytest.raises(SourceError, match="repeated one: the API is looping"):
        fetch(ctx)


def test_a_refused_key_fails_the_source_without_showing_it(tmp_path):
    body = payload("error-body.json").data
    settings = SourceSettings(gcp_api_key=KEY)
    ctx = fake_context(
        tmp_path, "gcp", lambda r: httpx.Response(400, content=body), settings=settings
    )
    with pytest.raises(SourceError) as caught:
        fetch(ctx)
    assert "400" in str(caught.value) and KEY not in str(caught.value)


def test_a3_high_without_local_ssd_is_priced_as_a3_high():
    """On 368c4bd the -nolssd A3 shapes were missing; they are the same GPUs, vCPUs and
    memory, so the same component SKUs price them."""
    records = parse(good()).records
    for size, model in (("1g", "on_demand"), ("8g", "spot")):
        plain = find(records, f"a3-highgpu-{size}", model=model)
        bare = find(records, f"a3-highgpu-{size}-nolssd", model=model)
        assert (bare.chip, bare.chip_count) == (plain.chip, plain.chip_count)
        assert bare.price_per_hour == plain.price_per_hour


@pytest.mark.parametrize("count", [201, 10_000])
def test_a_sku_sold_in_more_regions_than_any_provider_has_is_refused(count):
    """A GPU, core and memory SKU each listing `count` regions would price every machine type
    in each: refused whole, naming the bound (extract/_kit.py MAX_PLACES_PER_ROW)."""
    name = "recorded-compute-skus-opencost.json"
    body = json.loads((FIXTURES / "gcp" / name).read_text())
    places = [f"place-{i}" for i in range(count)]
    for sku in body["skus"]:
        sku["serviceRegions"] = places
    result = parse([payload(name, data=json.dumps(body).encode())])
    refused = [r.reason for r in result.rejects if "more than any provider has" in r.reason]
    assert refused and all(f"lists {count:,} places to rent it in" in r for r in refused)
    assert not any(r.region.startswith("place-") for r in result.records)
