"""Sample runs of massedcompute: the GPU inventory in the API's shape
(tests/fixtures/massedcompute/ORIGIN.md), synthetic configurations and prices, not fetched
from Massed Compute."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.massedcompute import INVENTORY_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic configurations in the API's shape, not fetched from the provider"
# Product name, description, cents per hour, vCPUs, GiB RAM, GB disk.
PRODUCTS = (
    ("gpu_1x_l40", "1x L40 (48GB)", 86, 14, 72, 625),
    ("gpu_1x_a6000", "1x RTX A6000 (48GB)", 62, 6, 48, 256),
    ("gpu_1x_h100_nvl", "1x H100 NVL (94GB)", 234, 20, 128, 1000),
    ("gpu_8x_h100_nvl_nvlink", "8x H100 NVL (94GB) NVLink", 1872, 160, 1024, 8000),
    ("gpu_8x_b200", "8x B200 SXM6 (180GB)", 3992, 224, 2048, 16000),
)
# (product, first day) -> price factor from that day on.
MOVES = {("gpu_1x_h100_nvl", 4): 0.93}
ESTIMATE = (
    "synthetic: no public copy of Massed Compute's inventory prices was read here; the L40 at "
    "the rate of a public API client's test (brevdev/cloud), the rest near public levels"
)


def entry(product: tuple, day: int) -> dict[str, Any]:
    name, description, cents, vcpus, ram, disk = product
    moved = factor(MOVES, name, day)
    said = ESTIMATE if moved == 1.0 else f"{ESTIMATE}, times {moved:g} by the sample's script"
    kind = {"name": name, "description": description,
            "price_cents_per_hour": round(cents * moved),
            "specs": {"vcpu_count": vcpus, "memory_gib": ram, "storage_gb": disk},
            ESTIMATE_KEY: said}  # fmt: skip
    regions = [{"name": "us-central-1", "description": "Wichita, KS"}]
    return {"instance_type": kind, "regions_with_capacity_available": regions,
            "capacity_available": 4}  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/massedcompute/: the GPU inventory, as fetch archives it (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {SAMPLE_KEY: SAMPLE_LABEL, "gpu_inventory": {p[0]: entry(p, day) for p in PRODUCTS}}
    writer.write(indented_json(body), INVENTORY_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
