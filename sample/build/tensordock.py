"""Sample runs of tensordock: host nodes in the marketplace's real shape (the SDK's documented
node and gpuhunt's mock specs, tests/fixtures/tensordock/ORIGIN.md), at the GPU, vCPU, RAM and
storage rates of TensorDock's cloud-GPUs page as a public survey quotes them (2026-05-24;
sample/REFERENCES.md); the hosts themselves are synthetic."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract.tensordock import HOSTNODES_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic host nodes in the marketplace's real shape, not fetched from the provider"
# node id, city, region, country, GPU model, GB, GPUs free, USD per GPU-hour.
# fmt: off
NODES = (
    ("5a1c0d6e-0000-4000-8000-000000000001", "Chicago", "Illinois", "United States",
     "geforcertx4090-pcie-24gb", 24, 4, 0.35),
    ("5a1c0d6e-0000-4000-8000-000000000002", "Dallas", "Texas", "United States",
     "geforcertx4090-pcie-24gb", 24, 2, 0.35),
    ("5a1c0d6e-0000-4000-8000-000000000003", "Winnipeg", "Manitoba", "Canada",
     "l40-pcie-48gb", 48, 8, 0.95),
    ("5a1c0d6e-0000-4000-8000-000000000004", "Chicago", "Illinois", "United States",
     "h100-sxm5-80gb", 80, 8, 2.25),
)
# fmt: on


def node(values: tuple) -> dict[str, Any]:
    _, city, region, country, gpu, vram, free, price = values
    return {
        "location": {"city": city, "country": country, "dc": None, "region": region},
        "specs": {
            "cpu": {"amount": 16 * free, "price": 0.003, "type": "AMD EPYC 7513"},
            "gpu": {gpu: {"amount": free, "price": price, "vram": vram}},
            "ram": {"amount": 96 * free, "price": 0.002},
            "storage": {"amount": 2000, "price": 0.00005},
        },
        "status": {"listed": True, "online": True, "uptime": 0.999},
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/tensordock/: the host nodes, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {SAMPLE_KEY: SAMPLE_LABEL, "hostnodes": {n[0]: node(n) for n in NODES},
            "success": True}  # fmt: skip
    writer.write(indented_json(body), HOSTNODES_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
