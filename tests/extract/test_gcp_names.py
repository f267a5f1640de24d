"""gcp: SKU names as Google spells them today, flex-start and calendar mode, and the shapes
Google rents only through reservations. Every description here is real (public captures listed
in tests/fixtures/gcp/ORIGIN.md); the page holding them is in the catalog's recorded shape."""

from __future__ import annotations

import pytest

from chipcost.extract._gcp_skus import machine_types, not_a_rental, stem_key, usage_of
from chipcost.extract.gcp import SERVICES, SKUS_URL, parse
from tests.sources import assert_loadable, payloads_of

payload = payloads_of("gcp", SKUS_URL.format(service=SERVICES[0]))
GPU_KEY = {m.name: m.gpu for m in machine_types()}
CPU_KEY = {m.name: m.cpu for m in machine_types()}


def offer(records, name, model, term="none"):
    [found] = [
        r for r in records if (r.instance_type, r.pricing_model, r.term) == (name, model, term)
    ]
    return found


@pytest.mark.parametrize(
    ("description", "machine", "usage"),
    [
        ("H200 141GB GPU running in Americas", "a3-ultragpu-8g", "OnDemand"),
        ("Nvidia H200 141GB GPU running in Americas", "a3-ultragpu-8g", "OnDemand"),
        ("A4 Nvidia B200 (1 gpu slice) running in Americas", "a4-highgpu-8g", "OnDemand"),
        ("Spot Preemptible A4 Nvidia B200 (1 gpu slice) running in Americas", "a4-highgpu-8g",
         "OnDemand"),
        ("Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year", "a4-highgpu-8g",
         "OnDemand"),
        ("DWS Calendar Mode A4 Nvidia B200 (1 gpu slice) in Seoul", "a4-highgpu-8g", "Calendar"),
        ("RTX 6000 96GB running in Oregon", "g4-standard-48", "OnDemand"),
        ("Nvidia H100 80GB Mega GPU running in Frankfurt", "a3-megagpu-8g", "OnDemand"),
        ("Nvidia H100 Mega 80GB GPU attached to Spot Preemptible VMs running in Tokyo",
         "a3-megagpu-8g", "OnDemand"),
        ("Nvidia H100 80GB Plus GPU running in Americas", "a3-megagpu-8g", "OnDemand"),
        ("Nvidia H100 Mega 80GB GPU attached to DWS Defined Duration VMs running in Americas",
         "a3-megagpu-8g", "FlexStart"),
        ("Reserved Nvidia H100 80GB Mega GPU in Americas in Calendar Mode", "a3-megagpu-8g",
         "Calendar"),
        ("Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Americas",
         "a3-highgpu-8g", "FlexStart"),
        ("Reserved Nvidia H100 80GB GPU in Seoul in Calendar Mode", "a3-highgpu-8g", "Calendar"),
        ("Nvidia Tesla T4 GPU attached to DWS Defined Duration VMs running in Seoul",
         "nvidia-tesla-t4", "FlexStart"),
    ],
)  # fmt: skip
def test_every_captured_spelling_finds_its_machine(description, machine, usage):
    """On 8ef611a 'H200 141GB GPU' and 'RTX 6000 96GB' matched no row (the table spelled them
    with the Nvidia prefix and a trailing GPU) and flex-start and calendar SKUs were skipped."""
    assert stem_key(description) == GPU_KEY[machine]
    assert usage_of(description, "OnDemand") == usage
    assert not not_a_rental(description)


def test_flex_start_cores_and_memory_find_the_a3_rows():
    assert stem_key("DWS Defined Duration A3 Core running in Americas") == CPU_KEY["a3-highgpu-8g"]
    assert usage_of("DWS Defined Duration A3 Ram running in Americas", "OnDemand") == "FlexStart"


def test_a_prepaid_reservation_sku_is_not_a_rental():
    assert not_a_rental("Reserved Nvidia Tesla A100 GPU in Seoul")


def test_flex_start_and_calendar_mode_are_their_own_pricing_models():
    result = parse([payload("public-sku-captures.json")])
    flex = offer(result.records, "a3-highgpu-8g", "flex_start")
    # 8 H100 at 4.200761 + 208 vCPUs at 0.010934 + 1,872 GiB at 0.000952: the capture's SKUs.
    assert flex.price_per_hour == pytest.approx(8 * 4.200761 + 208 * 0.010934 + 1872 * 0.000952)
    assert flex.sku == "341A-49A5-0C07" and flex.chip == "H100-SXM"
    calendar = offer(result.records, "a4-highgpu-8g", "capacity_block")
    assert calendar.price_per_hour == pytest.approx(8 * 11.277)
    # A3 Mega's flex-start cores and memory are not in the captures: said, not priced at 0.
    assert not [r for r in result.records if r.instance_type == "a3-megagpu-8g"]
    assert any(n.startswith("a3-megagpu-8g: no a3plus cpu (FlexStart)") for n in result.notes)
    assert_loadable(result)


def test_shapes_rented_only_through_reservations_are_never_on_demand():
    """On 8ef611a A4, A3 Ultra, A3 Mega and A3 High 8-GPU were recorded as on demand at their
    reservation rate; Google rents them through reservations, flex-start or spot."""
    result = parse([payload("public-sku-captures.json")])
    reservation_only = {m.name for m in machine_types() if not m.on_demand}
    assert {"a4-highgpu-8g", "a4x-highgpu-4g", "a3-ultragpu-8g", "a3-megagpu-8g",
            "a3-highgpu-8g", "a3-edgegpu-8g"} <= reservation_only  # fmt: skip
    on_demand = {r.instance_type for r in result.records if r.pricing_model == "on_demand"}
    assert not on_demand & reservation_only
    [note] = [n for n in result.notes if "on-demand price not loaded" in n]
    assert "a3-ultragpu-8g" in note and "a4-highgpu-8g" in note and "reservations" in note


def test_a_catalog_row_whose_gpu_sku_no_page_lists_is_named():
    result = parse([payload("public-sku-captures.json")])
    [note] = [n for n in result.notes if "'Nvidia L4 GPU'" in n]
    assert "g2-standard-4" in note and "not priced" in note
