"""Sample runs of hyperbolic: the VM catalog in its real shape, at the shapes and prices of
SkyPilot's published Hyperbolic catalog (skypilot-org/skypilot-catalog,
catalogs/v7/hyperbolic/vms.csv at 00e7b160; tests/fixtures/hyperbolic/ORIGIN.md), not fetched
from Hyperbolic."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.hyperbolic import CATALOG_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = (
    "shapes and prices of SkyPilot's published Hyperbolic catalog in the answer's shape, "
    "not fetched from the provider"
)
# GPU (AcceleratorName), full name, MiB per GPU, vCPUs, GiB RAM and GiB disk per GPU, USD per
# GPU-hour, GPU counts listed.
HOSTS = (
    ("H100", "NVIDIA-H100-80GB-HBM3", 81559, 28, 271, 300, 1.39, (1, 2, 4, 8)),
    ("H100", "NVIDIA-H100-80GB-HBM3", 81559, 45, 433, 480, 1.29, (1, 2, 4)),
    ("RTX4090", "NVIDIA-GeForce-RTX-4090", 24564, 11, 45, 267, 0.25, (1, 2, 4, 6)),
)
# (GPU, first day) -> factor of its prices from that day on.
MOVES = {("RTX4090", 5): 0.92}


def vm(host: tuple, count: int, day: int) -> dict[str, Any]:
    gpu, model, mib, cpus, ram, disk, price, _ = host
    vcpus, memory = cpus * count, ram * count
    return {
        "InstanceType": f"{count}x-{gpu}-{vcpus}-{memory}",
        "AcceleratorName": gpu,
        "AcceleratorCount": count,
        "vCPUs": vcpus,
        "MemoryGiB": memory,
        "StorageGiB": disk * count,
        "Price": round(price * factor(MOVES, gpu, day) * count, 2),
        "Region": "default",
        "GpuInfo": {
            "Gpus": [
                {
                    "Name": model,
                    "Manufacturer": "NVIDIA",
                    "Count": count,
                    "MemoryInfo": {"SizeInMiB": mib},
                }
            ],
            "TotalGpuMemoryInMiB": mib * count,
        },  # fmt: skip
        "SpotPrice": None,
        ESTIMATE_KEY: _estimate(gpu, day),
    }


def _estimate(gpu: str, day: int) -> str:
    """What a sample VM's price rests on: a per-GPU rate of SkyPilot's published catalog (not
    traced row by row in sample/REFERENCES.md), and the sample's scripted move where one
    applies."""
    moved = factor(MOVES, gpu, day)
    basis = "per-GPU rate of SkyPilot's published Hyperbolic catalog (vms.csv at 00e7b160)"
    return basis if moved == 1.0 else f"{basis}, times {moved:g} by the sample's script"


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/hyperbolic/: the VM catalog, as fetch archives it (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    vms = [vm(host, count, day) for host in HOSTS for count in host[-1]]
    body = {SAMPLE_KEY: SAMPLE_LABEL, "vms": vms}
    writer.write(indented_json(body), CATALOG_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
