"""Sample runs of gmicloud: the pricing page's GPU cards in their recorded markup, at the
recorded prices (tests/fixtures/gmicloud/ORIGIN.md; sample/REFERENCES.md), not fetched from
GMI Cloud."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from chipcost.extract.gmicloud import PRICING_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, fresh_writer

# Badge, heading, price text, as recorded (2026-08-22); every card's unit is "/GPU-hour".
CARDS = (
    ("AVAILABLE NOW", "NVIDIA GB200", "from $8.00"),
    ("AVAILABLE NOW", "NVIDIA GB300", "Pre order"),
    ("AVAILABLE NOW", "NVIDIA H100 GPU", "from $2.00"),
    ("AVAILABLE NOW", "NVIDIA H200", "from $2.60"),
    ("Limited Availability", "NVIDIA B200 GPU", "from $4.00"),
)
CARD = (
    '<div class="border-border-dark relative flex flex-1 flex-col border bg-white">'
    '<div class="absolute -right-px -top-px bg-black px-3 py-2 font-mono">{badge}</div>'
    '<h3 class="p-6 pb-4 text-base font-medium">{heading}</h3>'
    '<div class="flex items-end gap-2 px-6 pb-6"><span class="px-0.5 font-mono">{price}</span>'
    '<span class="text-section-gray font-mono">/GPU-hour</span></div></div>'
)


def page() -> str:
    cards = "".join(CARD.format(badge=b, heading=h, price=p) for b, h, p in CARDS)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>'
        "<title>GPU Cloud Pricing — GMI Cloud</title></head><body>\n"
        f"{HTML_SAMPLE_COMMENT}\n<h2>Production-Ready GPUs Today</h2>"
        f'<div class="flex flex-col gap-px">{cards}</div>\n</body></html>\n'
    )


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/gmicloud/: the pricing page, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(page().encode("utf-8"), PRICING_URL, fetched_at=moment, ext="html",
                 request={"method": "GET"})  # fmt: skip
    return writer.directory
