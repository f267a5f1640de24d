"""Crusoe's public pricing page (HTML): per-GPU-hour prices of its GPU instances, on demand,
spot and under commitments, read by the table's column headers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _http
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import price_of, require_columns, size_gb
from chipcost.extract.base import FetchContext, Item, Page, Source

SOURCE_NAME = "crusoe"
PROVIDER = "crusoe"
# Crusoe's API (HMAC-signed, api.crusoecloud.com/v1alpha5) lists instance types and capacity but
# no prices; its price list is this page, served as HTML with the GPU table in it (a scraper of
# gpuhunt's lineage reads it with one GET and an HTML parser, no script run).
PRICING_URL = "https://crusoe.ai/cloud/pricing"
# The GPU price table's section; its header row names the columns.
SECTION_ID = "gpu-pricing"
# A column header (lower case, words only) -> (pricing model, term). Read by header, not by
# position: a column added or moved is read right or named in a note, never priced wrongly.
COLUMNS = {
    "on-demand": ("on_demand", "none"),
    "on demand": ("on_demand", "none"),
    "spot": ("spot", "none"),
    "6-month": ("commitment", "6mo"),
    "6 months": ("commitment", "6mo"),
    "1-year": ("commitment", "1yr"),
    "1 year": ("commitment", "1yr"),
    "3-year": ("commitment", "3yr"),
    "3 years": ("commitment", "3yr"),
}
EXPECTED = ("GPU", "On-Demand")
# The GPU cell prints the model and its memory apart ("H100" and "80GB").
MEMORY = re.compile(r"^\s*\d+(\.\d+)?\s*(GB|GiB|TB)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Row:
    """One GPU row of the table as printed: the GPU cell's words and each price column's text."""

    gpu: str
    memory: str
    prices: dict[str, str]  # column header (lower case) -> cell text


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _http.one_page(ctx, PROVIDER, PRICING_URL, label="pricing page", ext="html")


def rows(page: Page) -> list[Row]:
    """The GPU rows of the price table; its header must name the GPU and On-Demand columns."""
    root = parse_html(page.payload.text())
    section = next((e for e in root.iter() if e.attrs.get("id") == SECTION_ID), None)
    lines = section.find_all("tr") if section is not None else []
    if not lines:
        return []
    header = [_words(cell) for cell in lines[0].children if _is_cell(cell)]
    require_columns(header, EXPECTED, page.payload, PROVIDER)
    unread = [name for name in header[1:] if name not in COLUMNS]
    if unread:
        page.note(f"price column(s) not read: {', '.join(unread)} (add them to COLUMNS)")
    found = []
    for line in lines[1:]:
        cells = [cell for cell in line.children if _is_cell(cell)]
        if not cells:
            continue
        gpu, memory = _gpu_cell(cells[0])
        texts = {name: cell.text() for name, cell in zip(header[1:], cells[1:], strict=False)}
        found.append(Row(gpu, memory, {k: v for k, v in texts.items() if k in COLUMNS}))
    return found


def offers(row: Row, page: Page) -> list[Item]:
    """One record per price column of a GPU, per GPU-hour; a reject with the reason for each
    cell that is no price ("Contact Us")."""
    shown: dict[str, Any] = {"gpu": row.gpu, "memory": row.memory, "prices": row.prices}
    if not row.gpu:
        return [page.reject("a table row with no GPU name", shown)]
    memory = size_gb(row.memory)
    name = f"1x {row.gpu} {row.memory}".strip()
    offer = page.offer(
        region="global",
        instance_type=name,
        chip=page.chip(row.gpu, memory),
        chip_count=1.0,
        sku=name,
        extra={"price_basis": "per GPU-hour", "gpu_memory": row.memory or None},
    )
    made: list[Item] = []
    for column, text in row.prices.items():
        model, term = COLUMNS[column]
        price, why = price_of(text, f"{name} {column}")
        if price is None:
            made.append(page.reject(why, shown, name))
            continue
        made.append(offer.record(pricing_model=model, term=term, price_per_hour=price))
    return made or [page.reject(f"{name}: no price column", shown, name)]


def _is_cell(node: object) -> bool:
    return isinstance(node, Element) and node.tag in ("td", "th")


def _words(cell: Element) -> str:
    """A header cell's text, lower case ("On-Demand" -> "on-demand")."""
    return cell.text().lower()


def _gpu_cell(cell: Element) -> tuple[str, str]:
    """(GPU name, memory) from the first cell: the memory is the part that reads as a size."""
    parts = [e.text() for e in cell.find_all("div") if e.text() and not e.find("div")]
    memory = next((p for p in parts if MEMORY.match(p)), "")
    name = " ".join(p for p in parts if p != memory) or cell.text().replace(memory, "").strip()
    return name, memory


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Crusoe public pricing page (HTML): per-GPU-hour prices of its GPU instances, on "
        "demand, spot and commitments where listed"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
)
parse = SOURCE.parse
