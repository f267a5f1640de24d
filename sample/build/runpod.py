"""Sample runs of runpod: the GraphQL gpuTypes answer in RunPod's real shape, synthetic prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.runpod import GPU_TYPES_QUERY, GRAPHQL_URL, SOURCE_NAME
from chipcost.sample.build._common import factor, fresh_writer, indented_json

# Per-GPU prices: id, display name, GB, prices, extra keyword arguments of runpod_gpu.
# fmt: off
GPUS = (
    ("NVIDIA H100 80GB HBM3", "H100 SXM", 80, {"securePrice": 2.69, "communityPrice": 1.99,
     "secureSpotPrice": 1.75, "communitySpotPrice": 1.25, "oneWeekPrice": 2.59,
     "oneMonthPrice": 2.49, "threeMonthPrice": 2.39, "sixMonthPrice": 2.29}, {}),
    ("NVIDIA H100 PCIe", "H100 PCIe", 80, {"securePrice": 2.39, "communityPrice": 1.99,
     "secureSpotPrice": 1.45, "communitySpotPrice": 1.19}, {}),
    ("NVIDIA H100 NVL", "H100 NVL", 94, {"securePrice": 2.79, "communityPrice": 2.59,
     "secureSpotPrice": 1.85}, {}),
    ("NVIDIA H200", "H200 SXM", 141, {"securePrice": 3.59, "secureSpotPrice": 2.29,
     "oneMonthPrice": 3.39, "threeMonthPrice": 3.19, "sixMonthPrice": 2.99},
     {"community": False}),
    ("NVIDIA B200", "B200", 180, {"securePrice": 5.99, "oneMonthPrice": 5.69,
     "threeMonthPrice": 5.49}, {"community": False, "stock": "Low"}),
    ("NVIDIA A100 80GB PCIe", "A100 PCIe", 80, {"securePrice": 1.64, "communityPrice": 1.19,
     "secureSpotPrice": 0.82, "communitySpotPrice": 0.6}, {}),
    ("NVIDIA A100-SXM4-80GB", "A100 SXM", 80, {"securePrice": 1.89, "communityPrice": 1.39,
     "secureSpotPrice": 1.05}, {}),
    ("NVIDIA L40S", "L40S", 48, {"securePrice": 0.86, "communityPrice": 0.79,
     "communitySpotPrice": 0.4}, {}),
    ("NVIDIA L4", "L4", 24, {"securePrice": 0.43, "communityPrice": 0.39}, {}),
    ("NVIDIA GeForce RTX 4090", "RTX 4090", 24, {"securePrice": 0.69, "communityPrice": 0.34,
     "communitySpotPrice": 0.2}, {}),
    ("AMD Instinct MI300X OAM", "MI300X", 192, {"securePrice": 2.49},
     {"community": False, "manufacturer": "AMD"}),
)
# fmt: on
# (GPU id, first day) -> price factor from that day on.
MOVES = {("NVIDIA H200", 3): 0.944}  # H200 secure 3.59 -> 3.39
# Every GPU type marked an estimate in the data (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: no public copy of RunPod's prices was read here; near its listed level"
PRICE_FIELDS = (
    "securePrice communityPrice secureSpotPrice communitySpotPrice "
    "oneWeekPrice oneMonthPrice threeMonthPrice sixMonthPrice"
).split()


def runpod_gpu(
    gpu_id: str,
    display: str,
    memory: int,
    prices: dict[str, float],
    *,
    manufacturer: str = "Nvidia",
    community: bool = True,
    stock: str | None = "High",
) -> dict[str, Any]:
    """One gpuTypes entry; missing price fields are 0, as RunPod returns unsold options."""
    entry: dict[str, Any] = {
        "id": gpu_id,
        "displayName": display,
        "manufacturer": manufacturer,
        "memoryInGb": memory,
        "secureCloud": prices.get("securePrice", 0) > 0,
        "communityCloud": community,
    }
    entry.update({name: prices.get(name, 0) for name in PRICE_FIELDS})
    cheapest = min((v for v in prices.values() if v), default=0)
    spot = min(prices.get("secureSpotPrice", 0) or 9e9, prices.get("communitySpotPrice", 0) or 9e9)
    entry["lowestPrice"] = {
        "minimumBidPrice": spot if spot < 9e9 else None,
        "uninterruptablePrice": cheapest or None,
        "stockStatus": stock,
    }
    return entry


def gpu_types(day: int) -> bytes:
    """The day's answer, ending with the placeholder entry RunPod lists for unknown GPUs."""
    gpus = []
    for gpu_id, name, memory, prices, kw in GPUS:
        moved = {k: round(v * factor(MOVES, gpu_id, day), 2) for k, v in prices.items()}
        gpus.append({**runpod_gpu(gpu_id, name, memory, moved, **kw), ESTIMATE_KEY: ESTIMATE})
    placeholder = runpod_gpu("unknown", "unknown", 0, {}, community=False, stock=None)
    return indented_json({"data": {"gpuTypes": [*gpus, placeholder]}})


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/runpod/: the one GraphQL answer, archived the way fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    request = {"method": "POST", "json": {"query": GPU_TYPES_QUERY}}
    writer.write(gpu_types(day), GRAPHQL_URL, fetched_at=moment, request=request)
    return writer.directory
