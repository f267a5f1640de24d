"""Sample runs of latitude: GPU plans in the API's shape, at the prices of a recorded copy of
Latitude.sh's pricing page (tests/fixtures/latitude/ORIGIN.md; sample/REFERENCES.md), not
fetched from Latitude.sh."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract.latitude import PLANS_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

SAMPLE_LABEL = "plans and prices of a recorded copy of the pricing page, not fetched"
# (id, slug, CPU, cores, sockets, RAM GB, GPUs, GPU type, GB per GPU), then per region: name,
# stock level, USD hour, month, year, and BRL hour, month, year, as recorded (2026-08-22).
PLANS = (
    (("plan_YGwn0Vnq063JD", "g4-rtx6kpro-large", "AMD 9355", 64, 2, 1536, 8,
      "NVIDIA RTX PRO 6000", 96),
     (("United States", "low", 48, 17520, 147168, 240, 87600, 735840),
      ("Australia", "low", 66, 24090, 202356, 330, 120450, 1011780),
      ("Japan", "low", 52, 18980, 159432, 260, 94900, 797160),
      ("Netherlands", "unavailable", 48, 17520, 147168, 240, 87600, 735840))),
    (("plan_lnow0Ovwa9x1q", "g3-h100-small", "AMD 9124", 16, 1, 192, 1, "NVIDIA H100 80GB", 80),
     (("United States", "unavailable", 3.37, 1230, 10332, 18.54, 6767, 56843),)),
)  # fmt: skip


def plan(spec: tuple, regions: tuple) -> dict[str, Any]:
    uid, slug, cpu, cores, sockets, ram, gpus, gpu, vram = spec
    specs = {
        "cpu": {"type": cpu, "cores": cores, "count": sockets},
        "memory": {"total": ram},
        "gpu": {"count": gpus, "type": gpu, "vram_per_gpu": vram, "interconnect": None},
    }
    listed = [
        {
            "name": name,
            "deploys_instantly": [],
            "locations": {"available": [], "in_stock": []},
            "stock_level": stock,
            "pricing": {
                "USD": {"hour": hour, "month": month, "year": year},
                "BRL": {"hour": b_hour, "month": b_month, "year": b_year},
            },
        }
        for name, stock, hour, month, year, b_hour, b_month, b_year in regions
    ]
    name = slug.replace("-", ".")
    attributes = {"slug": slug, "name": name, "specs": specs, "regions": listed}
    return {"id": uid, "type": "plans", "attributes": attributes}


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/latitude/: the GPU plans, as fetch archives them (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {SAMPLE_KEY: SAMPLE_LABEL, "data": [plan(spec, regions) for spec, regions in PLANS]}
    writer.write(indented_json(body), PLANS_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
