"""Sample runs of simplepod: the market's machines in the reconstructed shape, at the per-GPU
prices of SkyPilot's published SimplePod catalog."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract.simplepod import MARKET_URL, SOURCE_NAME
from chipcost.sample.build._common import fresh_writer, indented_json

# id, GPU model, GPUs, GPU MiB, vCPUs, RAM GiB, USD per GPU-hour, region, country: rows of
# the catalog (sample/REFERENCES.md, [SP]); the ids are synthetic. The answer is a bare JSON
# list, so no key can label it: the manifest says "sample".
MACHINES = (
    (5101, "RTX A4000", 1, 16384, 10, 32, 0.09, "Europe", "EE"),
    (5102, "RTX 3090", 1, 24576, 12, 32, 0.22, "Europe", "EE"),
    (5103, "RTX 4090", 1, 24576, 32, 128, 0.34, "Europe", "PL"),
    (5104, "RTX 4090", 8, 24576, 256, 1024, 0.34, "Europe", "PL"),
    (5105, "RTX 5090", 1, 32768, 32, 128, 0.46, "Europe", "PL"),
    (5106, "RTX PRO 6000 Blackwell", 1, 97280, 96, 384, 0.99, "Europe", "PL"),
)


def machine(row: tuple) -> dict[str, Any]:
    ref, model, gpus, mib, cpus, ram, price, region, country = row
    return {
        "id": ref,
        "instanceMarket": f"/instances/market/{ref}",
        "gpuModel": model,
        "gpuCount": gpus,
        "gpuMemorySize": mib,
        "cpuCoreCount": cpus,
        "systemMemory": ram * 1024,
        "pricePerGpu": price,
        "rentalStatus": "active",
        "isAvailableForDemand": True,
        "rig": {"region": region, "country": country},
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/simplepod/: the market, as fetch archives it; no price moves this week."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = [machine(row) for row in MACHINES]
    writer.write(indented_json(body), MARKET_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
