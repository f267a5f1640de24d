"""Sample runs of vultr: the bare-metal and plan lists in the API's real shape, synthetic prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.vultr import METAL_URL, PAGE_SIZE, PLANS_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic prices in the API's real shape, not fetched from the provider"
# Every Vultr price of the sample is synthetic (no public copy of the plan lists was read):
# each plan says so in the data (sample/REFERENCES.md).
ESTIMATE = "synthetic: no public copy of Vultr's plan lists was read; near its listed level"
# id, CPU model, locations, hourly, preemptible hourly (None: not sold preemptible).
METAL = (
    ("vbm-256c-2048gb-8-mi300x-gpu", "EPYC 9534", ("ord",), 17.52, 14.72),
    ("vbm-256c-3072gb-8-mi325x-gpu", "EPYC 9535", ("ord", "atl"), 20.72, None),
    ("vbm-256c-3072gb-8-mi355x-gpu", "EPYC 9575F", ("atl",), 27.92, None),
    ("vbm-112c-2048gb-8-h100-gpu", "Platinum 8480+", ("sea", "ewr"), 23.92, 18.40),
    ("vbm-112c-3072gb-8-h200-gpu", "Platinum 8568Y+", ("ewr",), 29.52, None),
    ("vbm-128c-3072gb-8-b200-gpu", "Platinum 8570", ("ewr",), 41.52, None),
    ("vbm-64c-2048gb-8-l40-gpu", "EPYC 9354", ("ewr", "lax"), 13.52, 10.80),
    ("vbm-72c-480gb-gh200-gpu", "Grace", ("ewr",), 2.99, None),
    ("vbm-8c-132gb", "E-2388G", ("ewr", "ams"), 0.48, None),
)
# id, type, vCPUs, RAM GB, locations, hourly, gpu_type, gpu_vram_gb.
PLANS = (
    ("vc2-1c-1gb", "vc2", 1, 1, ("ewr", "ams", "sgp"), 0.007, None, None),
    ("vhf-2c-4gb", "vhf", 2, 4, ("ewr", "ams"), 0.036, None, None),
    ("vcg-a100-1c-6g-4vram", "vcg", 1, 6, ("ewr",), 0.123, "NVIDIA_A100", 4),
    ("vcg-a100-3c-30g-20vram", "vcg", 3, 30, ("ewr",), 0.617, "NVIDIA_A100", 20),
    ("vcg-a100-12c-120g-80vram", "vcg", 12, 120, ("ewr", "sjc"), 2.397, "NVIDIA_A100", 80),
    ("vcg-a100-24c-240g-160vram", "vcg", 24, 240, ("ewr",), 4.794, "NVIDIA_A100", 160),
    ("vcg-l40s-16c-180g-48vram", "vcg", 16, 180, ("ewr", "ams"), 1.671, "NVIDIA_L40S", 48),
    ("vcg-l40s-32c-375g-96vram", "vcg", 32, 375, ("ewr",), 3.342, "NVIDIA_L40S", 96),
    ("vcg-h100-24c-240g-80vram", "vcg", 24, 240, ("ewr",), 2.99, "NVIDIA_H100", 80),
    ("vcg-a40-2c-10g-8vram", "vcg", 2, 10, ("ewr", "fra"), 0.275, "NVIDIA_A40", 8),
    ("vcg-a40-12c-60g-48vram", "vcg", 12, 60, ("ewr", "fra"), 1.65, "NVIDIA_A40", 48),
)
# (plan id, first day) -> price factor from that day on.
MOVES = {
    ("vbm-112c-2048gb-8-h100-gpu", 4): 0.9,  # bare-metal H100 10% cheaper from day 4
    ("vcg-l40s-16c-180g-48vram", 6): 1.05,
}


def metal_plan(row: tuple, day: int) -> dict[str, Any]:
    name, cpu, locations, hourly, preemptible = row
    cores = int(name.split("-")[1].rstrip("c"))
    change = factor(MOVES, name, day)
    plan = {
        "id": name,
        "physical_cpus": 2 if cores > 16 else 1,
        "cpu_count": cores // 2,
        "cpu_cores": cores // 2,
        "cpu_threads": cores,
        "cpu_model": cpu,
        "cpu_mhz": 2450,
        "ram": int(name.split("-")[2].rstrip("gb")) * 1024,
        "disk": 3576 if "gpu" in name else 1900,
        "disk_count": 8 if "gpu" in name else 2,
        "bandwidth": 10240,
        "monthly_cost": round(hourly * change * 672, 2),
        "hourly_cost": round(hourly * change, 3),
        "type": "NVMe",
        "locations": list(locations),
        ESTIMATE_KEY: ESTIMATE,
    }
    if preemptible is not None:
        plan["monthly_cost_preemptible"] = round(preemptible * change * 672, 2)
        plan["hourly_cost_preemptible"] = round(preemptible * change, 3)
    return plan


def plan(row: tuple, day: int) -> dict[str, Any]:
    name, kind, cpus, ram, locations, hourly, gpu_type, vram = row
    price = round(hourly * factor(MOVES, name, day), 3)
    body: dict[str, Any] = {
        "id": name,
        "vcpu_count": cpus,
        "ram": ram * 1024,
        "disk": 25 * cpus,
        "disk_count": 1,
        "bandwidth": 1024 * min(cpus, 10),
        "monthly_cost": round(price * 730),
        "hourly_cost": price,
        "type": kind,
        "locations": list(locations),
        ESTIMATE_KEY: ESTIMATE,
    }
    if gpu_type:
        body |= {"gpu_vram_gb": vram, "gpu_type": gpu_type}
    return body


def page(key: str, plans: list[dict[str, Any]]) -> bytes:
    meta = {"total": len(plans), "links": {"next": "", "prev": ""}}
    return indented_json({SAMPLE_KEY: SAMPLE_LABEL, key: plans, "meta": meta})


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/vultr/: the bare-metal list, then the plan list, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    metal = page("plans_metal", [metal_plan(row, day) for row in METAL])
    plans = page("plans", [plan(row, day) for row in PLANS])
    writer.write(metal, METAL_URL, fetched_at=moment,
                 request={"method": "GET", "params": {"per_page": PAGE_SIZE}})  # fmt: skip
    params = {"type": "all", "per_page": PAGE_SIZE}
    writer.write(plans, PLANS_URL, fetched_at=moment, request={"method": "GET", "params": params})
    return writer.directory
