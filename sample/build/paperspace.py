"""Sample runs of paperspace: the machine types in the console's tRPC shape, reconstructed
(tests/fixtures/paperspace/ORIGIN.md), synthetic prices, not fetched from Paperspace."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.paperspace import MACHINE_TYPES_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic machine types in the reconstructed shape, not fetched from the provider"
GIB = 1024**3
# Label, vCPUs, GiB RAM, GPU name, GPUs, GPU memory, USD per hour.
MACHINES = (
    ("H100", 20, 250, "Hopper H100", 1, "80 GB", 5.95),
    ("H100x8", 128, 1638, "Hopper H100", 8, "80 GB", 47.60),
    ("A100-80G", 12, 90, "Ampere A100 80G", 1, "80 GB", 3.18),
    ("A100-80Gx8", 96, 640, "Ampere A100 80G", 8, "80 GB", 25.44),
    ("A6000", 8, 45, "Ampere A6000", 1, "48 GB", 1.89),
)
REGIONS = ("NY2", "CA1", "AMS1")
MOVES = {("A6000", 7): 0.9}
ESTIMATE = "synthetic: no public copy of Paperspace's machine rates was read here"


def machine(row: tuple, day: int) -> dict[str, Any]:
    label, cpus, ram, gpu, count, memory, rate = row
    moved = factor(MOVES, label, day)
    said = ESTIMATE if moved == 1.0 else f"{ESTIMATE}, times {moved:g} by the sample's script"
    return {"label": label, "cpus": cpus, "ram": str(ram * GIB), "gpu": gpu,
            "metadata": {"gpu-memory": memory, "gpu-count": count},
            "supportsNvlink": count > 1,
            "defaultUsageRates": [{"description": f"{label} hourly",
                                   "rate": round(rate * moved, 2), "type": "hourly"}],
            "availability": [{"machineType": label, "region": region, "isAvailable": True}
                             for region in REGIONS],
            ESTIMATE_KEY: said}  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/paperspace/: the machine types, as fetch archives them (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    kinds = [machine(row, day) for row in MACHINES]
    body = {SAMPLE_KEY: SAMPLE_LABEL, "result": {"data": {"json": {"machineTypes": kinds}}}}
    writer.write(indented_json(body), MACHINE_TYPES_URL, fetched_at=moment,
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
