"""Sample runs of crusoe: the pricing page's GPU table in its reconstructed structure
(tests/fixtures/crusoe/ORIGIN.md), at the per-GPU-hour prices gpuhunt copied from Crusoe's
pricing page (dstackai/gpuhunt src/gpuhunt/providers/crusoe.py at 2449039f; sample/REFERENCES.md),
not fetched from Crusoe."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract.crusoe import PRICING_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, fresh_writer, money

# GPU, memory, USD per GPU-hour on demand and spot (None: the page shows "—").
GPUS = (
    ("H200", "141GB", 4.29, None),
    ("H100", "80GB", 3.90, 1.60),
    ("A100 SXM", "80GB", 1.95, 1.30),
    ("A100 PCIe", "40GB", 1.45, 1.00),
    ("L40S", "48GB", 1.00, 0.50),
    ("MI300x", "192GB", 3.45, 0.95),
)


def _cell(price: float | None) -> str:
    return "—" if price is None else money(price).replace("$", "$ ")


def page() -> str:
    rows = "\n".join(
        f'<tr><td><div class="flex"><div class="w-[4ch]">{gpu}</div>'
        f'<div class="bg-main-green/25">{memory}</div></div></td>'
        f"<td>{_cell(on_demand)}</td><td>{_cell(spot)}</td></tr>"
        for gpu, memory, on_demand, spot in GPUS
    )
    return (
        f"<!DOCTYPE html>\n<html><head><title>Cloud Pricing | Crusoe</title></head><body>\n"
        f'{HTML_SAMPLE_COMMENT}\n<section id="gpu-pricing"><table>\n'
        f"<thead><tr><th>GPU</th><th>On-Demand</th><th>Spot</th></tr></thead>\n"
        f"<tbody>\n{rows}\n</tbody></table></section>\n</body></html>\n"
    )


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/crusoe/: the pricing page, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(page().encode("utf-8"), PRICING_URL, fetched_at=moment, ext="html",
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
