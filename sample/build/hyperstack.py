"""Sample runs of hyperstack: the pricebook and the flavors in their documented shape
(tests/fixtures/hyperstack/ORIGIN.md), at the on-demand GPU rates of Hyperstack's pricing page
as a public summary quotes them (sample/REFERENCES.md), not fetched from Hyperstack."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract.hyperstack import FLAVORS_URL, PRICEBOOK_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

SAMPLE_LABEL = (
    "flavors at the rates of Hyperstack's pricing page in the API's shape, not fetched from "
    "the provider"
)
# Pricebook name, USD per GPU-hour.
RATES = (
    ("H200-141G-SXM5", 3.50),
    ("H100-80G-SXM5", 2.40),
    ("H100-80G-PCIe", 1.90),
    ("A100-80G-PCIe", 1.35),
    ("L40", 1.00),
    ("RTX-A6000", 0.50),
)
# Flavor, region, GPU, count, vCPUs, GB RAM.
FLAVORS = (
    ("n3-H200x8", "US-1", "H200-141G-SXM5", 8, 176, 1800),
    ("n3-H100-SXM5x8", "US-1", "H100-80G-SXM5", 8, 192, 1920),
    ("n3-H100x1", "CANADA-1", "H100-80G-PCIe", 1, 28, 180),
    ("n3-A100x1", "CANADA-1", "A100-80G-PCIe", 1, 28, 120),
    ("n3-L40x1", "CANADA-1", "L40", 1, 28, 120),
    ("n3-RTX-A6000x1", "NORWAY-1", "RTX-A6000", 1, 28, 58),
)


def flavor(n: int, values: tuple) -> dict[str, Any]:
    name, region, gpu, count, cpu, ram = values
    return {"id": 100 + n, "name": name, "display_name": None, "region_name": region,
            "cpu": cpu, "ram": float(ram), "disk": 100, "ephemeral": 750, "gpu": gpu,
            "gpu_count": count, "stock_available": True, "created_at": "2025-01-01T00:00:00",
            "labels": [], "features": {}}  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/hyperstack/: the pricebook, then the flavors, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    book = [{"id": n + 1, "name": name, "value": f"{rate:.9f}", "original_value": f"{rate:.9f}",
             "discount_applied": False, "start_time": None, "end_time": None}
            for n, (name, rate) in enumerate(RATES)]  # fmt: skip
    writer.write(indented_json(book), PRICEBOOK_URL, fetched_at=moment, request={"method": "GET"})
    groups = [{"gpu": f[2], "region_name": f[1], "flavors": [flavor(n, f)]}
              for n, f in enumerate(FLAVORS)]  # fmt: skip
    body = {SAMPLE_KEY: SAMPLE_LABEL, "status": True, "message": "Success", "data": groups}
    writer.write(indented_json(body), FLAVORS_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
