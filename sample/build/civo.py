"""Sample runs of civo: the pricing page's NVIDIA GPU section in its recorded markup, at the
recorded prices (tests/fixtures/civo/ORIGIN.md; sample/REFERENCES.md), not fetched from Civo."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract.civo import PRICING_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, fresh_writer, money

# Table caption, then its sizes: size, detail, RAM, vCPUs, storage, and the hourly prices on
# demand and for 6, 12, 24 and 36 months (None: the page shows N/A), as recorded (2026-08-22).
TABLES = (
    ("NVIDIA L40S 48GB GPU pricing",
     (("Small", "1 x NVIDIA L40S - 48GB", "96 GB", 12, "200GB", (1.29, 1.19, 1.09, 0.99, 0.89)),
      ("Extra Large", "8 x NVIDIA L40S - 48GB", "768 GB", 96, "1600GB",
       (10.32, 9.52, 8.72, 7.92, 7.12)))),
    ("NVIDIA A100 40GB GPU pricing",
     (("Small", "1 x NVIDIA A100 - 40GB", "56 GB", 8, "200GB", (1.09, 0.99, 0.89, 0.79, 0.69)),)),
    ("NVIDIA H200 SXM GPU pricing",
     (("Extra Large", "8 x NVIDIA H200 - 141GB HBM3e", "1536 GB", 176, "3200GB",
       (27.92, 26.32, 25.52, 24.72, 23.92)),)),
    ("NVIDIA B200 GPU pricing",
     (("Extra Large", "8 x NVIDIA B200 - 180GB", "2.5TB", 220, "7000GB",
       (None, None, 35.92, 31.92, 30.32)),)),
)  # fmt: skip
MONTHS = (6, 12, 24, 36)
HIDDEN = ' class="hidden"'
HEADERS = ("Size", "RAM", "vCPU", "Storage", "Data Transfer", "On-demand", "Commitment")


def _price(price: float | None) -> str:
    hourly = "N/A" if price is None else money(price)
    monthly = "N/A" if price is None else money(price * 730)
    return (
        f'<div id="price-value-hourly" data-option="hourly" class="price-value">{hourly}'
        f"<span>per hour</span></div>\n"
        f'<div id="price-value-monthly" data-option="monthly" class="price-value hidden">'
        f"{monthly}<span>per month</span></div>\n"
    )


def _row(size: str, detail: str, ram: str, vcpus: int, disk: str, prices: tuple) -> str:
    # the 36-month term is the one shown; the others are in the page, hidden
    terms = "".join(
        f'<div id="{months}_months"{"" if months == 36 else HIDDEN}>\n{_price(price)}</div>\n'
        for months, price in zip(MONTHS, prices[1:], strict=True)
    )
    return (
        f'<tr>\n<td data-title="Size">\n{size}\n<div class="product-detail">{detail}</div>\n</td>\n'
        f'<td data-title="RAM">{ram}</td>\n<td data-title="vCPU">{vcpus} </td>\n'
        f'<td data-title="Storage">{disk} <span>NVMe</span></td>\n'
        f'<td data-title="Data Transfer">FREE</td>\n'
        f'<td data-title="On-demand price" class="pricing-data on-demand-pricing">\n'
        f"{_price(prices[0])}</td>\n"
        f'<td data-title="Commitment price" class="pricing-data commitment-pricing">\n'
        f"{terms}</td>\n</tr>\n"
    )


def page() -> str:
    head = "".join(f"<th>{header}</th>" for header in HEADERS)
    tables = "".join(
        f'<table class="pricing-table">\n<caption>{caption}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n"
        + "".join(_row(*size) for size in sizes)
        + "</tbody>\n</table>\n"
        for caption, sizes in TABLES
    )
    return (
        "<!DOCTYPE html>\n<html><head><title>Pricing | Civo</title></head><body>\n"
        f'{HTML_SAMPLE_COMMENT}\n<section class="pricing-product" id="nvidia-gpus">\n'
        f'<div id="nvidia-gpus">\n<h4>NVIDIA GPUs</h4>\n{tables}</div>\n</section>\n'
        "</body></html>\n"
    )


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/civo/: the pricing page, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(page().encode("utf-8"), PRICING_URL, fetched_at=moment, ext="html",
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
