"""Sample runs of tensordock: locations in the v2 API's documented shape
(tests/fixtures/tensordock/ORIGIN.md), at the GPU, vCPU, RAM and storage rates of TensorDock's
cloud-GPUs page as a public survey quotes them (2026-05-24; sample/REFERENCES.md); the locations
themselves are synthetic."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract.tensordock import LOCATIONS_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic locations in the v2 API's documented shape, not fetched from the provider"
# location id, city, state or province, country, GPU model (v0 name), display name, GPUs
# deployable, USD per GPU-hour.
# fmt: off
LOCATIONS = (
    ("5a1c0d6e-0000-4000-8000-000000000001", "Chicago", "Illinois", "United States",
     "geforcertx4090-pcie-24gb", "NVIDIA GeForce RTX 4090 PCIe 24GB", 4, 0.35),
    ("5a1c0d6e-0000-4000-8000-000000000002", "Dallas", "Texas", "United States",
     "geforcertx4090-pcie-24gb", "NVIDIA GeForce RTX 4090 PCIe 24GB", 2, 0.35),
    ("5a1c0d6e-0000-4000-8000-000000000003", "Winnipeg", "Manitoba", "Canada",
     "l40-pcie-48gb", "L40 PCIe 48GB", 8, 0.95),
    ("5a1c0d6e-0000-4000-8000-000000000004", "Chicago", "Illinois", "United States",
     "h100-sxm5-80gb", "H100 SXM5 80GB", 8, 2.25),
)
# fmt: on


def location(values: tuple) -> dict[str, Any]:
    place_id, city, state, country, gpu, display, deployable, price = values
    return {
        "id": place_id,
        "city": city,
        "stateprovince": state,
        "country": country,
        "tier": 3,
        "gpus": [
            {
                "v0Name": gpu,
                "displayName": display,
                "max_count": deployable,
                "price_per_hr": price,
                "resources": {
                    "max_vcpus": 16 * deployable,
                    "max_ram_gb": 96 * deployable,
                    "max_storage_gb": 2000,
                },
                "pricing": {
                    "per_vcpu_hr": 0.003,
                    "per_gb_ram_hr": 0.002,
                    "per_gb_storage_hr": 0.00005,
                },
                "network_features": {
                    "dedicated_ip_available": True,
                    "port_forwarding_available": True,
                    "network_storage_available": False,
                },
            }
        ],
    }


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/tensordock/: the locations, as fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {SAMPLE_KEY: SAMPLE_LABEL, "data": {"locations": [location(v) for v in LOCATIONS]}}
    writer.write(indented_json(body), LOCATIONS_URL, fetched_at=moment, request={"method": "GET"})
    return writer.directory
