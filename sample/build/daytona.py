"""Sample runs of daytona: the GPU rate card in its real shape, synthetic prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.daytona import PRICING_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic prices in the rate card's real shape, not fetched from the provider"
# Every rate is marked an estimate in the data (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: no public copy of Daytona's prices was read here; near its listed level"
# type, on demand and spot per GPU-hour.
GPUS = (
    ("B300", 7.1, 4.08),
    ("B200", 6.25, 3.59),
    ("MI355X", 5.99, 3.44),
    ("H200", 4.54, 2.61),
    ("H100", 3.95, 2.27),
    ("RTX-PRO-6000", 3.03, 1.74),
    ("RTX-5090", 1.29, 0.74),
    ("RTX-4090", 0.99, 0.57),
)
# (type, first day) -> factor of both prices from that day on.
MOVES = {("H200", 5): 0.93, ("RTX-4090", 3): 0.9}
RESOURCES = {
    "onDemand": {"vcpuPerHour": 0.0504, "memoryGiBPerHour": 0.0162, "diskGiBPerHour": 0.000108},
    "spot": {"vcpuPerHour": 0.03, "memoryGiBPerHour": 0.0093, "diskGiBPerHour": 6.2e-05},
}


def rate_card(day: int, moment: datetime) -> bytes:
    gpus = []
    for name, on_demand, spot in GPUS:
        change = factor(MOVES, name, day)
        hourly, spot_hourly = round(on_demand * change, 2), round(spot * change, 2)
        gpus.append({
            "type": name,
            "onDemandPricePerHour": hourly,
            "spotPricePerHour": spot_hourly,
            "onDemandPricePerSecond": hourly / 3600,
            "spotPricePerSecond": spot_hourly / 3600,
            ESTIMATE_KEY: ESTIMATE,
        })  # fmt: skip
    return indented_json({
        SAMPLE_KEY: SAMPLE_LABEL,
        "generatedAt": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "currency": "USD",
        "gpus": gpus,
        "resources": RESOURCES,
        "notes": ["GPU rates are per GPU. Sandbox vCPU, memory, and disk are billed separately."],
    })  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/daytona/: the rate card, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(rate_card(day, moment), PRICING_URL, fetched_at=moment,
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
