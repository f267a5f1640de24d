"""Sample runs of novita: the GPU products answer in its recorded shape, at traced prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract.novita import PRICE_UNITS_PER_USD, PRODUCTS_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

SAMPLE_LABEL = "sample data: public prices in the API's shape, not fetched from the provider"
# id, name, vCPUs, RAM GB and disk GB per GPU, USD per GPU-hour, region: the prices of
# Novita's GPU page and of a recorded product (sample/REFERENCES.md, [NV]); the ids, hosts and
# regions are the recorded product's shape, synthetic where the recording has none.
PRODUCTS = (
    ("4090.16c62g", "RTX 4090 24GB", 16, 62, 6144, 0.67, "US-CA-06 (California)"),
    ("5090.16c92g", "RTX 5090 32GB", 16, 92, 6144, 0.63, "EU-GB-01 (United Kingdom)"),
    ("A100-80GB.14c240g", "A100 SXM 80GB", 16, 62, 6144, 1.60, "US-CA-06 (California)"),
    ("H100-80GB.16c240g", "H100 SXM 80GB", 16, 240, 6144, 1.45, "US-CA-06 (California)"),
)


def product(row: tuple) -> dict[str, Any]:
    sku, name, cpus, ram, disk, usd, region = row
    return {
        "id": sku,
        "name": name,
        "cpuPerGpu": cpus,
        "memoryPerGpu": ram,
        "diskPerGpu": disk,
        "availableDeploy": True,
        "price": str(round(usd * PRICE_UNITS_PER_USD)),  # the API sends it as text
        "regions": [region],
        "billingMethods": ["onDemand"],
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/novita/: the GPU products, as fetch archives them; no price moves this week."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {"data": [product(row) for row in PRODUCTS], SAMPLE_KEY: SAMPLE_LABEL}
    writer.write(indented_json(body), PRODUCTS_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
