"""Sample runs of runpod, as a run with RUNPOD_API_KEY archives them: the REST API v2 catalog
(on-demand prices) and the GraphQL gpuTypes answer (spot, commitments), in RunPod's real shapes
(the catalog's as its OpenAPI schema and example give it), synthetic prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.runpod import GPU_TYPES_QUERY, GRAPHQL_URL, REST_URL, SOURCE_NAME
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


# The serverless pool of a GPU type, where RunPod's example names one (ADA_24 for the RTX 4090);
# the others are left null, as the catalog gives a type in no pool available to the caller.
POOLS = {"NVIDIA GeForce RTX 4090": "ADA_24"}
# Largest pod per cloud: 8 GPUs, as in RunPod's example, on every cloud that sells the type.
MAX_GPUS = 8


def rest_gpu(gpu_id: str, display: str, memory: int, prices: dict[str, float], **kw: Any) -> dict:
    """One REST v2 catalog entry (GpuType): the cloud flags, list prices and pod ceilings."""
    graphql = runpod_gpu(gpu_id, display, memory, prices, **kw)
    clouds = {"secure": graphql["secureCloud"], "community": graphql["communityCloud"]}
    return {
        "id": gpu_id,
        "name": display,
        "pool": POOLS.get(gpu_id),
        "manufacturer": graphql["manufacturer"].upper(),
        "memory": memory,
        **clouds,
        "price": {
            "secure": prices.get("securePrice", 0.0),
            "community": prices.get("communityPrice", 0.0),
        },
        "maxCount": {cloud: MAX_GPUS if sold else 0 for cloud, sold in clouds.items()},
    }


def catalog(day: int) -> bytes:
    """The day's REST v2 catalog: the same GPU types and on-demand prices as gpuTypes."""
    gpus = []
    for gpu_id, name, memory, prices, kw in GPUS:
        moved = {k: round(v * factor(MOVES, gpu_id, day), 2) for k, v in prices.items()}
        gpus.append({**rest_gpu(gpu_id, name, memory, moved, **kw), ESTIMATE_KEY: ESTIMATE})
    return indented_json({"gpus": gpus})


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/runpod/: the REST v2 catalog, then the GraphQL answer, archived the way a keyed
    fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(catalog(day), REST_URL, fetched_at=moment, request={"method": "GET"})
    request = {"method": "POST", "json": {"query": GPU_TYPES_QUERY}}
    writer.write(gpu_types(day), GRAPHQL_URL, fetched_at=moment, request=request)
    return writer.directory
