"""Sample runs of shadeform: GET /instances/types in its documented shape, at the listing
prices SkyPilot's published Shadeform catalog holds (skypilot-org/skypilot-catalog,
catalogs/v7/shadeform/vms.csv at 1e84987d; tests/fixtures/shadeform/ORIGIN.md). Not fetched
from Shadeform: cloud instance type names, storage and boot times are made up."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.shadeform import SOURCE_NAME, TYPES_URL
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = (
    "listing prices of SkyPilot's published Shadeform catalog in the API's documented shape, "
    "not fetched from the provider"
)
# cloud, shade instance type, cloud instance type, gpu_type, GPUs, GB per GPU, vCPUs, GB RAM,
# USD per instance-hour (the catalog's Price), regions.
# fmt: off
TYPES = (
    ("lambdalabs", "H100_sxm5x8", "gpu_8x_h100_sxm5", "H100", 8, 80, 208, 1800, 23.92,
     ("austin-usa-1", "dallas-usa-3")),
    ("lambdalabs", "H100", "gpu_1x_h100_pcie", "H100", 1, 80, 26, 200, 2.49,
     ("saltlakecity-usa-1",)),
    ("lambdalabs", "B200_sxm6x8", "gpu_8x_b200_sxm6", "B200", 8, 180, 208, 2900, 39.92,
     ("dulles-usa-1",)),
    ("hyperstack", "H100x8-NVLINK", "n3-H100x8-NVLink", "H100", 8, 80, 252, 1440, 15.6,
     ("montreal-canada-2",)),
    ("nebius", "H200_sxm5x8_NVLINK", "gpu-h200-sxm.8gpu", "H200", 8, 141, 128, 1600, 28.44,
     ("helsinki-finland-3", "paris-france-2", "kansascity-usa-3")),
    ("datacrunch", "B200", "1B200.31V", "B200", 1, 180, 31, 184, 4.9, ("helsinki-finland-5",)),
    ("datacrunch", "H200x8", "8H200.176V", "H200", 8, 141, 176, 1450, 26.95,
     ("reykjanesbaer-iceland-1", "helsinki-finland-2")),
    ("crusoe", "A100_80Gx8", "a100-80gb-sxm-ib.8x", "A100_80G", 8, 80, 96, 960, 13.2,
     ("culpeper-usa-1",)),
    ("digitalocean", "H100_sxm5", "gpu-h100x1-80gb", "H100", 1, 80, 20, 240, 3.34,
     ("newyork-usa-2", "toronto-canada-1")),
    ("scaleway", "L40S", "L40S-1-48G", "L40S", 1, 48, 8, 96, 1.61,
     ("paris-france-1", "warsaw-poland-1")),
    ("hyperstack", "RTXPro6000", "n3-RTX-PRO-6000x1", "RTXPro6000", 1, 96, 28, 225, 1.8,
     ("montreal-canada-2",)),
    ("massedcompute", "RTX6000Ada", "gpu_1x_rtx6000ada", "RTX6000Ada", 1, 48, 12, 80, 0.77,
     ("desmoines-usa-1", "kansascity-usa-1")),
    ("excesssupply", "RTX4090", "RTX4090", "RTX4090", 1, 24, 12, 70, 0.6, ("oslo-norway-3",)),
)
# fmt: on
# The types whose GPUs are PCIe cards (Lambda's 1x H100 and Hyperstack's H100 with NVLink
# bridges are the PCIe H100); the others' interconnect is "sxm".
PCIE = {
    "lambdalabs/H100",
    "hyperstack/H100x8-NVLINK",
    "scaleway/L40S",
    "hyperstack/RTXPro6000",
    "massedcompute/RTX6000Ada",
    "excesssupply/RTX4090",
}  # fmt: skip
# (cloud/shade type, first day) -> factor of its price from that day on.
MOVES = {("nebius/H200_sxm5x8_NVLINK", 4): 0.95, ("excesssupply/RTX4090", 6): 1.1}
# Spot per instance-hour, USD: Shadeform sells spot on Shade Cloud types (its spot guide's
# example launches excesssupply's); a synthetic rate, marked with the type's estimate.
SPOT = {"excesssupply/RTX4090": 0.42}
SPOT_ESTIMATE = "synthetic: no public Shadeform spot price was read here"
# A region that runs out of capacity on some days: listed, available false.
SOLD_OUT = {("hyperstack/H100x8-NVLINK", "montreal-canada-2"): (3, 5)}


def instance_type(values: tuple, day: int) -> dict[str, Any]:
    cloud, shade, kind, gpu, count, vram, vcpus, memory, price, regions = values
    name = f"{cloud}/{shade}"
    return {
        "cloud": cloud,
        "shade_instance_type": shade,
        "cloud_instance_type": kind,
        "configuration": {
            "memory_in_gb": memory, "storage_in_gb": 500, "vcpus": vcpus, "num_gpus": count,
            "gpu_type": gpu, "interconnect": "pcie" if name in PCIE else "sxm",
            "vram_per_gpu_in_gb": vram, "os_options": ["ubuntu22.04_cuda12.2_shade_os"],
            "gpu_manufacturer": "nvidia", "nvlink": count == 8,
        },
        "hourly_price": round(price * factor(MOVES, name, day) * 100),
        "deployment_type": "vm",
        "availability": [
            {"region": region, "available": not _sold_out(name, region, day),
             "display_name": region, "rental_type": "on_demand"}
            for region in regions
        ] + _spot(name, regions, day),
        "boot_time": {"min_boot_in_sec": 300, "max_boot_in_sec": 900},
        ESTIMATE_KEY: _estimate(name, day),
    }  # fmt: skip


def _estimate(name: str, day: int) -> str:
    """What a sample type's price rests on: SkyPilot's published catalog (not traced row by
    row in sample/REFERENCES.md), and the sample's scripted move where one applies."""
    moved = factor(MOVES, name, day)
    basis = "listing price of SkyPilot's published Shadeform catalog (vms.csv at 1e84987)"
    return basis if moved == 1.0 else f"{basis}, times {moved:g} by the sample's script"


def _spot(name: str, regions: tuple[str, ...], day: int) -> list[dict[str, Any]]:
    """A Shade Cloud type's spot entries: one more per region, rental_type "spot", its
    hourly_price a decimal string in dollars (Shadeform's spot guide)."""
    if name not in SPOT:
        return []
    price = f"{SPOT[name] * factor(MOVES, name, day):.2f}"
    return [
        {"region": region, "available": True, "display_name": region, "rental_type": "spot",
         "hourly_price": price, ESTIMATE_KEY: SPOT_ESTIMATE}
        for region in regions
    ]  # fmt: skip


def _sold_out(name: str, region: str, day: int) -> bool:
    days = SOLD_OUT.get((name, region))
    return days is not None and days[0] <= day <= days[1]


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/shadeform/: every instance type, as fetch archives it (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {SAMPLE_KEY: SAMPLE_LABEL, "instance_types": [instance_type(t, day) for t in TYPES]}
    writer.write(indented_json(body), TYPES_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
