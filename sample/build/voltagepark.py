"""Sample runs of voltagepark: the bare-metal locations and the instant VM presets in their
recorded shape, at the recorded prices (tests/fixtures/voltagepark/ORIGIN.md;
sample/REFERENCES.md), not fetched from Voltage Park."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract.voltagepark import BARE_METAL_URL, PRESETS_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

SAMPLE_LABEL = "the recorded answer's locations and prices, not fetched from the provider"
LOCATION = "a3111bd4-550a-47d0-838a-0a52bff2ae3f"
GPU = "h100-sxm5-80gb"
# Per GPU-hour, on Ethernet and on InfiniBand, as recorded (2026-08-22).
ETHERNET, INFINIBAND = "1.99", "2.49"
# GPUs, vCPUs, RAM GB, storage GB, compute and storage rates per hour, as recorded. The presets
# answer is a bare JSON list: only its manifest can say it is sample data.
PRESETS = (
    ("404645e3-4677-4f48-b023-15baaa6621e1", 8, 208, 928, 19200, "15.120000", "0.800000"),
    ("c6fd6253-cbb6-4ea8-a20c-47644b431f1c", 1, 26, 116, 2400, "1.890000", "0.100000"),
    ("2470d2d9-347a-4186-884d-bd0350ace4e3", 4, 104, 464, 9600, "7.560000", "0.400000"),
    ("928dc7be-5236-49a7-9d7d-c01ba6d783f5", 2, 52, 232, 4800, "3.780000", "0.200000"),
)


def locations() -> dict[str, Any]:
    node = {"gpu_model": GPU, "gpu_count": 8, "cpu_model": "Intel Xeon Platinum 8470",
            "cpu_count": 104, "ram_gb": 1024, "storage_gb": 18000}  # fmt: skip
    row = {"id": LOCATION, "gpu_count_ethernet": 0, "gpu_price_ethernet": ETHERNET,
           "gpu_count_infiniband": 0, "gpu_price_infiniband": INFINIBAND,
           "reserved_gpu_count_infiniband_cluster_one": None,
           "reserved_gpu_count_infiniband_cluster_two": None, "specs_per_node": node}  # fmt: skip
    return {SAMPLE_KEY: SAMPLE_LABEL, "results": [row], "total_result_count": 1,
            "has_previous": False, "has_next": False}  # fmt: skip


def presets() -> list[dict[str, Any]]:
    return [
        {"id": uuid, "resources": {"gpus": {GPU: {"count": gpus}}, "vcpu_count": vcpus,
                                   "ram_gb": ram, "storage_gb": disk},
         "operating_system": "TensorML 24 Everything", "compute_rate_hourly": compute,
         "storage_rate_hourly": storage, "location_ids_with_availability": []}
        for uuid, gpus, vcpus, ram, disk, compute, storage in PRESETS
    ]  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/voltagepark/: the locations, then the presets, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    for body, url in ((locations(), BARE_METAL_URL), (presets(), PRESETS_URL)):
        writer.write(indented_json(body), url, fetched_at=moment, request={"method": "GET"})
    return writer.directory
