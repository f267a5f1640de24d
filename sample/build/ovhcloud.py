"""Sample runs of ovhcloud: the public catalog's GPU flavors in its reconstructed shape
(tests/fixtures/ovhcloud/ORIGIN.md) at the euro prices of a table generated from the catalog
(sample/REFERENCES.md), and the ECB's rates (the sample's one synthetic rate, as seeweb's), not
fetched from OVHcloud."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.ovhcloud import CATALOG_URL, SOURCE_NAME, UNITS_PER_CURRENCY
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json
from chipcost.sample.build.seeweb import rates

SAMPLE_LABEL = (
    "GPU flavors at the catalog's published euro prices in the catalog's shape, not fetched "
    "from the provider"
)
# Flavor, vCPUs, GB RAM, GPU model, GPUs, GB per GPU, EUR an hour, EUR a month.
FLAVORS = (
    ("h100-380", 30, 380, "H100", 1, 80, 2.80, 1940.0),
    ("h100-1520", 120, 1520, "H100", 4, 80, 11.20, 7770.0),
    ("a100-180", 15, 180, "A100", 1, 80, 2.75, 1100.0),
    ("l40s-90", 15, 90, "L40S", 1, 48, 1.40, 1008.0),
    ("l4-90", 22, 90, "L4", 1, 24, 0.75, 540.0),
)


def _units(euros: float) -> int:
    return round(euros * UNITS_PER_CURRENCY)


def addons(values: tuple) -> list[dict[str, Any]]:
    name, cores, ram, model, gpus, memory, hourly, monthly = values
    technical = {"name": name, "cpu": {"cores": cores}, "memory": {"size": ram},
                 "gpu": {"model": model, "number": gpus, "memory": {"size": memory}}}  # fmt: skip
    blobs = {"commercial": {"brick": "instance", "brickSubtype": "gpu"}, "technical": technical}
    return [
        {"planCode": f"{name}.consumption", "product": "publiccloud-instance", "blobs": blobs,
         "pricings": [{"capacities": ["consumption"], "intervalUnit": "hour", "interval": 1,
                       "price": _units(hourly)}]},
        {"planCode": f"{name}.monthly.postpaid", "product": "publiccloud-instance",
         "blobs": blobs, "pricings": [{"capacities": ["renew"], "intervalUnit": "month",
                                       "interval": 1, "price": _units(monthly)}]},
    ]  # fmt: skip


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/ovhcloud/: the catalog, then the ECB rates, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {
        SAMPLE_KEY: SAMPLE_LABEL,
        "catalogId": 1,
        "locale": {"currencyCode": "EUR", "subsidiary": "FR", "taxRate": 20},
        "plans": [],
        "products": [],
        "addons": [a for f in FLAVORS for a in addons(f)],
    }
    get = {"method": "GET"}
    writer.write(indented_json(body), CATALOG_URL, fetched_at=moment, request=get)
    writer.write(rates(day, moment), ECB_DAILY_URL, fetched_at=moment, ext="xml", request=get)
    return writer.directory
