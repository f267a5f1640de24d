"""Payloads in the real shapes of RunPod, Vast.ai, Azure, OCI and Lambda, for fixtures and sample.

Shapes follow each provider's documented responses (docs/sources.md says which parts are
documented and which are reconstructed); the prices put into them are synthetic.
"""

from __future__ import annotations

import json
import zlib
from typing import Any
from urllib.parse import quote, urlencode

SAMPLE_LABEL = "synthetic sample data in the provider's real shape, not a recorded price"


def dumps(body: Any) -> bytes:
    return json.dumps(body, indent=1).encode("utf-8")


# --- RunPod: POST https://api.runpod.io/graphql, query gpuTypes ------------------------------


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
    secure = prices.get("securePrice", 0) > 0
    fields = (
        "securePrice communityPrice secureSpotPrice communitySpotPrice "
        "oneWeekPrice oneMonthPrice threeMonthPrice sixMonthPrice"
    ).split()
    entry: dict[str, Any] = {
        "id": gpu_id,
        "displayName": display,
        "manufacturer": manufacturer,
        "memoryInGb": memory,
        "secureCloud": secure,
        "communityCloud": community,
    }
    entry.update({name: prices.get(name, 0) for name in fields})
    cheapest = min((v for v in prices.values() if v), default=0)
    spot = min(prices.get("secureSpotPrice", 0) or 9e9, prices.get("communitySpotPrice", 0) or 9e9)
    entry["lowestPrice"] = {
        "minimumBidPrice": spot if spot < 9e9 else None,
        "uninterruptablePrice": cheapest or None,
        "stockStatus": stock,
    }
    return entry


def runpod_body(gpus: list[dict[str, Any]]) -> bytes:
    return dumps({"data": {"gpuTypes": gpus}})


# --- Vast.ai: POST https://console.vast.ai/api/v0/bundles/ -----------------------------------


def vast_offer(
    offer_id: int, gpu_name: str, num_gpus: int, gpu_ram_mb: int, dph_base: float, **kw: Any
) -> dict[str, Any]:
    """One bundle offer as the search returns it: prices are for the whole offer (all GPUs)."""
    storage_cost = kw.get("storage_cost", 0.15)  # $/GB/month
    disk = kw.get("disk_space", 500.0)
    min_bid = kw.get("min_bid", round(dph_base * 0.62, 4))
    return {
        "id": offer_id,
        "ask_contract_id": offer_id,
        "bundle_id": offer_id + 7,
        "machine_id": kw.get("machine_id", offer_id % 50000),
        "host_id": kw.get("host_id", offer_id % 9000),
        "gpu_name": gpu_name,
        "num_gpus": num_gpus,
        "gpu_ram": gpu_ram_mb,
        "gpu_total_ram": gpu_ram_mb * num_gpus,
        "gpu_arch": "nvidia",
        "cuda_max_good": 12.8,
        "driver_version": "570.124.06",
        "cpu_name": kw.get("cpu_name", "AMD EPYC 9654 96-Core Processor"),
        "cpu_cores": 24 * num_gpus,
        "cpu_cores_effective": float(24 * num_gpus),
        "cpu_ram": 128000 * num_gpus,
        "disk_space": disk,
        "dph_base": dph_base,
        "dph_total": round(dph_base + disk * storage_cost / 30 / 24, 6),
        "storage_cost": storage_cost,
        "storage_total_cost": round(disk * storage_cost / 30 / 24, 6),
        "inet_up_cost": 0.004,
        "inet_down_cost": 0.004,
        "min_bid": min_bid,
        "is_bid": False,
        "geolocation": kw.get("geolocation", "Texas, US"),
        "verification": "verified",
        "verified": True,
        "rentable": True,
        "rented": False,
        "external": False,
        "hosting_type": kw.get("hosting_type", 1),
        "reliability2": kw.get("reliability", 0.9962),
        "inet_up": 4512.3,
        "inet_down": 6120.8,
        "direct_port_count": 120,
        "pci_gen": 5.0,
        "pcie_bw": 52.6,
        "start_date": 1763000000.0,
        "end_date": 1795000000.0,
    }


def vast_body(offers: list[dict[str, Any]]) -> bytes:
    return dumps({"offers": offers})


# --- Azure Retail Prices: GET https://prices.azure.com/api/retail/prices ----------------------


def azure_item(
    arm_sku: str,
    region: str,
    price: float,
    *,
    kind: str = "",
    reservation: str = "",
    savings: dict[str, float] | None = None,
    location: str = "US East",
    currency: str = "USD",
) -> dict[str, Any]:
    """One Items[] row; kind is '', 'Spot' or 'Low Priority'; reservation '1 Year'/'3 Years'."""
    size = arm_sku.removeprefix("Standard_").replace("_", " ")
    name = f"{size} {kind}".strip()
    series = "".join(ch for ch in size.split()[0] if not ch.isdigit())
    item: dict[str, Any] = {
        "currencyCode": currency,
        "tierMinimumUnits": 0.0,
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": region,
        "location": location,
        "effectiveStartDate": "2025-06-01T00:00:00Z",
        "meterId": f"{zlib.crc32(f'{arm_sku}|{region}|{kind}|{reservation}'.encode()):010d}",
        "meterName": name,
        "productId": f"DZH318Z0{len(series):02d}{series[:2]}",
        "skuId": f"DZH318Z0{len(series):02d}{series[:2]}/00{len(name):02d}",
        "productName": f"Virtual Machines {series} Series",
        "skuName": name,
        "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8",
        "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour",
        "type": "Reservation" if reservation else "Consumption",
        "isPrimaryMeterRegion": True,
        "armSkuName": arm_sku,
    }
    if reservation:
        item["reservationTerm"] = reservation
    if savings:
        item["savingsPlan"] = [
            {"unitPrice": value, "retailPrice": value, "term": term}
            for term, value in savings.items()
        ]
    return item


def azure_next_link(params: dict[str, str], skip: int) -> str:
    """A NextPageLink as Azure writes it: the same query plus $skip, '$' and quotes unescaped."""
    query = urlencode({**params, "$skip": skip}, quote_via=lambda text, *_: quote(text, "$'"))
    return f"https://prices.azure.com:443/api/retail/prices?{query}"


def azure_page(items: list[dict[str, Any]], next_link: str | None) -> bytes:
    return dumps(
        {
            "BillingCurrency": "USD",
            "CustomerEntityId": "Default",
            "CustomerEntityType": "Retail",
            "Items": items,
            "NextPageLink": next_link,
            "Count": len(items),
        }
    )


# --- OCI price list: GET https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/ --------


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


def oci_body(items: list[dict[str, Any]], last_updated: str) -> bytes:
    return dumps({"lastUpdated": last_updated, "items": items})


# --- Lambda: GET https://cloud.lambda.ai/api/v1/instance-types, and lambda.ai/pricing ---------


def lambda_type(
    name: str, description: str, cents: int, gpus: int, regions: list[tuple[str, str]]
) -> dict[str, Any]:
    return {
        "instance_type": {
            "name": name,
            "description": description,
            "gpu_description": description.split("x ", 1)[1],
            "price_cents_per_hour": cents,
            "specs": {
                "vcpus": 26 * gpus,
                "memory_gib": 225 * gpus,
                "storage_gib": 2750 * gpus,
                "gpus": gpus,
            },
        },
        "regions_with_capacity_available": [
            {"name": code, "description": where} for code, where in regions
        ],
    }


def lambda_api_body(types: list[dict[str, Any]]) -> bytes:
    return dumps({"data": {t["instance_type"]["name"]: t for t in types}})


LAMBDA_HEADERS = ("GPUs", "VRAM / GPU", "vCPUs", "RAM", "Storage", "Price / GPU / hr*")


def lambda_page(rows: list[tuple[str, ...]], *, headers: tuple[str, ...] = LAMBDA_HEADERS) -> bytes:
    """The on-demand table of the public pricing page, trimmed to its structure."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "\n".join(
        "      <tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows
    )
    html = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>GPU Cloud Pricing | Lambda</title></head>
<body>
<main>
  <section class="pricing-section" id="on-demand">
    <h2>On-demand Cloud pricing</h2>
    <table class="pricing-table">
      <thead><tr>{head}</tr></thead>
      <tbody>
{body}
      </tbody>
    </table>
    <p class="footnote">* Prices are per GPU per hour and exclude applicable sales tax.</p>
  </section>
</main>
</body></html>
"""
    return html.encode("utf-8")
