"""Crusoe's public pricing page (HTML): the per-GPU-hour prices of its GPU instances, on demand
and spot, read from the "GPU instances pricing" list by its column headings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from chipcost.core.commands import REPLAY
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._host_sizes import size_gb
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import PER_GPU, PriceError, parse_price, require_columns
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source, read_by

SOURCE_NAME = "crusoe"
PROVIDER = "crusoe"
# Crusoe's API (HMAC-signed, api.crusoecloud.com/v1alpha5) lists instance types and capacity but
# no prices; its price list is this page, served as HTML with the price lists in it (one GET,
# no script run: tests/fixtures/crusoe holds a recording of it).
PRICING_URL = "https://crusoe.ai/cloud/pricing"
# The page is a column of sections (div.pricing-dd), each titled by an h3: GPU instances, CPU
# instances, storage, serverless inference, self-serve deployments. Only the first rents GPUs
# by the hour; the self-serve list names the same GPUs at a managed product's prices.
SECTION = "pricing-dd"
SECTION_TITLE = "gpu instances pricing"
HEADING, ITEM, CELL, TAG = "pricing-heading", "pricing_gpu-item", "pricing-rich", "pricing-tag"
# A column heading (lower case) -> pricing model. Read by heading, not by position: a column
# added or moved is read right or named in a note, never priced wrongly.
COLUMNS = {"on-demand": "on_demand", "current spot": "spot"}
EXPECTED = ("GPU model", "On-demand")
# Every price of the list reads "$4.29/GPU-hr": a cell without that basis is refused, not
# read as a price per GPU-hour it may not be.
BASIS = re.compile(r"/\s*GPU-hr\b", re.IGNORECASE)
# The item's tags print the memory ("80GB") beside the board ("HGX", "SXM", "PCIe", "NVL72").
MEMORY = re.compile(r"^\s*\d+(\.\d+)?\s*(GB|GiB|TB)\s*$", re.IGNORECASE)
NO_PRICE = "a price cell with no price (Crusoe lists it on request)"


@dataclass(frozen=True)
class Row:
    """One GPU item of the list as printed: heading, memory and board tags, each price column's
    text by its heading."""

    gpu: str
    memory: str
    board: str
    prices: dict[str, str]  # column heading (lower case) -> cell text

    @property
    def name(self) -> str:
        """'1x NVIDIA A100 80GB SXM': the heading and its tags, as the two A100 items differ."""
        return " ".join(part for part in ("1x", self.gpu, self.memory, self.board) if part)


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PRICING_URL, label="pricing page", ext="html")


def rows(page: Page) -> list[Row]:
    """The GPU items of the "GPU instances pricing" section; its headings must name the GPU
    model and On-demand columns, and its items must hold price cells. A page with the section
    twice (a hidden copy, a second one) gives the items of each, read under its own headings:
    an item both price alike is one row, one they price otherwise is two, and the offer priced
    twice is refused (base.offers_priced_once), as no one can tell which the provider means."""
    found: dict[tuple[object, ...], Row] = {}  # an item as printed -> its row, once
    unread: dict[str, None] = {}
    items = 0
    for section in _gpu_sections(parse_html(html_text(page.payload)), page.payload):
        header = [cell.text().lower() for cell in section.find_all("div", HEADING)]
        require_columns(header, EXPECTED, page.payload, PROVIDER)
        unread |= dict.fromkeys(name for name in header[1:] if name not in COLUMNS)
        listed = section.find_all("div", ITEM)
        items += len(listed)
        for row in (_row(item, header[1:]) for item in listed):
            found.setdefault((row.gpu, row.memory, row.board, *sorted(row.prices.items())), row)
    if unread:
        page.note(f"price column(s) not read: {', '.join(unread)} (add them to COLUMNS)")
    if items and not any(row.prices for row in found.values()):
        raise _layout_changed(
            page.payload, f"none of its {items} GPU items has a price cell (div.{CELL})"
        )
    return list(found.values())


def offers(row: Row, page: Page) -> list[Item]:
    """One record per priced column of a GPU, per GPU-hour; a cell that reads "Contact sales"
    is counted in the notes (no price is listed), one that is no price per GPU-hour refused."""
    shown: dict[str, Any] = {"gpu": row.gpu, "memory": row.memory, "board": row.board,
                             "prices": row.prices}  # fmt: skip
    if not row.gpu:
        return [page.reject("a GPU item with no model heading", shown)]
    offer = page.offer(
        region="global",
        instance_type=row.name,
        chip=page.chip(f"{row.gpu} {row.board}".strip(), size_gb(row.memory)),
        chip_count=1.0,
        sku=row.name,
        extra={"price_basis": "per GPU-hour", "gpu_memory": row.memory or None},
    )
    made: list[Item] = []
    for column, text in row.prices.items():
        what = f"{row.name} {column}"
        try:
            price = _price(text)
        except PriceError as exc:
            made.append(page.reject(f"{what}: {exc}", shown, row.name))
            continue
        if price is None:  # a copy of the item pricing it refuses both (Skip.unpriced)
            key = {"region": "global", "instance_type": row.name,
                   "pricing_model": COLUMNS[column]}  # fmt: skip
            made.append(Skip(NO_PRICE, what, unpriced=key, row=shown))
            continue
        made.append(offer.record(pricing_model=COLUMNS[column], price_per_hour=price))
    return made or [page.reject(f"{row.name}: no price cell", shown, row.name)]


def _gpu_sections(root: Element, payload: Payload) -> list[Element]:
    """The sections titled "GPU instances pricing" (one not inside another: its items are read
    with it), or a ParseError naming what the page has."""
    found: list[Element] = []
    titles = []
    for section in root.find_all("div", SECTION):
        title = section.find("h3")
        text = title.text() if title is not None else ""
        if not text.lower().startswith(SECTION_TITLE):
            titles.append(text)
        elif not any(section in outer.iter() for outer in found):
            found.append(section)
    if found:
        return found
    listed = ", ".join(f"'{t}'" for t in titles if t) or "none"
    raise _layout_changed(
        payload, f"it has no '{SECTION_TITLE}' section (div.{SECTION}; sections found: {listed})"
    )


def _row(item: Element, columns: list[str]) -> Row:
    heading = item.find("h4")
    tags = [tag.text() for tag in item.find_all("div", TAG) if tag.text()]
    memory = next((tag for tag in tags if MEMORY.match(tag)), "")
    board = " ".join(tag for tag in tags if tag != memory)
    cells = [cell.text() for cell in item.find_all("div", CELL)]
    prices = {name: text for name, text in zip(columns, cells, strict=False) if name in COLUMNS}
    return Row(heading.text() if heading is not None else "", memory, board, prices)


def _price(text: str) -> float | None:
    """USD per GPU-hour of a cell, None for "Contact sales"; PriceError for anything else."""
    price = parse_price(text, PER_GPU)
    if price is not None and not BASIS.search(text):
        raise PriceError(f"price {text!r} is not per GPU-hour (the list writes '$N/GPU-hr')")
    return price


def _layout_changed(payload: Payload, what: str) -> ParseError:
    return ParseError(
        f"{PROVIDER}: the pricing page at {payload.url} ({payload.ref or payload.name}) changed "
        f"layout: {what}; the prices loaded before are kept; report it, then re-parse the "
        f"archived page with `{REPLAY}` once the parser is fixed"
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Crusoe public pricing page (HTML): per-GPU-hour prices of its GPU instances, on "
        "demand and spot where listed"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Crusoe",
    checked=Checked(
        asks="the public pricing page",
        against=(
            "**recorded** page (getcomputable/gpu-index's fixture, a contiguous excerpt of the "
            'live page): six on-demand prices, every spot cell "Contact sales"'
        ),
        when="2026-08-22",
    ),
    layout=read_by("table headers", EXPECTED),
)
parse = SOURCE.parse
