"""Payload builders in the real shapes of CoreWeave, Nebius, Spheron and Verda (sample data).

Each builder renders what the provider serves: the same markup or JSON structure the parsers
read and the recorded fixtures in tests/fixtures/<source>/ show, with the prices given.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from html import escape

SAMPLE_COMMENT = (
    "<!-- chipcost sample data: synthetic prices in the page's real structure, "
    "not fetched from the provider -->"
)
SAMPLE_LABEL = "synthetic prices in the feed's real shape, not fetched from the provider"


@dataclass(frozen=True)
class CoreWeaveRow:
    name: str
    product: str
    gpus: str  # as printed, e.g. "8" or "4<sup>1</sup>"
    vram: int
    vcpus: int
    ram: str
    storage: str
    on_demand: str  # as printed, e.g. "$49.24" or "Contact sales"
    spot: str | None = None


def _cw_row(row: CoreWeaveRow) -> str:
    spot = ""
    if row.spot is not None:
        spot = (
            f'<span class="spot-price">Spot Price: <span class="item-value">{row.spot}</span>'
            " / Hour</span>"
        )
    per_hour = " / Hour" if row.on_demand.startswith("$") else ""
    meta = (
        f'<div class="table-meta"><div class="table-meta-item"><div class="table-meta-value">'
        f'{row.gpus}</div>\n<div>GPU Count</div></div><div class="table-meta-item">'
        f'<div class="table-meta-value">{row.vram}</div>\n<div>VRAM</div></div>'
        f'<span class="instance-price">On-Demand Price: <span class="item-value">'
        f"{row.on_demand}</span>{per_hour}<br/></span>{spot}</div>"
    )
    cells = (row.gpus, row.vram, row.vcpus, row.ram, row.storage, row.on_demand)
    grid = "".join(f'<div class="table-v2-cell"><div>{c}</div></div>' for c in cells)
    return (
        '<div role="listitem" class="table-row-v2 w-dyn-item kubernetes-gpu-pricing">'
        '<div class="w-embed"><div class="table-grid"><div class="table-v2-cell '
        f'table-v2-cell--name"><h3 data-product="{row.product}" class="table-model-name">'
        f"{escape(row.name)}</h3>{meta}</div>{grid}</div></div></div>"
    )


CW_HEADERS = (
    "GPU Model",
    "GPU Count",
    "VRAM (GB)",
    "vCPUs",
    "System RAM (GB)",
    "Local Storage (TB)",
    "Instance Price/hr",
)


def coreweave_page(rows: list[CoreWeaveRow], region: str = "NORTH AMERICA") -> bytes:
    header = "".join(
        f'<div class="table-v2-cell{" table-v2-cell--name" if i == 0 else ""}"><div>{h}</div></div>'
        for i, h in enumerate(CW_HEADERS)
    )
    body = "\n".join(_cw_row(row) for row in rows)
    return (
        f'<!DOCTYPE html>{SAMPLE_COMMENT}<html lang="en"><head><meta charset="utf-8"/>'
        '<title>Pricing | CoreWeave</title></head><body><main class="main-wrapper">'
        '<section id="gpu" class="section-pricing-table"><div class="container">'
        '<div class="pricing-table-heading"><h2 class="heading-style-h2">On-demand GPU '
        f'instances</h2><div class="pricing-region-tag">REGION: {region}</div></div>'
        '<div class="table-v2 kubernetes-gpu-pricing"><div class="table-v2-header">'
        f'<div class="table-grid">{header}</div></div><div class="table-v2-body w-dyn-list">'
        f'<div role="list" class="w-dyn-items">\n{body}\n</div></div></div>'
        '<div class="pricing-footnotes"><p class="text-size-small"><sup>1</sup> GB200 NVL72 '
        "is priced per node of 4 GPUs in a 72-GPU NVLink domain.</p></div></div></section>"
        "</main></body></html>"
    ).encode()


NEBIUS_HEADERS = ("Item", "vCPUs", "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour")


def nebius_page(rows: list[tuple[str, ...]]) -> bytes:
    def cells(values: tuple[str, ...], role: str) -> str:
        inner = "".join(
            f'<div class="pc-highlight-table-block__cell" role="{role}">{escape(v)}</div>'
            for v in values
        )
        return f'<div class="pc-highlight-table-block__row" role="row">{inner}</div>'

    body = "\n".join(cells(row, "cell") for row in rows)
    return (
        f'<!DOCTYPE html>{SAMPLE_COMMENT}<html lang="en"><head><meta charSet="utf-8"/>'
        '<title>Nebius AI Cloud prices</title></head><body><div id="__next"><main '
        'class="page-constructor"><div class="pc-block-base pc-highlight-table-block" '
        'id="gpu-instances"><div class="pc-highlight-table-block__title"><h2 '
        'class="pc-title-item"><span class="pc-title-item__text">NVIDIA GPU Instances</span>'
        '</h2></div><div class="pc-highlight-table-block__table" role="table">'
        '<div class="pc-highlight-table-block__head" role="rowgroup">'
        f"{cells(NEBIUS_HEADERS, 'columnheader')}</div>"
        f'<div class="pc-highlight-table-block__body" role="rowgroup">\n{body}\n</div></div>'
        "</div></main></div></body></html>"
    ).encode()


@dataclass
class SpheronGroup:
    gpu_type: str
    model: str
    display: str
    interconnect: str
    offers: list[dict] = field(default_factory=list)

    def offer(self, provider: str, count: int, price: float, region: str, memory: int,
              *, spot: bool = False) -> None:  # fmt: skip
        slug = f"{provider[:3]}-{self.gpu_type.lower()}-{count}x-{region}"
        entry = {
            "provider": provider,
            "offerId": slug + ("::spot" if spot else ""),
            "name": f"{count}x {self.display}",
            "description": f"{count}x {self.display} on {provider}",
            "vcpus": 16 * count,
            "memory": 200 * count,
            "storage": 1000 * count,
            "gpuCount": count,
            "price": price,
            "available": True,
            "clusters": [f"{region}-a"],
            "region": region,
            "gpu_memory": memory,
            "os_options": ["ubuntu-22.04-cuda-12.4", "ubuntu-24.04-cuda-12.8"],
            "maintenance": False,
            "interconnectType": self.interconnect,
            "interconnectDescription": "NVLink" if self.interconnect.startswith("SXM") else "PCIe",
            "instanceType": "SPOT" if spot else "DEDICATED",
            "supportsCloudInit": True,
        }
        if spot:
            entry["spot_price"] = price
        self.offers.append(entry)

    def body(self) -> dict:
        per_gpu = [o["price"] / o["gpuCount"] for o in self.offers]
        return {
            "gpuType": self.gpu_type,
            "gpuModel": self.model,
            "baseGpuType": self.model,
            "interconnectVariants": [self.interconnect],
            "hasMultipleVariants": False,
            "displayName": self.display,
            "totalAvailable": len(self.offers),
            "lowestPrice": round(min(per_gpu), 2),
            "highestPrice": round(max(per_gpu), 2),
            "averagePrice": round(sum(per_gpu) / len(per_gpu), 2),
            "providers": sorted({o["provider"] for o in self.offers}),
            "offers": self.offers,
        }


def spheron_pages(groups: list[SpheronGroup], page_size: int) -> list[bytes]:
    chunks = [groups[i : i + page_size] for i in range(0, len(groups), page_size)]
    return [
        json.dumps(
            {
                "data": [g.body() for g in chunk],
                "total": len(groups),
                "page": number,
                "limit": page_size,
                "totalPages": len(chunks),
                "chipcostSample": SAMPLE_LABEL,
            },
            separators=(",", ":"),
        ).encode()
        for number, chunk in enumerate(chunks, 1)
    ]


def verda_instance_type(
    itype: str, model: str, description: str, count: int, memory: int, prices: dict[str, str]
) -> dict:
    name = description.split(" ", 1)[1]
    return {
        "best_for": ["Large scale training"] if count > 1 else ["Inference", "Fine-tuning"],
        "cpu": {"description": f"{30 * count} CPU", "number_of_cores": 30 * count},
        "deploy_warning": None,
        "description": "Dedicated Hardware Instance",
        "gpu": {"description": description, "number_of_gpus": count},
        "gpu_memory": {
            "description": f"{memory * count}GB GPU RAM",
            "size_in_gigabytes": memory * count,
        },  # fmt: skip
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, "verda:" + itype)),
        "instance_type": itype,
        "memory": {"description": f"{120 * count}GB RAM", "size_in_gigabytes": 120 * count},
        "model": model,
        "name": name,
        "p2p": "900 GB/s" if count > 1 else None,
        "price_per_hour": prices["fixed"],
        "spot_price": prices.get("spot"),
        "dynamic_price": prices.get("dynamic"),
        "max_dynamic_price": prices["fixed"] if prices.get("dynamic") else None,
        "serverless_price": None,
        "serverless_spot_price": None,
        "storage": {"description": "dynamic"},
        "currency": "usd",
        "manufacturer": "NVIDIA",
        "display_name": None,
        "supported_os": ["ubuntu-24.04-cuda-12.8-open-docker"],
    }


VERDA_PERIODS = (("1_MONTH", "1 month", "month", 1, 7), ("3_MONTHS", "3 months", "month", 3, 14),
                 ("6_MONTHS", "6 months", "month", 6, 20), ("1_YEAR", "1 year", "year", 1, 26),
                 ("2_YEARS", "2 years", "year", 2, 33))  # fmt: skip


def verda_periods() -> bytes:
    periods = [
        {
            "code": code,
            "name": name,
            "is_enabled": True,
            "unit_name": unit,
            "unit_value": value,
            "discount_percentage": discount,
        }  # fmt: skip
        for code, name, unit, value, discount in VERDA_PERIODS
    ]
    return json.dumps(periods, indent=1).encode()
