"""Sample runs of amddevcloud: the Developer Cloud's /v2/sizes in DigitalOcean's shape, at the
slugs, prices and region a public project recorded from it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._do_sizes import PAGE_SIZE
from chipcost.extract.amddevcloud import SIZES_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

SAMPLE_LABEL = "sample data: recorded prices in the API's shape, not fetched from the provider"
# slug, GPUs, vCPUs, RAM GiB, boot and scratch disk GiB, USD per hour, region: the slugs,
# prices and region of sample/REFERENCES.md [AMD]; the hosts are those of DigitalOcean's
# MI300X sizes in gpuhunt's recorded-shape answer (the 1-GPU one a share of the 8-GPU one).
SIZES = (
    ("gpu-mi300x1-192gb-devcloud", 1, 20, 240, 256, 5120, 1.99, "atl1"),
    ("gpu-mi300x8-1536gb-devcloud", 8, 160, 1920, 2046, 40960, 15.92, "atl1"),
)


def size(row: tuple) -> dict[str, Any]:
    slug, gpus, vcpus, ram, boot, scratch, hourly, region = row
    return {
        "slug": slug,
        "memory": ram * 1024,
        "vcpus": vcpus,
        "disk": boot,
        "price_hourly": hourly,
        "regions": [region],
        "available": True,
        "description": f"AMD MI300X - {gpus}X",
        "gpu_info": {
            "count": gpus,
            "vram": {"amount": 192 * gpus, "unit": "gib"},
            "model": "amd_mi300x",
        },  # fmt: skip
        "disk_info": [
            {"type": "local", "size": {"amount": boot, "unit": "gib"}},
            {"type": "scratch", "size": {"amount": scratch, "unit": "gib"}},
        ],
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/amddevcloud/: one page of sizes, as fetch archives it; no price moves."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {"sizes": [size(row) for row in SIZES], "links": {}, "meta": {"total": len(SIZES)},
            SAMPLE_KEY: SAMPLE_LABEL}  # fmt: skip
    writer.write(indented_json(body), SIZES_URL, fetched_at=moment,
                 request={"method": "GET", "params": {"per_page": PAGE_SIZE}})  # fmt: skip
    return writer.directory
