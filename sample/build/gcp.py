"""Sample runs of gcp: Cloud Billing Catalog SKU pages in Google's real shape, synthetic prices."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.gcp import PAGE_SIZE, SERVICES, SKUS_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

COMPUTE, TPU_SERVICE = SERVICES
SAMPLE_LABEL = "synthetic prices in the Cloud Billing Catalog's real SKU shape"
# Regions by the geography Google names in descriptions.
GEOS = {
    "Americas": ("us-central1", "us-east5"),
    "EMEA": ("europe-west4",),
    "APAC": ("asia-southeast1",),
}
# Resource stem, resource group, unit, and its price per usage type: on demand, spot, 1 and 3
# year commitment (None: not sold that way). GPU stems follow Google's naming.
# fmt: off
RESOURCES = (
    ("Nvidia Tesla A100 GPU", "GPU", "h", (2.933908, 1.1736, 1.84836, 1.026872)),
    ("Nvidia Tesla A100 80GB GPU", "GPU", "h", (3.92808, 1.5712, 2.47469, 1.374828)),
    ("Nvidia H100 80GB GPU", "GPU", "h", (9.79655, 2.25, 7.73928, 4.40845)),
    ("Nvidia H100 80GB Plus GPU", "GPU", "h", (10.34428, 2.38, 8.17198, 4.65493)),
    ("H200 141GB GPU", "GPU", "h", (9.31174, 3.72, 7.35627, 4.19028)),
    ("Nvidia L4 GPU", "GPU", "h", (0.560040, 0.2240, 0.352825, 0.252018)),
    ("A4 Nvidia B200 (1 gpu slice)", "GPU", "h", (16.11, 4.9542, 11.1159, 7.0884)),
    ("A2 Instance Core", "CPU", "h", (0.031611, 0.01265, 0.019915, 0.014225)),
    ("A2 Instance Ram", "RAM", "GiBy.h", (0.004237, 0.0017, 0.002669, 0.001907)),
    ("A3 Instance Core", "CPU", "h", (0.03301, 0.0132, 0.02080, 0.01486)),
    ("A3 Instance Ram", "RAM", "GiBy.h", (0.00442, 0.00177, 0.00279, 0.00199)),
    ("A3Plus Instance Core", "CPU", "h", (0.03301, 0.0132, 0.02080, 0.01486)),
    ("A3Plus Instance Ram", "RAM", "GiBy.h", (0.00442, 0.00177, 0.00279, 0.00199)),
    ("A3Ultra Instance Core", "CPU", "h", (0.03301, 0.0132, 0.02080, 0.01486)),
    ("A3Ultra Instance Ram", "RAM", "GiBy.h", (0.00442, 0.00177, 0.00279, 0.00199)),
    ("G2 Instance Core", "CPU", "h", (0.024174, 0.00967, 0.015230, 0.010878)),
    ("G2 Instance Ram", "RAM", "GiBy.h", (0.002832, 0.00113, 0.001784, 0.001274)),
)
# Cloud TPU chips, per chip-hour: (service, description word, on demand, spot, 1yr, 3yr).
TPUS = (
    (COMPUTE, "TpuV5e", (1.20, 0.48, 0.84, 0.54)),
    (COMPUTE, "TpuV5p", (4.20, 1.68, 2.94, 1.89)),
    (COMPUTE, "TpuV6e", (2.70, 1.08, 1.89, 1.22)),
    (TPU_SERVICE, "TpuV4", (3.22, 1.29, 2.03, 1.45)),
    (TPU_SERVICE, "TpuV3", (2.20, 0.88, 1.54, 0.99)),
)
# Flex-start (DWS) and calendar-mode SKUs, us-central1 only, usage type OnDemand: the
# descriptions and prices of public captures (tests/fixtures/gcp/ORIGIN.md, "Public captures of
# SKU names"). A3 Mega's flex-start cores and memory were not found, so its GPU SKU is left out.
MODE_SKUS = (
    ("Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Americas", "GPU", "h",
     4.200761),
    ("DWS Defined Duration A3 Core running in Americas", "CPU", "h", 0.010934),
    ("DWS Defined Duration A3 Ram running in Americas", "RAM", "GiBy.h", 0.000952),
    ("DWS Calendar Mode A4 Nvidia B200 (1 gpu slice) in Americas", "GPU", "h", 11.277),
)
# fmt: on
USAGES = ("OnDemand", "Preemptible", "Commit1Yr", "Commit3Yr")
# The SKUs whose prices sample/REFERENCES.md traces: A4's Americas SKUs ([C] quotes Google's
# catalog per Americas SKU) and MODE_SKUS (public captures). TPU v6e on demand is traced in
# us-east5 only ([E] names that region), the A100 40GB and A2 vCPU and memory on demand in
# us-central1 only (the recorded page, tests/fixtures/gcp/ORIGIN.md, lists the Americas SKUs
# in us-central1, us-east1 and us-west1): the sample lists each there under its own SKU, and
# the other Americas region's copy apart, marked. Every other SKU is marked an estimate.
TRACED = {("A4 Nvidia B200 (1 gpu slice)", usage) for usage in USAGES}
TRACED_IN = {
    ("TpuV6e", "OnDemand"): "us-east5",
    ("Nvidia Tesla A100 GPU", "OnDemand"): "us-central1",
    ("A2 Instance Core", "OnDemand"): "us-central1",
    ("A2 Instance Ram", "OnDemand"): "us-central1",
}
ESTIMATE = (
    "synthetic: near Google's public level for this SKU (EMEA and APAC 10% above the "
    "Americas); not a Google price"
)
# (stem, first day) -> price factor from that day on.
# The L4 moves, not the H100 or TPU v6e: those keep the public prices sample/REFERENCES.md holds.
MOVES = {("Nvidia L4 GPU", 4): 0.85}
EFFECTIVE = "2026-11-01T08:12:40.118Z"
PAGE = 60  # SKUs per sample page, so that the sample pages too (the API's is up to 5000)


def description(stem: str, usage: str, geo: str) -> str:
    """The description Google gives a resource's SKU of one usage type and geography."""
    if usage == "Preemptible":
        return f"Spot Preemptible {stem} running in {geo}"
    if usage.startswith("Commit"):
        years = usage.removeprefix("Commit").removesuffix("Yr")
        return f"Commitment v1: {stem} in {geo} for {years} Year"
    return f"{stem} running in {geo}"


def sku(
    service: str, sku_id: str, text: str, group: str, usage: str, regions: tuple[str, ...], **p: Any
) -> dict[str, Any]:
    """One SKU as the catalog lists it (the shape of the recorded page, with its field order)."""
    units, nanos = divmod(round(p["price"] * 1e9), 10**9)
    return {
        "name": f"services/{service}/skus/{sku_id}",
        "skuId": sku_id,
        "description": text,
        "category": {
            "serviceDisplayName": "Compute Engine" if service == COMPUTE else "Cloud TPU",
            "resourceFamily": "Compute",
            "resourceGroup": group,
            "usageType": usage,
        },
        "serviceRegions": list(regions),
        "pricingInfo": [
            {
                "summary": "",
                "pricingExpression": {
                    "usageUnit": p["unit"],
                    "displayQuantity": 1,
                    "tieredRates": [
                        {
                            "startUsageAmount": 0,
                            "unitPrice": {
                                "currencyCode": p.get("currency", "USD"),
                                "units": str(units),
                                "nanos": nanos,
                            },
                        }
                    ],
                    "usageUnitDescription": "gibibyte hour" if p["unit"] == "GiBy.h" else "hour",
                    "baseUnit": "By.s" if p["unit"] == "GiBy.h" else "s",
                    "baseUnitDescription": "byte second" if p["unit"] == "GiBy.h" else "second",
                    "baseUnitConversionFactor": 3865470566400 if p["unit"] == "GiBy.h" else 3600,
                },
                "currencyConversionRate": 1,
                "effectiveTime": EFFECTIVE,
            }
        ],
        "serviceProviderName": "Google",
        "geoTaxonomy": {"type": "MULTI_REGIONAL", "regions": list(regions)},
    }


def sku_id(*parts: object) -> str:
    """A stable SKU id in Google's XXXX-XXXX-XXXX form."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12].upper()
    return f"{digest[:4]}-{digest[4:8]}-{digest[8:]}"


def service_skus(service: str, day: int) -> list[dict[str, Any]]:
    """Every sample SKU of one service on one run day."""
    found = []
    entries = [(s, g, u, p) for s, g, u, p in RESOURCES if service == COMPUTE]
    entries += [(word, "TPU", "h", p) for svc, word, p in TPUS if svc == service]
    for stem, group, unit, prices in entries:
        for usage, price in zip(USAGES, prices, strict=True):
            for geo, regions in GEOS.items():
                value = price * factor(MOVES, stem, day) * (1.0 if geo == "Americas" else 1.1)
                text = description(stem, usage, geo)
                for listed, mark in _marked(stem, usage, geo, regions):
                    found.append(
                        sku(
                            service,
                            sku_id(service, text, *([listed] if listed != regions else [])),
                            text,
                            group,
                            usage,
                            listed,
                            price=round(value, 6),
                            unit=unit,
                        )
                        | ({ESTIMATE_KEY: mark} if mark else {})
                    )
    if service == COMPUTE:
        found += [
            sku(service, sku_id(service, text), text, group, "OnDemand", ("us-central1",),
                price=price, unit=unit)
            for text, group, unit, price in MODE_SKUS
        ]  # fmt: skip
    return found


def _marked(
    stem: str, usage: str, geo: str, regions: tuple[str, ...]
) -> list[tuple[tuple[str, ...], str]]:
    """The SKUs one resource's price is listed under, each with its estimate mark ('' for a
    traced price): one SKU for the geography, or the traced region's apart from the rest."""
    if geo == "Americas" and (stem, usage) in TRACED:
        return [(regions, "")]
    traced = TRACED_IN.get((stem, usage)) if geo == "Americas" else None
    if traced in regions:
        rest = tuple(r for r in regions if r != traced)
        copy = f"copies {traced}'s price; its own was not found in a public copy"
        return [((traced,), ""), (rest, copy)]
    return [(regions, ESTIMATE)]


def pages(service: str, day: int) -> list[bytes]:
    """The service's SKU list split into pages chained by nextPageToken."""
    listed = service_skus(service, day)
    chunks = [listed[i : i + PAGE] for i in range(0, len(listed), PAGE)] or [[]]
    bodies = []
    for number, chunk in enumerate(chunks, start=1):
        body: dict[str, Any] = {"skus": chunk}
        if number < len(chunks):
            body["nextPageToken"] = f"sample-{service}-page-{number + 1}"
        bodies.append(indented_json({**body, SAMPLE_KEY: SAMPLE_LABEL}))
    return bodies


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/gcp/: each service's pages, archived the way fetch archives them."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    for service in SERVICES:
        params: dict[str, Any] = {"key": "<redacted>", "currencyCode": "USD"}
        params["pageSize"] = PAGE_SIZE
        for number, data in enumerate(pages(service, day), start=1):
            if number > 1:
                params = {**params, "pageToken": f"sample-{service}-page-{number}"}
            url = SKUS_URL.format(service=service)
            writer.write(data, url, fetched_at=moment, request={"method": "GET", "params": params})
    return writer.directory
