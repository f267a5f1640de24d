"""Sample runs of nebius: the prices page's GPU highlight table, synthetic prices."""

from __future__ import annotations

from datetime import datetime
from html import escape
from pathlib import Path

from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE
from chipcost.extract.nebius import PRICING_URL, SOURCE_NAME
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, factor, fresh_writer, money

# Per GPU-hour: item, vCPUs, RAM, preemptible, on-demand (None = not listed).
INSTANCES = (
    ("NVIDIA HGX B300", "24", "346", 4.30, 7.85),
    ("NVIDIA HGX B200", "20", "224", 2.60, 5.50),
    ("NVIDIA HGX H200", "16", "200", 1.45, 3.50),
    ("NVIDIA HGX H100", "16", "200", 1.25, 2.95),
    ("NVIDIA L40S GPU with AMD", "16", "96", None, 1.82),
)
# ("<item> on_demand", first day) -> price factor from that day on.
MOVES = {("NVIDIA HGX H200 on_demand", 4): 0.943}  # $3.50 -> $3.30
# Every row marked an estimate in the data (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: no public copy of Nebius's prices page was read here; near its level"
HEADERS = ("Item", "vCPUs", "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour")


def _row(values: tuple[str, ...], role: str, mark: str = "") -> str:
    inner = "".join(
        f'<div class="pc-highlight-table-block__cell" role="{role}">{escape(v)}</div>'
        for v in values
    )
    marked = f' {ESTIMATE_ATTRIBUTE}="{escape(mark)}"' if mark else ""
    return f'<div class="pc-highlight-table-block__row" role="row"{marked}>{inner}</div>'


def prices_page(rows: list[tuple[str, ...]]) -> bytes:
    body = "\n".join(_row(row, "cell", ESTIMATE) for row in rows)
    return (
        f'<!DOCTYPE html>{HTML_SAMPLE_COMMENT}<html lang="en"><head><meta charSet="utf-8"/>'
        '<title>Nebius AI Cloud prices</title></head><body><div id="__next"><main '
        'class="page-constructor"><div class="pc-block-base pc-highlight-table-block" '
        'id="gpu-instances"><div class="pc-highlight-table-block__title"><h2 '
        'class="pc-title-item"><span class="pc-title-item__text">NVIDIA GPU Instances</span>'
        '</h2></div><div class="pc-highlight-table-block__table" role="table">'
        '<div class="pc-highlight-table-block__head" role="rowgroup">'
        f"{_row(HEADERS, 'columnheader')}</div>"
        f'<div class="pc-highlight-table-block__body" role="rowgroup">\n{body}\n</div></div>'
        "</div></main></div></body></html>"
    ).encode()


def day_page(day: int) -> bytes:
    rows = []
    for item, vcpus, ram, preemptible, on_demand in INSTANCES:
        price = on_demand * factor(MOVES, f"{item} on_demand", day)
        rows.append((item, vcpus, ram, money(preemptible) if preemptible else "—", money(price)))
    return prices_page(rows)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/nebius/: the prices page, archived the way fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    request = {"method": "GET"}
    writer.write(day_page(day), PRICING_URL, fetched_at=moment, ext="html", request=request)
    return writer.directory
