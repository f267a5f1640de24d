"""Sample archive runs for coreweave, spheron, nebius and verda: synthetic prices, real shapes.

Called by make_sample_archive.py for each sample day. Deterministic. A few prices move from
day to day (MOVES); on day 6 one Spheron offer shows an 8-GPU price for one GPU, so the demo
shows a price-jump note (docs/operations.md, "Price jumps").
"""

from __future__ import annotations

import json
import shutil
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import neoclouds_b_payloads as shapes  # noqa: E402

from chipcost.archive import ArchiveWriter, run_stamp  # noqa: E402
from chipcost.extract import coreweave, nebius, spheron, verda  # noqa: E402

# CoreWeave rows: name, slug, GPUs as printed, VRAM, vCPUs, RAM, storage, on-demand, spot.
# fmt: off
COREWEAVE = (
    ("NVIDIA GB200 NVL72", "nvidia-gb200-nvl72", "4<sup>1</sup>", 186, 144, "960", "30.72", 42.00,
     None),
    ("NVIDIA HGX B200", "nvidia-b200", "8", 180, 128, "2,048", "61.44", 68.80, 34.11),
    ("NVIDIA HGX H200", "nvidia-h200", "8", 141, 128, "2,048", "61.44", 50.44, 20.18),
    ("NVIDIA HGX H100", "nvidia-h100", "8", 80, 128, "2,048", "61.44", 49.24, 19.70),
    ("NVIDIA L40S", "nvidia-l40s", "8", 48, 128, "1,024", "7.68", 18.00, 7.20),
    ("NVIDIA A100", "nvidia-a100", "8", 80, 128, "2,048", "7.68", 21.60, None),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "nvidia-rtx-pro-6000", "8", 96, 128, "1,024",
     "7.68", 20.00, None),
)
# Nebius per GPU-hour: item, vCPUs, RAM, preemptible, on-demand ("" = not listed).
NEBIUS = (
    ("NVIDIA HGX B300", "24", "346", 4.30, 7.85),
    ("NVIDIA HGX B200", "20", "224", 2.60, 5.50),
    ("NVIDIA HGX H200", "16", "200", 1.45, 3.50),
    ("NVIDIA HGX H100", "16", "200", 1.25, 2.95),
    ("NVIDIA L40S GPU with AMD", "16", "96", None, 1.82),
)
# Spheron: type, model, display name, interconnect, GB per GPU, offers as
# (upstream provider, GPUs, price per instance-hour, region, spot).
SPHERON = (
    ("H200_SXM5", "H200", "H200 SXM5", "SXM5", 141, (
        ("voltage-park", 1, 4.54, "us-central", False), ("data-crunch", 1, 4.89, "eu-north", False),
        ("voltage-park", 8, 36.32, "us-central", False),
        ("voltage-park", 1, 3.31, "us-central", True),
        ("massed-compute", 1, 3.65, "us-central", True))),
    ("B200_SXM6", "B200", "B200 SXM6", "SXM6", 180, (
        ("spheron-ai", 1, 5.34, "eu-north", True), ("spheron-ai", 8, 42.72, "eu-north", True))),
    ("H100_SXM5", "H100", "H100 SXM5", "SXM5", 80, (
        ("voltage-park", 1, 2.01, "us-central", False), ("data-crunch", 1, 2.29, "eu-north", False),
        ("voltage-park", 8, 16.08, "us-central", False),
        ("voltage-park", 1, 0.99, "us-central", True))),
    ("A100_SXM4_80GB", "A100", "A100 SXM4", "SXM4", 80, (
        ("data-crunch", 1, 1.29, "eu-north", False), ("data-crunch", 1, 0.55, "eu-north", True))),
    ("L40S", "L40S", "L40S", "PCIe", 48, (("spheron-ai", 1, 0.89, "eu-north", False),)),
)
# Verda: instance type, model, gpu.description, GPUs, GB per GPU, fixed, spot, dynamic.
VERDA = (
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
# fmt: on
# (source, name, first day) -> price factor from that day on.
MOVES = {
    ("spheron", "H200 SXM5 spot", 1): 1.024,  # spot drifts down to the published $3.31
    ("spheron", "H200 SXM5 spot", 3): 1.012,
    ("spheron", "H200 SXM5 spot", 5): 1.0,
    # Days 6-7: the 1x L40S offer shows an 8-GPU node's price (0.89 -> 7.12), the kind of
    # error the price-jump check flags; day 8 it is back (flagged again, the other way).
    ("spheron", "L40S on_demand", 6): 8.0,
    ("spheron", "L40S on_demand", 8): 1.0,
    ("coreweave", "NVIDIA HGX B200 spot", 5): 0.9,
    ("nebius", "NVIDIA HGX H200 on_demand", 4): 0.943,  # $3.50 -> $3.30
    ("verda", "1B200.30V fixed", 7): 0.95,
    ("verda", "spot", 3): 1.05,  # every Verda spot price 5% up from day 3
}


def factor(source: str, name: str, day: int) -> float:
    """The MOVES factor in force on `day` (the latest move at or before it)."""
    value = 1.0
    for (moved, what, since), change in sorted(MOVES.items(), key=lambda m: m[0][2]):
        if (moved, what) == (source, name) and day >= since:
            value = change
    return value


def money(value: float) -> str:
    return f"${value:,.2f}"


def coreweave_page(day: int) -> bytes:
    rows = []
    for name, slug, gpus, vram, vcpus, ram, storage, on_demand, spot in COREWEAVE:
        spot_text = None
        if spot is not None:
            spot_text = money(spot * factor("coreweave", f"{name} spot", day))
        rows.append(
            shapes.CoreWeaveRow(
                name, slug, gpus, vram, vcpus, ram, storage, money(on_demand), spot_text
            )  # fmt: skip
        )
    return shapes.coreweave_page(rows)


def nebius_page(day: int) -> bytes:
    rows = []
    for item, vcpus, ram, preemptible, on_demand in NEBIUS:
        price = on_demand * factor("nebius", f"{item} on_demand", day)
        rows.append((item, vcpus, ram, money(preemptible) if preemptible else "—", money(price)))
    return shapes.nebius_page(rows)


def spheron_pages(day: int) -> list[bytes]:
    groups = []
    for gpu_type, model, display, interconnect, memory, offers in SPHERON:
        group = shapes.SpheronGroup(gpu_type, model, display, interconnect)
        for provider, count, price, region, spot in offers:
            model = "spot" if spot else "on_demand"
            move = factor("spheron", f"{display} {model}", day) if count == 1 else 1.0
            group.offer(provider, count, round(price * move, 2), region, memory, spot=spot)
        groups.append(group)
    return shapes.spheron_pages(groups, page_size=3)


def verda_types(day: int) -> bytes:
    rows = []
    for itype, model, description, count, memory, fixed, spot, dynamic in VERDA:
        fixed_price = float(fixed) * factor("verda", f"{itype} fixed", day)
        prices = {"fixed": f"{fixed_price:.2f}", "dynamic": dynamic}
        prices["spot"] = f"{float(spot) * factor('verda', 'spot', day):.2f}"
        rows.append(shapes.verda_instance_type(itype, model, description, count, memory, prices))
    return json.dumps(rows, indent=1).encode()


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """One sample day of the four sources, archived the way their fetches archive."""
    stamp = run_stamp(moment)
    for name in ("coreweave", "spheron", "nebius", "verda"):
        shutil.rmtree(out / stamp / name, ignore_errors=True)

    def writer(source: str) -> ArchiveWriter:
        return ArchiveWriter(out, stamp, source, sample=True)

    writer("coreweave").write(coreweave_page(day), coreweave.PRICING_URL, fetched_at=moment,
                              ext="html", request={"method": "GET"})  # fmt: skip
    writer("nebius").write(nebius_page(day), nebius.PRICING_URL, fetched_at=moment, ext="html",
                           request={"method": "GET"})  # fmt: skip
    feed = writer("spheron")
    for page, body in enumerate(spheron_pages(day), 1):
        request = {"page": page, "limit": spheron.PAGE_SIZE, "access": "public"}
        feed.write(body, spheron.OFFERS_URL, fetched_at=moment, request=request)
    api = writer("verda")
    api.write(verda_types(day), verda.INSTANCE_TYPES_URL, fetched_at=moment,
              request={"method": "GET"})  # fmt: skip
    api.write(shapes.verda_periods(), verda.PERIODS_URL, fetched_at=moment,
              request={"method": "GET"})  # fmt: skip
    return out / stamp
