"""Sample runs of lambda: the public pricing page's on-demand table, synthetic prices."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE
from chipcost.extract.lambda_cloud import PAGE_URL, SOURCE_NAME
from chipcost.sample.build._common import factor, fresh_writer

# Page rows: GPU cell, VRAM, vCPUs, RAM, storage, per-GPU price.
ROWS = (
    ("8x NVIDIA B200 SXM6", "180 GB", "208", "2900 GiB", "22 TiB SSD", 4.99),
    ("8x NVIDIA H100 SXM", "80 GB", "208", "1800 GiB", "22 TiB SSD", 2.99),
    ("1x NVIDIA H100 PCIe", "80 GB", "26", "225 GiB", "1 TiB SSD", 2.49),
    ("1x NVIDIA GH200", "96 GB", "64", "432 GiB", "4 TiB SSD", 1.49),
    ("8x NVIDIA A100 SXM", "80 GB", "240", "1800 GiB", "19.5 TiB SSD", 1.79),
    ("8x NVIDIA A100 SXM", "40 GB", "124", "1800 GiB", "5.8 TiB SSD", 1.29),
    ("1x NVIDIA A10", "24 GB", "30", "200 GiB", "1.4 TiB SSD", 0.75),
)
# Rows whose price no quotable copy of the page gives (sample/REFERENCES.md): marked on the
# row as an attribute, the extra key an HTML table allows.
ESTIMATES = {
    "8x NVIDIA B200 SXM6": "no quotable copy of Lambda's pricing page was found",
    "8x NVIDIA H100 SXM": "no quotable copy of Lambda's pricing page was found",
}
# The other rows' mark: synthetic prices near the page's level.
OTHER_ROWS = "synthetic: no quotable copy of Lambda's pricing page was found; near its level"
HEADERS = ("GPUs", "VRAM / GPU", "vCPUs", "RAM", "Storage", "Price / GPU / hr*")
# (GPU cell, first day) -> price factor from that day on.
# The GH200 moves, not the B200: its price is the one sample/REFERENCES.md lists.
MOVES = {("1x NVIDIA GH200", 6): 0.9}  # GH200 1.49 -> 1.34


def pricing_page(rows: list[tuple[str, ...]]) -> bytes:
    """The on-demand table of the public pricing page, trimmed to its structure."""
    head = "".join(f"<th>{h}</th>" for h in HEADERS)
    body = "\n".join(
        f"      <tr{_marks(row[0])}>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
        for row in rows
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


def _marks(gpu: str) -> str:
    # every row is an estimate: sample/REFERENCES.md traces none of Lambda's prices
    return f' {ESTIMATE_ATTRIBUTE}="{ESTIMATES.get(gpu, OTHER_ROWS)}"'


def day_page(day: int) -> bytes:
    rows = [(*cells, f"${price * factor(MOVES, cells[0], day):.2f}") for *cells, price in ROWS]
    return pricing_page(rows)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/lambda/: the pricing page (the source's path without an API key)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    request = {"method": "GET"}
    writer.write(day_page(day), PAGE_URL, fetched_at=moment, ext="html", request=request)
    return writer.directory
