"""gcp: SKU names as Google spells them today, flex-start and calendar mode, and the shapes
Google rents only through reservations. Every description here is real (public captures listed
in tests/fixtures/gcp/ORIGIN.md); the page holding them is in the catalog's recorded shape."""

from __future__ import annotations

import pytest

from chipcost.extract._gcp_skus import machine_types, not_a_rental, sold_by, stem_key, usage_of
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
    ("description", "machine", "listed", "usage"),
    [
        ("H200 141GB GPU running in Americas", "a3-ultragpu-8g", "OnDemand", "OnDemand"),
        ("Nvidia H200 141GB GPU running in Americas", "a3-ultragpu-8g", "OnDemand", "OnDemand"),
        ("A4 Nvidia B200 (1 gpu slice) running in Americas", "a4-highgpu-8g", "OnDemand",
         "OnDemand"),
        ("Spot Preemptible A4 Nvidia B200 (1 gpu slice) running in Americas", "a4-highgpu-8g",
         "Preemptible", "Preemptible"),
        ("Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year", "a4-highgpu-8g",
         "Commit1Yr", "Commit1Yr"),
        ("DWS Calendar Mode A4 Nvidia B200 (1 gpu slice) in Seoul", "a4-highgpu-8g", "OnDemand",
         "Calendar"),
        ("RTX 6000 96GB running in Oregon", "g4-standard-48", "OnDemand", "OnDemand"),
        ("Nvidia H100 80GB Mega GPU running in Frankfurt", "a3-megagpu-8g", "OnDemand",
         "OnDemand"),
        ("Nvidia H100 Mega 80GB GPU attached to Spot Preemptible VMs running in Tokyo",
         "a3-megagpu-8g", "Preemptible", "Preemptible"),
        ("Nvidia H100 80GB Plus GPU running in Americas", "a3-megagpu-8g", "OnDemand",
         "OnDemand"),
        ("Nvidia H100 Mega 80GB GPU attached to DWS Defined Duration VMs running in Americas",
         "a3-megagpu-8g", "OnDemand", "FlexStart"),
        ("Reserved Nvidia H100 80GB Mega GPU in Americas in Calendar Mode", "a3-megagpu-8g",
         "OnDemand", "Calendar"),
        ("Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Americas",
         "a3-highgpu-8g", "OnDemand", "FlexStart"),
        ("Reserved Nvidia H100 80GB GPU in Seoul in Calendar Mode", "a3-highgpu-8g", "OnDemand",
         "Calendar"),
        ("Nvidia Tesla T4 GPU attached to DWS Defined Duration VMs running in Seoul",
         "nvidia-tesla-t4", "OnDemand", "FlexStart"),
    ],
)  # fmt: skip
def test_every_captured_spelling_finds_its_machine(description, machine, listed, usage):
    """On 8ef611a 'H200 141GB GPU' and 'RTX 6000 96GB' matched no row (the table spelled them
    with the Nvidia prefix and a trailing GPU) and flex-start and calendar SKUs were skipped."""
    assert stem_key(description) == GPU_KEY[machine]
    assert usage_of(description, listed) == usage
    assert not not_a_rental(description)


@pytest.mark.parametrize(
    ("description", "listed"),
    [
        ("Spot Preemptible A4 Nvidia B200 (1 gpu slice) running in Americas", "OnDemand"),
        ("Nvidia L4 GPU attached to Spot Preemptible VMs running in Netherlands", "Commit1Yr"),
        ("Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year", "OnDemand"),
        ("Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year", "Commit3Yr"),
        ("Commitment v1: TpuV6e in Americas for 1 Year", "OnDemand"),
        ("SPOT PREEMPTIBLE Nvidia L4 GPU running in Dallas", "OnDemand"),
    ],
)
def test_a_description_and_usage_type_that_disagree_name_no_usage(description, listed):
    """Read together: on c4783d0 a spot or commitment description under another usage type was
    filed under the usage type alone."""
    assert usage_of(description, listed) == ""


def test_flex_start_cores_and_memory_find_the_a3_rows():
    assert stem_key("DWS Defined Duration A3 Core running in Americas") == CPU_KEY["a3-highgpu-8g"]
    assert usage_of("DWS Defined Duration A3 Ram running in Americas", "OnDemand") == "FlexStart"


@pytest.mark.parametrize(
    "description",
    [
        "Reserved Nvidia Tesla A100 GPU in Seoul",
        "RESERVED Nvidia L4 GPU running in Dallas",
        "reserved Nvidia L4 GPU running in Dallas",
        "Nvidia L4 GPU Sole Tenancy running in Dallas",
        "nvidia l4 gpu sole tenancy running in dallas",
    ],
)
def test_a_reservation_or_other_product_is_not_a_rental_in_any_case(description):
    """On c4783d0 only 'Reserved' (capitalised) was seen: 'RESERVED Nvidia L4 GPU running in
    Dallas' with usage type OnDemand became eight on-demand g2 prices."""
    assert not_a_rental(description)


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


def test_shapes_rented_only_through_reservations_are_priced_as_reservations():
    """On 8ef611a A4, A3 Ultra, A3 Mega and A3 High 8-GPU were recorded as on demand at their
    reservation rate; on c4783d0 that rate was dropped (and a3-highgpu-8g's on-demand price with
    it). Google charges a future reservation the OnDemand SKU's rate."""
    result = parse([payload("public-sku-captures.json")])
    on_demand_sold = {
        m.name for m in machine_types() if sold_by(m.family, "on_demand").offered == "yes"
    }
    not_on_demand = {m.name for m in machine_types()} - on_demand_sold
    assert {"a4-highgpu-8g", "a4x-highgpu-4g", "a3-ultragpu-8g", "a3-megagpu-8g",
            "a3-edgegpu-8g", "a4x-maxgpu-4g-metal"} <= not_on_demand  # fmt: skip
    assert "a3-highgpu-8g" not in not_on_demand
    on_demand = {r.instance_type for r in result.records if r.pricing_model == "on_demand"}
    assert not on_demand & not_on_demand
    # The capture's A4 slice SKU (16.11 an hour a GPU) is what an A4 reservation is charged.
    a4 = offer(result.records, "a4-highgpu-8g", "reserved")
    assert a4.price_per_hour == pytest.approx(8 * 16.11) and a4.term == "none"
    assert "future reservation" in a4.extra["priced"]
    assert a4.extra["sold_by"].startswith("future_reservation: https://cloud.google.com/")
    assert_loadable(result)


def test_a_catalog_row_whose_gpu_sku_no_page_lists_is_named():
    result = parse([payload("public-sku-captures.json")])
    [note] = [n for n in result.notes if "'Nvidia L4 GPU'" in n]
    assert "g2-standard-4" in note and "not priced" in note
