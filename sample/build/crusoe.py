"""Sample runs of crusoe: the pricing page's "GPU instances pricing" list in the structure of the
recorded page (tests/fixtures/crusoe/ORIGIN.md), at the per-GPU-hour prices gpuhunt copied from
Crusoe's pricing page (dstackai/gpuhunt src/gpuhunt/providers/crusoe.py at 2449039f;
sample/REFERENCES.md), not fetched from Crusoe."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract.crusoe import PRICING_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, fresh_writer

# Heading, memory tag, board tag, USD per GPU-hour on demand and spot (None: "Contact sales").
GPUS = (
    ("NVIDIA H200", "141GB", "HGX", 4.29, None),
    ("NVIDIA H100", "80GB", "HGX", 3.90, 1.60),
    ("NVIDIA A100", "80GB", "SXM", 1.95, 1.30),
    ("NVIDIA A100", "40GB", "PCIe", 1.45, 1.00),
    ("NVIDIA L40S", "48GB", "", 1.00, 0.50),
    ("AMD MI300X", "192GB", "", 3.45, 0.95),
)
# The recorded page's column headings and the markup of a cell that lists no price.
HEADINGS = ("GPU model", "On-demand", "Current spot")
CONTACT = '<a href="/contact-sales">Contact sales</a>'


def _cell(price: float | None) -> str:
    text = CONTACT if price is None else f"${price:.2f}/GPU-hr"
    return f'<div class="pricing-rich w-richtext"><p>{text}</p></div>'


def _item(gpu: str, memory: str, board: str, on_demand: float, spot: float | None) -> str:
    empty = "" if board else " w-dyn-bind-empty"
    return (
        '<div role="listitem" class="prixing-item w-dyn-item"><div class="pricing_gpu-item">'
        '<a href="/contact-sales" class="pricing-item-head-part w-inline-block">'
        f'<div class="pricing-item-heading-wr"><h4 class="pricing-item-heading">{gpu}</h4></div>'
        f'<div class="pricing_tags-wr"><div class="pricing-tag is-dark">{memory}</div>'
        f'<div class="pricing-tag{empty}">{board}</div></div></a>'
        f"{_cell(on_demand)}{_cell(spot)}</div></div>"
    )


def page() -> str:
    headings = "".join(f'<div class="pricing-heading is-d">{h}</div>' for h in HEADINGS)
    items = "\n".join(_item(*gpu) for gpu in GPUS)
    return (
        "<!DOCTYPE html>\n<html><head><title>Cloud Pricing | Crusoe</title></head><body>\n"
        f'{HTML_SAMPLE_COMMENT}\n<div class="pricing-dd"><div class="pricing_title is-h">'
        '<h3 class="pricing-col-heading is-h">GPU instances pricing</h3></div>\n'
        '<div class="table-wr-h"><div class="pricing-gap">'
        f'<div class="pricing-table-heading is-w">{headings}</div>\n'
        '<div class="pricing-cms w-dyn-list"><div role="list" class="w-dyn-items">\n'
        f'{items}\n</div></div></div></div><div id="gpu-instances" class="anchor"></div></div>\n'
        '<div class="divider is-pricing"></div>\n</body></html>\n'
    )


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/crusoe/: the pricing page, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(page().encode("utf-8"), PRICING_URL, fetched_at=moment, ext="html",
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
