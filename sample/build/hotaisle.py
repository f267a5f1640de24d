"""Sample runs of hotaisle: the available-VM list in its reconstructed shape, synthetic VMs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.hotaisle import SOURCE_NAME, available_url
from chipcost.sample.build._common import factor, fresh_writer, indented_json

GIB = 1024**3
# The sample's team handle: the API lists VMs per team (HOTAISLE_TEAM_HANDLE).
TEAM = "sample-team"
# GPUs, model, cores, RAM GiB, disk GiB, CPU model, cents per hour, copies listed.
# The list is a bare JSON array, so no key can label it: the manifest says "sample".
VMS = (
    (1, "MI300X", 13, 224, 12288, "Xeon Platinum 8470", 199, 3),
    (2, "MI300X", 26, 448, 24576, "Xeon Platinum 8470", 398, 1),
    (8, "MI300X", 104, 1792, 98304, "Xeon Platinum 8470", 1592, 1),
    (1, "MI355X", 16, 288, 12288, "EPYC 9575F", 279, 2),
    (8, "MI355X", 128, 2304, 98304, "EPYC 9575F", 2232, 1),
)
# (model, first day) -> price factor from that day on.
MOVES = {("MI300X", 6): 0.95}
ESTIMATE = "synthetic: no public copy of Hot Aisle's prices was read here; near its listed level"


def vm(row: tuple, day: int) -> dict[str, Any]:
    gpus, model, cores, ram, disk, cpu, cents, _ = row
    return {
        "OnDemandPrice": round(cents * factor(MOVES, model, day)),
        "Specs": {
            "cpu_cores": cores,
            "ram_capacity": ram * GIB,
            "disk_capacity": disk * GIB,
            "cpus": {"count": 1 if gpus < 8 else 2, "model": cpu},
            "gpus": [{"count": gpus, "model": model}],
        },
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/hotaisle/: the team's available VMs, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    # every VM marked an estimate in the data (sample/REFERENCES.md traces none of them)
    body = [{**vm(row, day), ESTIMATE_KEY: ESTIMATE} for row in VMS for _ in range(row[-1])]
    writer.write(indented_json(body), available_url(TEAM), fetched_at=moment,
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
