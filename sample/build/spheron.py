"""Sample runs of spheron: pages of the gpu-offers feed in its real shape, synthetic offers.

On days 6-7 one offer shows an 8-GPU price for one GPU, so that the demo shows a price-jump
note (docs/operations.md, "Price jumps").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.spheron import OFFERS_URL, PAGE_SIZE, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer

SAMPLE_LABEL = "synthetic prices in the feed's real shape, not fetched from the provider"
ESTIMATE = "synthetic: no public copy of Spheron's offers was read here; near its listed level"
# type, model, display name, interconnect, GB per GPU, offers as
# (upstream provider, GPUs, price per instance-hour, region, spot).
# fmt: off
GPU_TYPES = (
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
# fmt: on
# ("<display> <model>", first day) -> factor of the one-GPU offers' prices from that day on.
MOVES = {
    ("H200 SXM5 spot", 1): 1.024,  # spot drifts down to the published $3.31
    ("H200 SXM5 spot", 3): 1.012,
    ("H200 SXM5 spot", 5): 1.0,
    # Days 6-7: the 1x L40S offer shows an 8-GPU node's price (0.89 -> 7.12), the kind of
    # error the price-jump check flags; day 8 it is back (flagged again, the other way).
    ("L40S on_demand", 6): 8.0,
    ("L40S on_demand", 8): 1.0,
}
GROUPS_PER_PAGE = 3


@dataclass
class Group:
    """One GPU type of the feed with its marketplace offers."""

    gpu_type: str
    model: str
    display: str
    interconnect: str
    offers: list[dict[str, Any]] = field(default_factory=list)

    def offer(self, provider: str, count: int, price: float, region: str, memory: int,
              *, spot: bool = False) -> None:  # fmt: skip
        slug = f"{provider[:3]}-{self.gpu_type.lower()}-{count}x-{region}"
        entry = {
            "provider": provider,
            "offerId": slug + ("::spot" if spot else ""),
            "name": f"{count}x {self.display}",
            "description": f"{count}x {self.display} on {provider}",
            "vcpus": 16 * count,
            "memory": 200 * count,
            "storage": 1000 * count,
            "gpuCount": count,
            "price": price,
            "available": True,
            "clusters": [f"{region}-a"],
            "region": region,
            "gpu_memory": memory,
            "os_options": ["ubuntu-22.04-cuda-12.4", "ubuntu-24.04-cuda-12.8"],
            "maintenance": False,
            "interconnectType": self.interconnect,
            "interconnectDescription": "NVLink" if self.interconnect.startswith("SXM") else "PCIe",
            "instanceType": "SPOT" if spot else "DEDICATED",
            "supportsCloudInit": True,
        }
        if spot:
            entry["spot_price"] = price
        # every offer marked an estimate in the data (sample/REFERENCES.md traces none)
        self.offers.append({**entry, ESTIMATE_KEY: ESTIMATE})

    def body(self) -> dict[str, Any]:
        per_gpu = [o["price"] / o["gpuCount"] for o in self.offers]
        return {
            "gpuType": self.gpu_type,
            "gpuModel": self.model,
            "baseGpuType": self.model,
            "interconnectVariants": [self.interconnect],
            "hasMultipleVariants": False,
            "displayName": self.display,
            "totalAvailable": len(self.offers),
            "lowestPrice": round(min(per_gpu), 2),
            "highestPrice": round(max(per_gpu), 2),
            "averagePrice": round(sum(per_gpu) / len(per_gpu), 2),
            "providers": sorted({o["provider"] for o in self.offers}),
            "offers": self.offers,
        }


def feed_pages(groups: list[Group], page_size: int) -> list[bytes]:
    chunks = [groups[i : i + page_size] for i in range(0, len(groups), page_size)]
    return [
        json.dumps(
            {
                "data": [g.body() for g in chunk],
                "total": len(groups),
                "page": number,
                "limit": page_size,
                "totalPages": len(chunks),
                SAMPLE_KEY: SAMPLE_LABEL,
            },
            separators=(",", ":"),
        ).encode()
        for number, chunk in enumerate(chunks, 1)
    ]


def day_groups(day: int) -> list[Group]:
    groups = []
    for gpu_type, model, display, interconnect, memory, offers in GPU_TYPES:
        group = Group(gpu_type, model, display, interconnect)
        for provider, count, price, region, spot in offers:
            kind = "spot" if spot else "on_demand"
            move = factor(MOVES, f"{display} {kind}", day) if count == 1 else 1.0
            group.offer(provider, count, round(price * move, 2), region, memory, spot=spot)
        groups.append(group)
    return groups


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/spheron/: the feed's pages, archived the way fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    for page, body in enumerate(feed_pages(day_groups(day), GROUPS_PER_PAGE), 1):
        request = {"page": page, "limit": PAGE_SIZE, "access": "public"}
        writer.write(body, OFFERS_URL, fetched_at=moment, request=request)
    return writer.directory
