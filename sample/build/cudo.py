"""Sample runs of cudo: the machine types in their real shape, at the GPU rates derived from
SkyPilot's published Cudo catalog (skypilot-org/skypilot-catalog, catalogs/v7/cudo/vms.csv at
16f33dd5: two sizes of one type give the GPU's rate; tests/fixtures/cudo/ORIGIN.md). Not
fetched from Cudo; the vCPU, memory, disk and IPv4 rates are gpuhunt's fixture's."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.cudo import MACHINE_TYPES_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = (
    "GPU rates derived from SkyPilot's published Cudo catalog in the API's real shape, not "
    "fetched from the provider"
)
# data centre, machine type, GPU model, GPU model id, USD per GPU-hour.
# fmt: off
TYPES = (
    ("no-kristiansand-1", "sapphire-rapids-h100", "H100 SXM", "nvidia-h100-sxm", 1.79),
    ("au-melbourne-1", "epyc-genoa-h100-nvl-pcie", "H100 NVL", "nvidia-h100-nvl", 2.47),
    ("no-kristiansand-1", "epyc-genoa-a100-pcie", "A100 80GB PCIe", "nvidia-a100-80gb-pcie", 1.50),
    ("ca-montreal-3", "ice-lake-a40-compute", "A40 (compute mode)", "nvidia-a40-compute", 0.35),
    ("au-melbourne-1", "epyc-genoa-l40s-compute", "L40S (compute mode)", "nvidia-l40s-compute",
     0.87),
    ("se-stockholm-1", "ice-lake-rtx-a6000", "RTX A6000", "nvidia-rtx-a6000", 0.45),
    ("us-newyork-1", "intel-broadwell-v100", "V100", "nvidia-v100", 0.39),
)
# fmt: on
# (machine type, first day) -> factor of its GPU rate from that day on.
MOVES = {("sapphire-rapids-h100", 5): 0.95}
# Every machine type marked an estimate in the data: its rates are derived from SkyPilot's
# catalog, not traced in sample/REFERENCES.md.
ESTIMATE = "GPU rate derived from SkyPilot's published Cudo catalog, not traced here"
RATES = {"vcpuPriceHr": "0.002500", "memoryGibPriceHr": "0.003800",
         "minStorageGibPriceHr": "0.00013", "ipv4PriceHr": "0.005500"}  # fmt: skip


def machine_type(values: tuple, day: int) -> dict[str, Any]:
    place, name, gpu, gpu_id, price = values
    return {
        "dataCenterId": place, "machineType": name, "cpuModel": "", "gpuModel": gpu,
        "gpuModelId": gpu_id, "minVcpuPerMemoryGib": 0.25, "maxVcpuPerMemoryGib": 1,
        "minVcpuPerGpu": 1, "maxVcpuPerGpu": 16,
        "gpuPriceHr": {"value": f"{price * factor(MOVES, name, day):.4f}"},
        **{field: {"value": rate} for field, rate in RATES.items()},
        "maxGpuFree": 4, "totalGpuFree": 12,
    }  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/cudo/: the machine types, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {SAMPLE_KEY: SAMPLE_LABEL, "machineTypes": [
        {**machine_type(t, day), ESTIMATE_KEY: ESTIMATE} for t in TYPES]}  # fmt: skip
    writer.write(indented_json(body), MACHINE_TYPES_URL, fetched_at=moment,
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
