"""Sample runs of cloudrift: the instance-type list in its reconstructed shape, synthetic prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.cloudrift import LIST_URL, REQUEST, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic prices in the API's shape, not fetched from the provider"
GIB = 1024**3
# brand_short, GB per GPU, vCPUs and RAM GB per GPU, variants as (name, GPUs, cents per
# hour, {datacenter: nodes}).
# fmt: off
TYPES = (
    ("RTX 4090", 24, 16, 64, (
        ("rtx49-16c-nr.1", 1, 39, {"us-east-nc-nr-1": 3, "eu-north-1": 1}),
        ("rtx49-16c-nr.2", 2, 78, {"us-east-nc-nr-1": 2}),
        ("rtx49-16c-nr.8", 8, 312, {"us-east-nc-nr-1": 1, "eu-north-1": 1}))),
    ("RTX 5090", 32, 16, 64, (
        ("rtx59-16c-nr.1", 1, 65, {"us-east-nc-nr-1": 4}),
        ("rtx59-16c-nr.4", 4, 260, {"us-east-nc-nr-1": 1}),
        ("rtx59-16c-nr.8", 8, 520, {}))),
    ("RTX PRO 6000", 96, 24, 128, (
        ("rtxpro6k-24c-nr.1", 1, 129, {"us-east-nc-nr-1": 2}),
        ("rtxpro6k-24c-nr.8", 8, 1032, {"us-central-tx-1": 1}))),
)
# fmt: on
# (variant name, first day) -> price factor from that day on.
MOVES = {("rtx59-16c-nr.1", 4): 0.92, ("rtxpro6k-24c-nr.8", 7): 0.95}
# Every variant marked an estimate in the data (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: no public copy of CloudRift's prices was read here; near its listed level"


def variant(row: tuple, memory: int, cpus: int, ram: int, day: int) -> dict[str, Any]:
    name, gpus, cents, datacenters = row
    return {
        "name": name,
        "nodes_per_dc": datacenters,
        "cost_per_hour": round(cents * factor(MOVES, name, day)),
        "cpu_count": cpus * gpus,
        "logical_cpu_count": cpus * gpus,
        "dram": ram * gpus * GIB,
        "disk": 500 * gpus * GIB,
        "gpu_count": gpus,
        "vram": memory * GIB,
    }


def listing(day: int) -> bytes:
    types = [
        {"brand_short": brand,
         "variants": [{**variant(row, memory, cpus, ram, day), ESTIMATE_KEY: ESTIMATE}
                      for row in variants]}
        for brand, memory, cpus, ram, variants in TYPES
    ]  # fmt: skip
    return indented_json({SAMPLE_KEY: SAMPLE_LABEL, "data": {"instance_types": types}})


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/cloudrift/: the instance-type list, as fetch archives it (with its request)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(listing(day), LIST_URL, fetched_at=moment,
                 request={"method": "POST", "json": REQUEST})  # fmt: skip
    return writer.directory
