"""Sample runs of coreweave: the pricing page's GPU table in its real markup, synthetic prices."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from html import escape
from pathlib import Path

from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE
from chipcost.extract.coreweave import PRICING_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, factor, fresh_writer, money

# Rows: name, slug, GPUs as printed, VRAM, vCPUs, RAM, storage, on-demand, spot.
# fmt: off
INSTANCES = (
    ("NVIDIA GB200 NVL72", "nvidia-gb200-nvl72", "4<sup>1</sup>", 186, 144, "960", "30.72", 42.00,
     None),
    ("NVIDIA HGX B200", "nvidia-b200", "8", 180, 128, "2,048", "61.44", 68.80, 34.11),
    ("NVIDIA HGX H200", "nvidia-h200", "8", 141, 128, "2,048", "61.44", 50.44, 20.18),
    ("NVIDIA HGX H100", "nvidia-h100", "8", 80, 128, "2,048", "61.44", 49.24, 19.70),
    ("NVIDIA L40S", "nvidia-l40s", "8", 48, 128, "1,024", "7.68", 18.00, 7.20),
    ("NVIDIA A100", "nvidia-a100", "8", 80, 128, "2,048", "7.68", 21.60, None),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "nvidia-rtx-pro-6000", "8", 96, 128, "1,024",
     "7.68", 20.00, None),
)
# fmt: on
# ("<name> spot", first day) -> price factor from that day on.
MOVES = {("NVIDIA HGX B200 spot", 5): 0.9}
# The on-demand prices sample/REFERENCES.md traces; every other price of the page (spot ones,
# other rows) is marked an estimate on its price span.
TRACED = {"NVIDIA HGX H100", "NVIDIA HGX H200", "NVIDIA HGX B200"}
ESTIMATE = "synthetic: no public copy of this CoreWeave price was read here; near its level"
HEADERS = (
    "GPU Model",
    "GPU Count",
    "VRAM (GB)",
    "vCPUs",
    "System RAM (GB)",
    "Local Storage (TB)",
    "Instance Price/hr",
)


@dataclass(frozen=True)
class Row:
    name: str
    product: str
    gpus: str  # as printed, e.g. "8" or "4<sup>1</sup>"
    vram: int
    vcpus: int
    ram: str
    storage: str
    on_demand: str  # as printed, e.g. "$49.24" or "Contact sales"
    spot: str | None = None


def row_markup(row: Row) -> str:
    spot, mark = "", f' {ESTIMATE_ATTRIBUTE}="{ESTIMATE}"'
    if row.spot is not None:
        spot = (
            f'<span class="spot-price"{mark}>Spot Price: <span class="item-value">'
            f"{row.spot}</span> / Hour</span>"
        )
    traced = "" if row.name in TRACED else mark
    per_hour = " / Hour" if row.on_demand.startswith("$") else ""
    meta = (
        f'<div class="table-meta"><div class="table-meta-item"><div class="table-meta-value">'
        f'{row.gpus}</div>\n<div>GPU Count</div></div><div class="table-meta-item">'
        f'<div class="table-meta-value">{row.vram}</div>\n<div>VRAM</div></div>'
        f'<span class="instance-price"{traced}>On-Demand Price: <span class="item-value">'
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


def pricing_page(rows: list[Row], region: str = "NORTH AMERICA") -> bytes:
    header = "".join(
        f'<div class="table-v2-cell{" table-v2-cell--name" if i == 0 else ""}"><div>{h}</div></div>'
        for i, h in enumerate(HEADERS)
    )
    body = "\n".join(row_markup(row) for row in rows)
    return (
        f'<!DOCTYPE html>{HTML_SAMPLE_COMMENT}<html lang="en"><head><meta charset="utf-8"/>'
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


def day_page(day: int) -> bytes:
    rows = []
    for name, slug, gpus, vram, vcpus, ram, storage, on_demand, spot in INSTANCES:
        spot_text = None
        if spot is not None:
            spot_text = money(spot * factor(MOVES, f"{name} spot", day))
        rows.append(Row(name, slug, gpus, vram, vcpus, ram, storage, money(on_demand), spot_text))
    return pricing_page(rows)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/coreweave/: the pricing page, archived the way fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    request = {"method": "GET"}
    writer.write(day_page(day), PRICING_URL, fetched_at=moment, ext="html", request=request)
    return writer.directory
