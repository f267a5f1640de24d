"""Sample runs of fluidstack: the configurations in the answer's shape, at the GPU types, regions
and prices of SkyPilot's published Fluidstack catalog (skypilot-org/skypilot-catalog,
catalogs/v6/fluidstack/vms.csv at 002403bc; tests/fixtures/fluidstack/ORIGIN.md), not fetched
from Fluidstack."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract.fluidstack import CONFIGURATIONS_URL, SOURCE_NAME
from chipcost.sample.build._common import fresh_writer, indented_json

# gpu_type, GPU counts, USD per GPU-hour, regions: the catalog's (sample/REFERENCES.md).
CONFIGURATIONS = (
    ("H100_PCIE_80GB", [1], 2.89, ["CANADA"]),
    ("H100_NVLINK_80GB", [8], 2.99, ["FINLAND"]),
    ("A100_PCIE_80GB", [1], 1.8, ["ARIZONA_USA"]),
    ("L40_48GB", [1], 1.25, ["CANADA"]),
)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/fluidstack/: the configurations, as fetch archives them (no key kept). The
    answer is a bare list, so it carries no sample label; the archive's manifest marks it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = [
        {"gpu_type": gpu, "gpu_counts": counts, "price_per_gpu_hr": price, "regions": regions}
        for gpu, counts, price, regions in CONFIGURATIONS
    ]
    writer.write(indented_json(body), CONFIGURATIONS_URL, fetched_at=moment,
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
