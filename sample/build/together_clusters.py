"""Sample runs of together-clusters: the pricing page's GPU cluster table (reconstructed
structure), every price synthetic and marked so on its row."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE
from chipcost.extract.together_clusters import PAGE_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, factor, fresh_writer

# Node type, USD per GPU-hour: placeholders, no public copy of Together's prices was found.
ROWS = (
    ("NVIDIA HGX B200", 5.50),
    ("NVIDIA HGX H200", 3.79),
    ("NVIDIA HGX H100 SXM", 2.99),
    ("NVIDIA HGX H100 SXM - Inference", 2.49),
)
ESTIMATE = (
    "synthetic: no public copy of Together's GPU cluster prices was found; a placeholder near "
    "other clouds' HGX node prices"
)
# (node type, first day) -> price factor from that day on.
MOVES = {("NVIDIA HGX H200", 5): 0.92}


def pricing_page(day: int) -> bytes:
    """The page's GPU cluster table, trimmed to its structure."""
    rows = "\n".join(
        f'          <tr {ESTIMATE_ATTRIBUTE}="{ESTIMATE}"><td>{name}</td>'
        f"<td>${usd * factor(MOVES, name, day):.2f}</td></tr>"
        for name, usd in ROWS
    )
    html = f"""<!DOCTYPE html>
{HTML_SAMPLE_COMMENT}
<html lang="en"><head><meta charset="utf-8"><title>Together AI | Pricing</title></head>
<body>
<main>
    <section id="gpu-clusters">
      <h2>GPU Clusters</h2>
      <table>
        <thead><tr><th>Hardware</th><th>Price per GPU hour</th></tr></thead>
        <tbody>
{rows}
        </tbody>
      </table>
    </section>
</main>
</body></html>
"""
    return html.encode("utf-8")


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/together-clusters/: the pricing page; the H200 node 8% cheaper from day 5."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(pricing_page(day), PAGE_URL, fetched_at=moment, ext="html",
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
