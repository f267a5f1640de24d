"""AWS Price List GetProducts items and pages in the real shape: the synthetic EC2 catalog that
the aws-pricing-api and aws-bulk test fixtures (and their sample weeks, week/) are written from."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

# regionCode -> (Price List location, usagetype prefix): AWS's own spellings.
REGIONS = {
    "us-east-1": ("US East (N. Virginia)", ""),
    "us-east-2": ("US East (Ohio)", "USE2-"),
    "us-west-2": ("US West (Oregon)", "USW2-"),
    "eu-west-1": ("EU (Ireland)", "EU-"),
    "eu-north-1": ("EU (Stockholm)", "EUN1-"),
    "ap-northeast-1": ("Asia Pacific (Tokyo)", "APN1-"),
    "ap-southeast-2": ("Asia Pacific (Sydney)", "APS2-"),
    "cn-north-1": ("China (Beijing)", "CNN1-"),
    # The aws-bulk sample's regions (the aws-pricing-api sample does not cover them).
    "eu-central-1": ("EU (Frankfurt)", "EUC1-"),
    "ap-south-1": ("Asia Pacific (Mumbai)", "APS3-"),
}
# Regional price level against us-east-1 (the US regions list the same price).
REGION_FACTOR = {
    "us-east-1": 1.0,
    "us-east-2": 1.0,
    "us-west-2": 1.0,
    "eu-west-1": 1.1,
    "eu-north-1": 1.06,
    "ap-northeast-1": 1.18,
    "ap-southeast-2": 1.2,
}
GPU = "GPU instance"
ASIC = "Machine Learning ASIC Instances"


@dataclass(frozen=True)
class Spec:
    family: str
    vcpu: str
    memory: str
    gpu: str
    gpu_memory: str
    storage: str
    network: str
    processor: str


# instanceType | family | vcpu | memory | gpu | gpuMemory | storage | networkPerformance | CPU
# (CPU model number: Intel Xeon Platinum 8xxx, AMD EPYC 7Rxx/9Rxx).
# The last two rows are not real (yet): a family the catalog does not know, and an unlisted
# size of a known family.
_SPEC_TABLE = """
p4d.24xlarge | GPU | 96 | 1152 GiB | 8 | 320 GB | 8 x 1000 SSD | 400 Gigabit | 8275L
p4de.24xlarge | GPU | 96 | 1152 GiB | 8 | 640 GB | 8 x 1000 SSD | 400 Gigabit | 8275L
p5.48xlarge | GPU | 192 | 2048 GiB | 8 | 640 GB | 8 x 3840 SSD | 3200 Gigabit | 7R13
p5e.48xlarge | GPU | 192 | 2048 GiB | 8 | 1128 GB | 8 x 3840 SSD | 3200 Gigabit | 7R13
p5en.48xlarge | GPU | 192 | 2048 GiB | 8 | 1128 GB | 8 x 3840 SSD | 3200 Gigabit | 8488C
p6-b200.48xlarge | GPU | 192 | 2048 GiB | 8 | 1432 GB | 8 x 3840 SSD | 3200 Gigabit | 8570
g5.xlarge | GPU | 4 | 16 GiB | 1 | 24 GB | 1 x 250 NVMe SSD | Up to 10 Gigabit | 7R32
g5.48xlarge | GPU | 192 | 768 GiB | 8 | 192 GB | 2 x 3800 NVMe SSD | 100 Gigabit | 7R32
g6.xlarge | GPU | 4 | 16 GiB | 1 | 24 GB | 1 x 250 NVMe SSD | Up to 10 Gigabit | 7R13
g6.48xlarge | GPU | 192 | 768 GiB | 8 | 192 GB | 8 x 7500 NVMe SSD | 100 Gigabit | 7R13
g6e.xlarge | GPU | 4 | 32 GiB | 1 | 48 GB | 1 x 250 NVMe SSD | Up to 20 Gigabit | 7R13
g6e.48xlarge | GPU | 192 | 1536 GiB | 8 | 384 GB | 4 x 1900 NVMe SSD | 400 Gigabit | 7R13
trn1.2xlarge | ASIC | 8 | 32 GiB | 1 | 32 GB | 1 x 475 NVMe SSD | Up to 12500 Megabit | 8375C
trn1.32xlarge | ASIC | 128 | 512 GiB | 16 | 512 GB | 4 x 1900 NVMe SSD | 800 Gigabit | 8375C
trn1n.32xlarge | ASIC | 128 | 512 GiB | 16 | 512 GB | 4 x 1900 NVMe SSD | 1600 Gigabit | 8375C
trn2.48xlarge | ASIC | 192 | 2048 GiB | 16 | 1536 GB | 4 x 1900 NVMe SSD | 3200 Gigabit | 8488C
inf1.xlarge | ASIC | 4 | 8 GiB | 1 | 8 GB | EBS only | Up to 25 Gigabit | 8275CL
inf1.24xlarge | ASIC | 96 | 192 GiB | 16 | 128 GB | EBS only | 100 Gigabit | 8275CL
inf2.xlarge | ASIC | 4 | 16 GiB | 1 | 32 GB | EBS only | Up to 15 Gigabit | 7R13
inf2.48xlarge | ASIC | 192 | 768 GiB | 12 | 384 GB | EBS only | 100 Gigabit | 7R13
g4dn.xlarge | GPU | 4 | 16 GiB | 1 | 16 GB | 1 x 125 NVMe SSD | Up to 25 Gigabit | 8259CL
g6f.large | GPU | 2 | 8 GiB | 0.125 | 3 GB | 1 x 250 NVMe SSD | Up to 10 Gigabit | 7R13
g9x.48xlarge | GPU | 192 | 2048 GiB | 8 | 1536 GB | 8 x 3840 SSD | 3200 Gigabit | 9R45
trn2.24xlarge | ASIC | 96 | 1024 GiB | 8 | 768 GB | 2 x 1900 NVMe SSD | 1600 Gigabit | 8488C
"""
_FAMILY_NAMES = {"GPU": GPU, "ASIC": ASIC}


def _specs() -> dict[str, Spec]:
    specs = {}
    for line in _SPEC_TABLE.strip().splitlines():
        name, family, *rest, cpu = (cell.strip() for cell in line.split("|"))
        maker = "AMD EPYC" if cpu[0] in "79" else "Intel Xeon Platinum"
        specs[name] = Spec(_FAMILY_NAMES[family], *rest, f"{maker} {cpu}")
    return specs


SPECS = _specs()

# us-east-1 Linux on-demand USD per hour (g6f and the unreal types are estimates; p5, p5en,
# p6-b200, trn1 and trn2 are the public prices sample/REFERENCES.md lists, trn2's as listed for
# US East (Ohio); p5e is sold through Capacity Blocks and has no on-demand offer in the sample).
ON_DEMAND_USD = {
    "p4d.24xlarge": 21.96,
    "p4de.24xlarge": 27.447,
    "p5.48xlarge": 55.04,
    "p5e.48xlarge": 60.0,
    "p5en.48xlarge": 63.296,
    "p6-b200.48xlarge": 113.93,
    "g5.xlarge": 1.006,
    "g5.48xlarge": 16.288,
    "g6.xlarge": 0.8048,
    "g6.48xlarge": 13.35,
    "g6e.xlarge": 1.861,
    "g6e.48xlarge": 30.131,
    "trn1.2xlarge": 1.34375,
    "trn1.32xlarge": 21.5,
    "trn1n.32xlarge": 24.78,
    "trn2.48xlarge": 85.964,
    "inf1.xlarge": 0.228,
    "inf1.24xlarge": 4.721,
    "inf2.xlarge": 0.758,
    "inf2.48xlarge": 12.98,
    "g4dn.xlarge": 0.526,
    "g6f.large": 0.2,
    "g9x.48xlarge": 98.0,
    "trn2.24xlarge": 17.88,
}

# (LeaseContractLength, OfferingClass, PurchaseOption) -> AWS's offerTermCode and the
# term's effective hourly rate as a share of on-demand.
RESERVED = {
    ("1yr", "standard", "No Upfront"): ("4NA7Y494T4", 0.65),
    ("1yr", "standard", "Partial Upfront"): ("HU7G6KETJZ", 0.62),
    ("1yr", "standard", "All Upfront"): ("6QCMYABX3D", 0.605),
    ("1yr", "convertible", "No Upfront"): ("7NE97W5U4E", 0.72),
    ("1yr", "convertible", "Partial Upfront"): ("CUZHX8X6JH", 0.69),
    ("1yr", "convertible", "All Upfront"): ("VJWZNREJX2", 0.675),
    ("3yr", "standard", "No Upfront"): ("BPH4J8HBKS", 0.45),
    ("3yr", "standard", "Partial Upfront"): ("38NPMPTW36", 0.415),
    ("3yr", "standard", "All Upfront"): ("NQ3QZPMQV9", 0.39),
    ("3yr", "convertible", "No Upfront"): ("Z2E3P23VKM", 0.53),
    ("3yr", "convertible", "Partial Upfront"): ("R5XV2EPZQZ", 0.49),
    ("3yr", "convertible", "All Upfront"): ("MZU6U2429S", 0.47),
}
HOURS = {"1yr": 8760, "3yr": 26280}
ON_DEMAND_CODE = "JRTCKXETXF"
HOURLY_RATE_CODE = "6YS6EN2CT7"
UPFRONT_RATE_CODE = "2TG2D8R56U"
VERSION = "20251201190623"
PUBLICATION_DATE = "2025-12-01T19:06:23Z"
EFFECTIVE_DATE = "2025-06-01T00:00:00Z"
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def sku_for(*parts: str) -> str:
    """A stable 16-character SKU in AWS's style, derived from what the product is."""
    digest = hashlib.sha256("|".join(parts).encode()).digest()
    return "".join(_ALPHABET[byte % len(_ALPHABET)] for byte in digest[:16])


def listed_price(instance_type: str, region: str) -> float:
    return round(ON_DEMAND_USD[instance_type] * REGION_FACTOR.get(region, 1.15), 4)


def product(instance_type: str, region: str, *, market: str = "OnDemand") -> dict[str, Any]:
    spec = SPECS[instance_type]
    location, prefix = REGIONS[region]
    usage = "BoxUsage" if market == "OnDemand" else market
    size = instance_type.split(".", 1)[1].removesuffix("xlarge")
    attributes = {
        "instanceType": instance_type,
        "instanceFamily": spec.family,
        "gpu": spec.gpu,
        "gpuMemory": spec.gpu_memory,
        "vcpu": spec.vcpu,
        "memory": spec.memory,
        "storage": spec.storage,
        "networkPerformance": spec.network,
        "physicalProcessor": spec.processor,
        "processorArchitecture": "64-bit",
        "currentGeneration": "Yes",
        # AWS's size factors: large 4, xlarge 8, Nxlarge 8N.
        "normalizationSizeFactor": str(4 if size == "large" else 8 * int(size or 1)),
        "location": location,
        "locationType": "AWS Region",
        "regionCode": region,
        "availabilityzone": "NA",
        "operatingSystem": "Linux",
        "tenancy": "Shared",
        "preInstalledSw": "NA",
        "capacitystatus": "Used",
        "marketoption": market,
        "licenseModel": "No License required",
        "usagetype": f"{prefix}{usage}:{instance_type}",
        "operation": "RunInstances",
        "servicecode": "AmazonEC2",
        "servicename": "Amazon Elastic Compute Cloud",
    }
    sku = sku_for(instance_type, region, market)
    return {"productFamily": "Compute Instance", "attributes": attributes, "sku": sku}


def _dimension(
    sku: str, code: str, rate: str, unit: str, text: str, price: str, currency: str
) -> dict[str, Any]:
    dimension: dict[str, Any] = {"unit": unit, "endRange": "Inf", "description": text}
    dimension.update(appliesTo=[], rateCode=f"{sku}.{code}.{rate}", beginRange="0")
    if unit != "Hrs":
        dimension = {k: v for k, v in dimension.items() if k not in ("beginRange", "endRange")}
    dimension["pricePerUnit"] = {currency: price}
    return {f"{sku}.{code}.{rate}": dimension}


def _term(sku: str, code: str, effective: str, dimensions: dict, attributes: dict) -> dict:
    term = {"priceDimensions": dimensions, "sku": sku, "effectiveDate": effective}
    term.update(offerTermCode=code, termAttributes=attributes)
    return {f"{sku}.{code}": term}


def on_demand_terms(
    sku: str, instance_type: str, price: float, *, effective: str, currency: str = "USD"
) -> dict[str, Any]:
    shown = f"{price:.4f}".rstrip("0").rstrip(".")
    money = f"${shown}" if currency == "USD" else f"{currency} {shown}"
    text = f"{money} per On Demand Linux {instance_type} Instance Hour"
    dims = _dimension(sku, ON_DEMAND_CODE, HOURLY_RATE_CODE, "Hrs", text, f"{price:.10f}", currency)
    return _term(sku, ON_DEMAND_CODE, effective, dims, {})


def reserved_terms(
    sku: str,
    instance_type: str,
    base_price: float,
    *,
    effective: str,
    currency: str = "USD",
    share_factor: dict[str, float] | None = None,
) -> dict[str, Any]:
    """The 12 reserved terms; share_factor scales one lease length's rates (a price change)."""
    terms: dict[str, Any] = {}
    applied = f"Linux/UNIX (Amazon VPC), {instance_type} reserved instance applied"
    for (lease, offering, option), (code, share) in RESERVED.items():
        total = base_price * share * (share_factor or {}).get(lease, 1.0) * HOURS[lease]
        upfront = {
            "No Upfront": 0,
            "Partial Upfront": round(total / 2),
            "All Upfront": round(total),
        }
        hourly = (
            0.0 if option == "All Upfront" else round((total - upfront[option]) / HOURS[lease], 4)
        )
        text = f"USD 0.0 per {applied}" if option == "All Upfront" else applied
        dims = _dimension(sku, code, HOURLY_RATE_CODE, "Hrs", text, f"{hourly:.10f}", currency)
        if option != "No Upfront":
            fee = str(upfront[option])
            dims |= _dimension(
                sku, code, UPFRONT_RATE_CODE, "Quantity", "Upfront Fee", fee, currency
            )
        attributes = {
            "LeaseContractLength": lease,
            "OfferingClass": offering,
            "PurchaseOption": option,
        }
        terms |= _term(sku, code, effective, dims, attributes)
    return terms


def offer_item(
    instance_type: str,
    region: str,
    price: float | None = None,
    *,
    market: str = "OnDemand",
    currency: str = "USD",
    reserved: bool = True,
    reserved_base: float | None = None,
    reserved_factor: dict[str, float] | None = None,
    effective: str = EFFECTIVE_DATE,
    reserved_effective: str = EFFECTIVE_DATE,
    version: str = VERSION,
    publication_date: str = PUBLICATION_DATE,
) -> dict[str, Any]:
    """One GetProducts item (as a dict): the product, its OnDemand and its Reserved terms."""
    price = listed_price(instance_type, region) if price is None else price
    prod = product(instance_type, region, market=market)
    sku = prod["sku"]
    terms: dict[str, Any] = {
        "OnDemand": on_demand_terms(
            sku, instance_type, price, effective=effective, currency=currency
        )
    }
    if reserved:
        base = price if reserved_base is None else reserved_base
        terms["Reserved"] = reserved_terms(
            sku,
            instance_type,
            base,
            effective=reserved_effective,
            currency=currency,
            share_factor=reserved_factor,
        )
    item = {"product": prod, "serviceCode": "AmazonEC2", "terms": terms}
    item.update(version=version, publicationDate=publication_date)
    return item


def item_string(item: dict[str, Any]) -> str:
    """A PriceList entry as the API sends it: the item as a compact JSON string."""
    return json.dumps(item, separators=(",", ":"))


def next_token(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return f"{base64.b64encode(digest[:16]).decode()}:{base64.b64encode(digest[16:]).decode()}"


def get_products_page(items: list[str], token: str | None = None) -> dict[str, Any]:
    """A GetProducts response body (what fetch archives: the response minus ResponseMetadata)."""
    page: dict[str, Any] = {"FormatVersion": "aws_v1", "PriceList": items}
    if token:
        page["NextToken"] = token
    return page


def paginate(items: list[str], size: int, seed: str) -> list[dict]:
    """Cut items into response pages chained by NextToken."""
    chunks = [items[start : start + size] for start in range(0, len(items), size)] or [[]]
    return [
        get_products_page(chunk, next_token(f"{seed}:{n}") if n < len(chunks) else None)
        for n, chunk in enumerate(chunks, start=1)
    ]


def page_bytes(page: dict[str, Any]) -> bytes:
    """A page as fetch archives it (json.dumps of the response dict)."""
    return json.dumps(page).encode("utf-8")
