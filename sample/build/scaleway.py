"""Sample runs of scaleway: the products answer of each zone at the prices of a recorded answer
(captured 2026-10-01; tests/fixtures/scaleway/ORIGIN.md, sample/REFERENCES.md), and the ECB's
rates (the sample's one synthetic rate, as seeweb's), not fetched from Scaleway."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.scaleway import PER_PAGE, PRODUCTS_URL, SOURCE_NAME, ZONES
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json
from chipcost.sample.build.seeweb import rates

SAMPLE_LABEL = (
    "instance types at the prices of a recorded answer, in the API's shape, not fetched from "
    "the provider"
)
GIB = 1024**3
# Commercial type, GPU name, GPUs, GiB per GPU, vCPUs, GiB RAM, EUR an hour, EUR a month.
# fmt: off
TYPES = (
    ("H100-1-80G", "H100-PCIe", 1, 80, 24, 240, 2.8665, 2092.545),
    ("H100-SXM-8-80G", "H100-SXM", 8, 80, 128, 960, 25.3308, 18491.484),
    ("L40S-1-48G", "L40S", 1, 48, 8, 96, 1.469916, 1073.03868),
    ("L4-1-24G", "L4", 1, 24, 8, 48, 0.7875, 574.875),
)
# fmt: on
# The zone whose answer lists the GPU types; the others answer with a CPU type only.
GPU_ZONE = "fr-par-2"
CPU_ONLY = {"DEV1-S": {"ncpus": 2, "ram": 2 * GIB, "gpu": 0, "gpu_info": None,
                       "hourly_price": 0.008976, "monthly_price": 6.55248}}  # fmt: skip


def server(values: tuple) -> dict[str, Any]:
    _, gpu, count, memory, cpus, ram, hourly, monthly = values
    return {"arch": "x86_64", "ncpus": cpus, "ram": ram * GIB, "gpu": count,
            "gpu_info": {"gpu_manufacturer": "NVIDIA", "gpu_name": gpu,
                         "gpu_memory": memory * GIB},
            "monthly_price": monthly, "hourly_price": hourly, "end_of_service": False}  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/scaleway/: each zone's products, then the ECB rates, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    get = {"method": "GET"}
    for zone in ZONES:
        servers = {t[0]: server(t) for t in TYPES} if zone == GPU_ZONE else {}
        body = {SAMPLE_KEY: SAMPLE_LABEL, "servers": {**servers, **CPU_ONLY}}
        url = f"{PRODUCTS_URL.format(zone=zone)}?page=1&per_page={PER_PAGE}"
        writer.write(indented_json(body), url, fetched_at=moment, request=get)
    writer.write(rates(day, moment), ECB_DAILY_URL, fetched_at=moment, ext="xml", request=get)
    return writer.directory
