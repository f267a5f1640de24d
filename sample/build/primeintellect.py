"""Sample runs of primeintellect: GET /api/v1/availability/gpus in its documented shape, at the
offers and prices of Prime Intellect's own docs examples and SkyPilot's published Prime
Intellect catalog (skypilot-org/skypilot-catalog, catalogs/v7/primeintellect/vms.csv at
0e770cca; tests/fixtures/primeintellect/ORIGIN.md). Not fetched from Prime Intellect."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.primeintellect import AVAILABILITY_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = (
    "offers and prices of Prime Intellect's docs examples and SkyPilot's published catalog in "
    "the API's documented shape, not fetched from the provider"
)
# upstream provider, cloudId, gpuType, socket, GPUs, data centre, country, vCPUs, GB RAM,
# USD per configuration-hour, security.
# fmt: off
OFFERS = (
    ("hyperstack", "n3-H100x1", "H100_80GB", "PCIe", 1, "CANADA-1", "CA", 180, 180, 1.9,
     "secure_cloud"),
    ("runpod", "NVIDIA H100 PCIe", "H100_80GB", "PCIe", 1, "US-KS-2", "US", 16, 251, 2.69,
     "secure_cloud"),
    ("lambdalabs", "gpu_8x_a100_80gb_sxm4", "A100_80GB", "SXM4", 8, "us-midwest-1", "US", 240,
     1800, 14.32, "secure_cloud"),
    ("hyperstack", "n3-A100x8-NVLink", "A100_80GB", "SXM4", 8, "CANADA-1", "CA", 252, 1920,
     11.2, "secure_cloud"),
    ("datacrunch", "1A100.22V", "A100_80GB", "SXM4", 1, "FIN-01", "FI", 22, 120, 1.52,
     "secure_cloud"),
    ("massedcompute", "gpu_1x_a100", "A100_80GB", "PCIe", 1, "us-central-2", "US", 16, 96, 1.55,
     "secure_cloud"),
    ("latitude", "g3-a100-large", "A100_80GB", "SXM4", 8, "DAL", "US", 128, 1536, 8.28,
     "secure_cloud"),
    # A community-cloud offer as Prime's CLI recorded it: onDemand null, communityPrice set.
    ("runpod", "NVIDIA A100 80GB PCIe", "A100_80GB", "PCIe", 1, None, None, 8, 125, 1.2068,
     "community_cloud"),
)
# fmt: on
# (cloudId, first day) -> factor of its price from that day on.
MOVES = {("NVIDIA H100 PCIe", 3): 0.93, ("gpu_1x_a100", 6): 1.05}


def offer(values: tuple, day: int) -> dict[str, Any]:
    upstream, cloud_id, gpu, socket, count, place, country, vcpus, ram, price, security = values
    moved = factor(MOVES, cloud_id, day)
    # Unmoved, each price is the one sample/REFERENCES.md traces; a moved one says so.
    mark = {} if moved == 1.0 else {ESTIMATE_KEY: f"{price} (traced) times {moved:g} by the "
                                                  "sample's script"}  # fmt: skip
    return {
        "cloudId": cloud_id, "gpuType": gpu, "socket": socket, "provider": upstream,
        "dataCenter": place, "country": country, "gpuCount": count, "gpuMemory": 80,
        "disk": {"minCount": None, "defaultCount": 100, "maxCount": None, "pricePerUnit": None},
        "vcpu": {"defaultCount": vcpus}, "memory": {"defaultCount": ram},
        "stockStatus": "Available", "security": security,
        "prices": _prices(price if moved == 1.0 else round(price * moved, 2), security),
        "images": ["ubuntu_22_cuda_12"], "isSpot": None, "prepaidTime": None, **mark,
    }  # fmt: skip


def _prices(price: float, security: str) -> dict[str, Any]:
    """A secure offer's price is onDemand; a community offer's is communityPrice, with
    onDemand null (Prime's CLI's recorded answer)."""
    community = security == "community_cloud"
    return {
        "onDemand": None if community else price,
        "communityPrice": price if community else None,
        "isVariable": None,
        "currency": "USD",
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/primeintellect/: the one page of offers, as fetch archives it (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    items = [offer(values, day) for values in OFFERS]
    body = {SAMPLE_KEY: SAMPLE_LABEL, "items": items, "totalCount": len(items)}
    writer.write(indented_json(body), AVAILABILITY_URL, fetched_at=moment,
                 request={"method": "GET", "params": {"page": 1, "page_size": 100}})  # fmt: skip
    return writer.directory
