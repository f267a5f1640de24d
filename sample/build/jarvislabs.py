"""Sample runs of jarvislabs: /misc/server_meta in its real shape, synthetic rows and prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.jarvislabs import SERVER_META_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic rows and prices in the API's real shape, not fetched from the provider"
# gpu_type, region, workload_type, GB, max GPUs, CPUs and RAM GB per GPU, price, spot, free.
# fmt: off
ROWS = (
    ("H100", "europe-01", None, "80", 8, 16, 200, 2.99, None, 25),
    ("H200", "europe-01", None, "141", 8, 16, 200, 3.8, None, 12),
    ("A100-80GB", "india-noida-01", "vm", "80", 4, 28, 112, 1.49, None, 3),
    ("A100-80GB", "india-noida-01", "container", "80", 4, 28, 112, 1.49, 0.89, 3),
    ("L4", "india-noida-01", "vm", "24", 8, 28, 124, 0.44, None, 6),
    ("L4", "india-noida-01", "container", "24", 8, 28, 124, 0.44, 0.29, 6),
    ("RTX6000Ada", "india-noida-01", "container", "48", 8, 7, 32, 0.99, 0.59, 4),
    ("A6000", "india-noida-01", "container", "48", 8, 7, 32, 0.79, 0.49, 5),
    ("A5000", "india-noida-01", "container", "24", 8, 7, 32, 0.49, 0.29, 9),
    ("RTX-PRO6000", "india-chennai-01", "vm", "96", 8, 28, 160, 1.89, None, 2),
)
# fmt: on
# (gpu_type, first day) -> factor of its prices from that day on.
MOVES = {("H100", 4): 0.9, ("L4", 7): 1.1}
# Every row marked an estimate in the data (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: no public copy of JarvisLabs's prices was read here; near its listed level"
CPU_META = {
    "workload_type": "container",
    "combinations": [{"vcpus": 4, "ram_gb": 16, "price": 0.0992, "available": True,
                      "regions": {"india-noida-01": True, "europe-01": False}}],
}  # fmt: skip


def row(values: tuple, day: int) -> dict[str, Any]:
    gpu, region, workload, vram, most, cpus, ram, price, spot, free = values
    change = factor(MOVES, gpu, day)
    found: dict[str, Any] = {
        "gpu_type": gpu,
        "region": region,
        "num_free_devices": free,
        "effective_num_free_devices": free,
        "spot_num_free_devices": free // 2,
        "price_per_hour": round(price * change, 2),
        "spot_price": round(spot * change, 2) if spot else None,
        "vram": vram,
        "cpus_per_gpu": cpus,
        "ram_per_gpu": ram,
        "workload_type": workload,
    }
    if workload:  # the older VM rows carry no num_gpus
        found["num_gpus"] = str(most)
    return found


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/jarvislabs/: the server metadata, as fetch archives it (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    rows = [{**row(r, day), ESTIMATE_KEY: ESTIMATE} for r in ROWS]
    body = {SAMPLE_KEY: SAMPLE_LABEL, "server_meta": rows, "cpu_meta": CPU_META}
    writer.write(indented_json(body), SERVER_META_URL, fetched_at=moment,
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
