"""Sample runs of oci: the cetools products price list in Oracle's real shape, synthetic prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.oci import PARAMS, PRODUCTS_URL, SOURCE_NAME
from chipcost.sample.build._common import fresh_writer, indented_json

# GPU rows: part, display name, per-GPU price.
GPUS = (
    ("B98415", "Oracle Cloud Infrastructure - Compute - GPU - H100", 10.0),
    ("B110519", "OCI - Compute - GPU - H200", 10.0),
    ("B110978", "OCI - Compute - GPU - B200", 14.0),
    ("B110979", "OCI - Compute - GPU - GB200", 16.0),
    ("B109485", "OCI - Compute - GPU - MI300X", 6.0),
    ("B109479", "Compute - GPU - L40S", 3.5),
    ("B95907", "Compute - GPU - A100 - v2", 4.0),
    ("B95909", "Compute  - GPU - A10", 2.0),
)
OTHER = (  # rows that share the list but are not GPU rentals
    ("B93113", "Compute - Standard - E4 - OCPU", 0.025, "OCPU Per Hour", "Compute - VM"),
    ("B111826", "OCI - NVIDIA AI Enterprise - H100", 2.5, "GPU Per Hour", "Compute - GPU"),
)
LAST_UPDATED = "2026-11-03T09:12:40.118Z"
# The parts whose price sample/REFERENCES.md traces (H100, H200, B200, MI300X); the others
# are marked estimates in the data.
TRACED = {"B98415", "B110519", "B110978", "B109485"}
ESTIMATE = "synthetic: no public copy of this part's price was read here; near OCI's level"


def oci_item(
    part: str, display: str, value: float, *, metric: str = "GPU Per Hour", category: str = ""
) -> dict[str, Any]:
    return {
        "partNumber": part,
        "displayName": display,
        "metricName": metric,
        "serviceCategory": category or "Compute - GPU",
        "currencyCodeLocalizations": [
            {"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": value}]}
        ],
    }


def products() -> bytes:
    """The price list, the same on every sample day."""
    items = [oci_item(part, name, price) for part, name, price in GPUS]
    items = [
        item if item["partNumber"] in TRACED else {**item, ESTIMATE_KEY: ESTIMATE} for item in items
    ]
    items += [oci_item(p, n, v, metric=m, category=c) for p, n, v, m, c in OTHER]
    return indented_json({"lastUpdated": LAST_UPDATED, "items": items})


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/oci/: the one price list answer, archived the way fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    request = {"method": "GET", "params": PARAMS}
    writer.write(products(), PRODUCTS_URL, fetched_at=moment, request=request)
    return writer.directory
