"""Sample runs of lium: the public nodes feed in its real shape, synthetic nodes and prices."""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.lium import NODES_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic nodes and prices in the feed's real shape, not fetched from the provider"
# gpu_model, GB per GPU, GPUs, free GPUs, price per GPU-hour, tier, country, region, city.
# fmt: off
NODES = (
    ("H200", 140, 8, 5, 3.99, "secure", "US", "MS", "Jackson"),
    ("H200", 140, 8, 8, 4.25, "secure", "US", "TX", "Dallas"),
    ("H200", 140, 8, 2, 2.89, "spot", "FI", "18", "Helsinki"),
    ("H100 80GB HBM3", 80, 8, 8, 2.19, "secure", "US", "VA", "Ashburn"),
    ("H100 80GB HBM3", 80, 8, 3, 2.49, "secure", "DE", "HE", "Frankfurt"),
    ("H100 80GB HBM3", 80, 4, 4, 1.69, "spot", "US", "CA", "San Jose"),
    ("B200", 179, 8, 8, 5.49, "secure", "US", "OR", "Hillsboro"),
    ("A100-SXM4-80GB", 80, 8, 8, 1.23, "secure", "US", "VA", "Ashburn"),
    ("A100-SXM4-80GB", 80, 8, 6, 1.35, "secure", "CA", "QC", "Montreal"),
    ("RTX 5090", 32, 8, 8, 0.5, "secure", "JP", "13", "Chiyoda City"),
    ("RTX 5090", 32, 1, 1, 0.5, "spot", "US", "MN", "Minneapolis"),
    ("RTX 4090", 24, 8, 4, 0.35, "secure", "US", "NV", "Las Vegas"),
    ("RTX 4090", 24, 2, 2, 0.29, "spot", "PL", "14", "Warsaw"),
    ("RTX A6000", 48, 4, 4, 0.45, "secure", "US", "GA", "Atlanta"),
)
COUNTRIES = {"US": "United States", "JP": "Japan", "DE": "Germany", "FI": "Finland",
             "CA": "Canada", "PL": "Poland"}
# fmt: on
# (gpu_model, first day) -> price factor of its nodes from that day on.
MOVES = {("H100 80GB HBM3", 5): 0.92, ("RTX 5090", 3): 1.1}
ESTIMATE = "synthetic: no public copy of Lium's node feed was read here; near its listed level"


def node(row: tuple, day: int) -> dict[str, Any]:
    gpu, memory, gpus, free, price, tier, country, region, city = row
    node_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"lium:{gpu}:{country}:{region}:{tier}"))
    per_gpu = round(price * factor(MOVES, gpu, day), 2)
    return {
        "id": node_id,
        "gpu_model": gpu,
        "gpu_count": gpus,
        "available_gpu_count": free,
        "price_per_gpu_hour": per_gpu,
        "min_rentable_gpu_count": 1 if tier == "spot" else gpus // 2 or 1,
        "gpu_memory_gb": memory,
        "cpu_count": 24 * gpus,
        "ram_gb": 220 * gpus,
        "disk_gb": 1800 * gpus,
        "tier": tier,
        "country": COUNTRIES[country],
        "country_code": country,
        "region": region,
        "city": city,
        "rent_url": f"https://lium.io/browse-pods/{node_id}",
        "price_per_node_hour": round(per_gpu * gpus, 2),
    }


def feed(day: int, moment: datetime) -> bytes:
    # every node marked an estimate in the data (sample/REFERENCES.md traces none of them)
    nodes = [{**node(row, day), ESTIMATE_KEY: ESTIMATE} for row in NODES]
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    body = {SAMPLE_KEY: SAMPLE_LABEL, "generated_at": stamp, "count": len(nodes), "nodes": nodes}
    return indented_json(body)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/lium/: the nodes feed, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(feed(day, moment), NODES_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
