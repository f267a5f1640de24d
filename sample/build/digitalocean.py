"""Sample runs of digitalocean: /v2/sizes in the API's real shape, synthetic sizes and prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.digitalocean import PAGE_SIZE, SIZES_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic sizes and prices in the API's real shape, not fetched from the provider"
# slug, gpu model, GPUs, GiB per GPU, vCPUs, RAM GiB, hourly, regions.
# fmt: off
GPU_SIZES = (
    ("gpu-h100x1-80gb", "nvidia_h100", 1, 80, 20, 240, 3.39, ("nyc2", "tor1", "atl1")),
    ("gpu-h100x8-640gb", "nvidia_h100", 8, 80, 160, 1920, 23.92, ("nyc2", "tor1")),
    ("gpu-h200x1-141gb", "nvidia_h200", 1, 141, 24, 240, 3.44, ("atl1",)),
    ("gpu-h200x8-1128gb", "nvidia_h200", 8, 141, 192, 1920, 27.52, ("atl1",)),
    ("gpu-mi300x1-192gb", "amd_mi300x", 1, 192, 20, 240, 1.99, ("atl1",)),
    ("gpu-mi300x8-1536gb", "amd_mi300x", 8, 192, 160, 1920, 15.92, ("atl1", "nyc2")),
    ("gpu-mi325x8-2048gb", "amd_mi325x", 8, 256, 160, 1920, 20.72, ("atl1",)),
    ("gpu-l40sx1-48gb", "nvidia_l40s", 1, 48, 8, 64, 1.57, ("tor1",)),
    ("gpu-6000adax1-48gb", "nvidia_rtx6000_ada", 1, 48, 8, 64, 1.57, ("tor1",)),
    ("gpu-4000adax1-20gb", "nvidia_rtx_4000_ada", 1, 20, 8, 32, 0.76, ("tor1",)),
)
CPU_SIZES = (("s-1vcpu-1gb", "Basic", 1, 1, 0.00893), ("c-4", "CPU-Optimized", 4, 8, 0.125))
REGIONS = ("ams3", "fra1", "nyc1", "nyc3", "sfo3", "sgp1", "tor1")
# fmt: on
# (slug, first day) -> price factor from that day on.
MOVES = {("gpu-mi300x1-192gb", 3): 0.9, ("gpu-h200x8-1128gb", 7): 0.95}
# Every GPU size marked an estimate in the data (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: no public copy of DigitalOcean's prices was read here; near its listed level"


def disk(amount: int, scratch: int = 0) -> list[dict[str, Any]]:
    found = [{"type": "local", "size": {"amount": amount, "unit": "gib"}}]
    if scratch:
        found.append({"type": "scratch", "size": {"amount": scratch, "unit": "gib"}})
    return found


def gpu_size(row: tuple, day: int) -> dict[str, Any]:
    slug, model, gpus, memory, vcpus, ram, hourly, regions = row
    description = f"{model.split('_', 1)[1].replace('_', ' ').upper()} GPU - {gpus}X"
    price = round(hourly * factor(MOVES, slug, day), 2)
    vram = {"amount": memory * gpus, "unit": "gib"}
    return {
        "slug": slug,
        "memory": ram * 1024,
        "vcpus": vcpus,
        "disk": 720 if gpus == 1 else 2046,
        "transfer": 15.0 if gpus == 1 else 60.0,
        "price_monthly": round(price * 744, 2),
        "price_hourly": price,
        "regions": list(regions),
        "available": True,
        "description": description,
        "networking_throughput": 10000,
        "gpu_info": {"count": gpus, "vram": vram, "model": model},
        "disk_info": disk(720 if gpus == 1 else 2046, 0 if gpus == 1 else 40960),
    }


def cpu_size(row: tuple) -> dict[str, Any]:
    slug, description, vcpus, ram, hourly = row
    return {
        "slug": slug,
        "memory": ram * 1024,
        "vcpus": vcpus,
        "disk": 25 * vcpus,
        "transfer": 1.0,
        "price_monthly": round(hourly * 672, 2),
        "price_hourly": hourly,
        "regions": list(REGIONS),
        "available": True,
        "description": description,
        "networking_throughput": 2000,
        "disk_info": disk(25 * vcpus),
    }


def sizes(day: int) -> bytes:
    found = [cpu_size(row) for row in CPU_SIZES] + [
        {**gpu_size(row, day), ESTIMATE_KEY: ESTIMATE} for row in GPU_SIZES]  # fmt: skip
    body = {SAMPLE_KEY: SAMPLE_LABEL, "sizes": found, "links": {}, "meta": {"total": len(found)}}
    return indented_json(body)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/digitalocean/: one page of /v2/sizes, as fetch archives it (no token kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    request = {"method": "GET", "params": {"per_page": PAGE_SIZE}}
    writer.write(sizes(day), SIZES_URL, fetched_at=moment, request=request)
    return writer.directory
