"""Sample runs of verda: the instance-types list and the long-term periods, synthetic prices."""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.verda import INSTANCE_TYPES_URL, PERIODS_URL, SOURCE_NAME
from chipcost.sample.build._common import factor, fresh_writer, indented_json

# instance type, model, gpu.description, GPUs, GB per GPU, fixed, spot, dynamic.
INSTANCE_TYPES = (
    ("1B300.30V", "B300", "1x B300 SXM6 262GB", 1, 262, "4.95", "1.98", "3.71"),
    ("1B200.30V", "B200", "1x B200 SXM6 180GB", 1, 180, "3.99", "1.59", "2.99"),
    ("8B200.240V", "B200", "8x B200 SXM6 180GB", 8, 180, "31.92", "12.72", "23.92"),
    ("1H200.141S.44V", "H200", "1x H200 SXM5 141GB", 1, 141, "3.59", "1.44", "2.69"),
    ("8H200.141S.176V", "H200", "8x H200 SXM5 141GB", 8, 141, "28.72", "11.52", "21.52"),
    ("1H100.80S.30V", "H100", "1x H100 SXM5 80GB", 1, 80, "2.29", "0.92", "1.71"),
    ("8H100.80S.176V", "H100", "8x H100 SXM5 80GB", 8, 80, "18.32", "7.36", "13.68"),
    ("1A100.80S.22V", "A100", "1x A100 SXM4 80GB", 1, 80, "1.29", "0.52", None),
    ("1L40S.20V", "L40S", "1x L40S 48GB", 1, 48, "0.91", "0.36", None),
)
# Every instance type marked an estimate in the data (sample/REFERENCES.md traces none).
ESTIMATE = "synthetic: no public copy of Verda's prices was read here; near its listed level"
# (what, first day) -> price factor from that day on.
MOVES = {
    ("1B200.30V fixed", 7): 0.95,
    ("spot", 3): 1.05,  # every spot price 5% up from day 3
}
# code, name, unit, value, discount %.
PERIODS = (("1_MONTH", "1 month", "month", 1, 7), ("3_MONTHS", "3 months", "month", 3, 14),
           ("6_MONTHS", "6 months", "month", 6, 20), ("1_YEAR", "1 year", "year", 1, 26),
           ("2_YEARS", "2 years", "year", 2, 33))  # fmt: skip


def instance_type(
    itype: str, model: str, description: str, count: int, memory: int, prices: dict[str, str]
) -> dict[str, Any]:
    name = description.split(" ", 1)[1]
    return {
        "best_for": ["Large scale training"] if count > 1 else ["Inference", "Fine-tuning"],
        "cpu": {"description": f"{30 * count} CPU", "number_of_cores": 30 * count},
        "deploy_warning": None,
        "description": "Dedicated Hardware Instance",
        "gpu": {"description": description, "number_of_gpus": count},
        "gpu_memory": {
            "description": f"{memory * count}GB GPU RAM",
            "size_in_gigabytes": memory * count,
        },  # fmt: skip
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, "verda:" + itype)),
        "instance_type": itype,
        "memory": {"description": f"{120 * count}GB RAM", "size_in_gigabytes": 120 * count},
        "model": model,
        "name": name,
        "p2p": "900 GB/s" if count > 1 else None,
        "price_per_hour": prices["fixed"],
        "spot_price": prices.get("spot"),
        "dynamic_price": prices.get("dynamic"),
        "max_dynamic_price": prices["fixed"] if prices.get("dynamic") else None,
        "serverless_price": None,
        "serverless_spot_price": None,
        "storage": {"description": "dynamic"},
        "currency": "usd",
        "manufacturer": "NVIDIA",
        "display_name": None,
        "supported_os": ["ubuntu-24.04-cuda-12.8-open-docker"],
    }


def instance_types(day: int) -> bytes:
    rows = []
    for itype, model, description, count, memory, fixed, spot, dynamic in INSTANCE_TYPES:
        fixed_price = float(fixed) * factor(MOVES, f"{itype} fixed", day)
        prices = {"fixed": f"{fixed_price:.2f}", "dynamic": dynamic}
        prices["spot"] = f"{float(spot) * factor(MOVES, 'spot', day):.2f}"
        row = instance_type(itype, model, description, count, memory, prices)
        rows.append({**row, ESTIMATE_KEY: ESTIMATE})
    return indented_json(rows)


def periods() -> bytes:
    return indented_json(
        [
            {
                "code": code,
                "name": name,
                "is_enabled": True,
                "unit_name": unit,
                "unit_value": value,
                "discount_percentage": discount,
            }
            for code, name, unit, value, discount in PERIODS
        ]
    )


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/verda/: the instance types, then the periods, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    request = {"method": "GET"}
    writer.write(instance_types(day), INSTANCE_TYPES_URL, fetched_at=moment, request=request)
    writer.write(periods(), PERIODS_URL, fetched_at=moment, request=request)
    return writer.directory
