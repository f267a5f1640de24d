"""Sample runs of modal: the pricing page's GPU rows (reconstructed structure), per second."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE
from chipcost.extract.modal import PAGE_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, fresh_writer

# GPU label, USD per GPU-second: the page's prices as a public cheat sheet quotes them
# (sample/REFERENCES.md, [MO]), and two the references do not trace, marked on their rows.
ROWS = (
    ("Nvidia B200", "0.001736"),
    ("Nvidia H200", "0.001261"),
    ("Nvidia H100", "0.001097"),
    ("Nvidia A100, 80 GB", "0.000694"),
    ("Nvidia L40S", "0.000542"),
    ("Nvidia L4", "0.000222"),
    ("Nvidia T4", "0.000164"),
)
ESTIMATES = {
    "Nvidia B200": "synthetic: no public copy of Modal's B200 price was read; near its level",
    "Nvidia H200": "synthetic: no public copy of Modal's H200 price was read; near its level",
}


def pricing_page() -> bytes:
    """The page's GPU rows and the CPU and memory rows beside them, trimmed to their structure."""
    rows = "\n".join(
        f'        <div class="price-row"{_mark(label)}><p class="gpu-name">{label}</p>'
        f'<p class="price">${usd} / sec</p></div>'
        for label, usd in ROWS
    )
    html = f"""<!DOCTYPE html>
{HTML_SAMPLE_COMMENT}
<html lang="en"><head><meta charset="utf-8"><title>Plan Pricing | Modal</title></head>
<body>
<main>
  <section id="compute-costs">
    <h2>Compute costs</h2>
    <div class="price-group">
      <h3>GPU Tasks</h3>
      <div class="price-list">
{rows}
      </div>
    </div>
    <div class="price-group">
      <h3>CPU</h3>
      <div class="price-row"><p>Physical core</p><p>$0.0000131 / core / sec</p></div>
    </div>
  </section>
</main>
</body></html>
"""
    return html.encode("utf-8")


def _mark(label: str) -> str:
    return f' {ESTIMATE_ATTRIBUTE}="{ESTIMATES[label]}"' if label in ESTIMATES else ""


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/modal/: the pricing page; no price moves this week."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(pricing_page(), PAGE_URL, fetched_at=moment, ext="html", request={"method": "GET"})
    return writer.directory
