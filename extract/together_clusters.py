"""Together AI's GPU clusters, from its public pricing page: the on-demand price per GPU-hour of
each GPU node type its Instant Clusters rent, per node of 8 GPUs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from chipcost.core.catalog import without_marks
from chipcost.core.commands import REPLAY
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import PER_GPU, price_of, require_columns
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Source,
    read_by,
)

SOURCE_NAME = "together-clusters"
PROVIDER = "together"
# Together's clusters API creates and lists clusters but prices none; the prices are on the
# pricing page ("See our pricing page for current rates", its GPU clusters docs), served in
# the HTML (a public scraper reads its `table tbody tr` rows with one GET).
PAGE_URL = "https://www.together.ai/pricing"
# The section of the page that prices the clusters, by its heading; the page's other sections
# price models per token or dedicated inference endpoints and are not read.
CLUSTERS_HEADING = "gpu clusters"
# A GPU cluster row names the node type ("NVIDIA HGX H100") under the Hardware header and its
# on-demand price per GPU-hour under the On-demand one; the reserved terms' columns (7-30 days
# and on) are not read. A mark after the vendor ("NVIDIA®") is no part of the name
# (catalog.without_marks): the node type is named as without it, so its history stays whole.
GPU_ROW = re.compile(r"^(?:NVIDIA|AMD)(?:®|™|\((?:R|TM)\))*\s", re.IGNORECASE)
# The columns read, by their headers: by name, not position, so a column moved is read where it
# is and one missing (or named twice) fails the source naming it before any price is read. A
# header over several columns heads each ("Reserved" over "7-30 days" ... "181+ days").
COLUMNS = {
    "Hardware": re.compile(r"\bhardware\b", re.IGNORECASE),
    "On-demand": re.compile(r"\bon[-\s]?demand\b", re.IGNORECASE),
}
# A span past the widest table a browser lays out (its colspan limit is 1,000) is cut here:
# the pages' tables have six columns, and a cell's span must not cost a row thousands.
MOST_COLUMNS = 64
# An HGX node has 8 GPUs, and the clusters API rents GPUs in multiples of 8 ("num_gpus ...
# must be multiple of 8"): a record prices one such node.
GPUS_PER_NODE = 8
# The page's cluster prices are the same in every region it rents in; it names none.
REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PAGE_URL, label="pricing page", ext="html")


def rows(page: Page) -> list[dict[str, Any]]:
    """Each GPU node type's row of the GPU Clusters tables the page shows: its node type and
    on-demand price by their columns' headers, its cells and marks. A table with GPU rows must
    head a Hardware and an On-demand column, once each, or the source fails naming it."""
    found = []
    for table in _cluster_tables(parse_html(html_text(page.payload))):
        head, body = _header_rows(table)
        lines = _grid(body)
        if not any(GPU_ROW.match(cell.text()) for line in lines for cell in line if cell):
            continue  # no GPU row: nothing of it is read, so none of its columns is needed
        columns = _columns(_grid(head), page.payload)
        name_at, price_at = (columns[name] for name in COLUMNS)
        for row, line in zip(body, lines, strict=True):
            name, price = (_text(line, at) for at in (name_at, price_at))
            if name is not None and GPU_ROW.match(name):
                cells = [cell.text() for cell in _cells(row)]
                found.append({"cells": cells, "name": name, "price": price, "marks": row.attrs})
    return found


def _header_rows(table: Element) -> tuple[list[Element], list[Element]]:
    """The table's header rows (its head's, else its leading rows of header cells alone) and
    its other rows."""
    rows = table.find_all("tr")
    head = table.find("thead")
    if head is not None:
        inside = set(head.find_all("tr"))
        return [r for r in rows if r in inside], [r for r in rows if r not in inside]
    count = 0
    while count < len(rows) and _is_header(rows[count]):
        count += 1
    return rows[:count], rows[count:]


def _is_header(row: Element) -> bool:
    cells = _cells(row)
    return bool(cells) and all(cell.tag == "th" for cell in cells)


def _cells(row: Element) -> list[Element]:
    return [c for c in row.children if isinstance(c, Element) and c.tag in ("td", "th")]


def _grid(rows: list[Element]) -> list[list[Element | None]]:
    """The cells of `rows` by column, laid out as a browser lays them: a cell spanning rows or
    columns (rowspan, colspan) is in each place it spans; a place no cell takes is None."""
    grid: list[list[Element | None]] = []
    below: dict[int, tuple[Element, int]] = {}  # column -> the cell above and rows it still takes
    for row in rows:
        line: dict[int, Element] = {at: cell for at, (cell, _) in below.items()}
        below = {at: (cell, left - 1) for at, (cell, left) in below.items() if left > 1}
        at = 0
        for cell in _cells(row):
            while at in line:
                at += 1
            across = min(_span(cell, "colspan"), MOST_COLUMNS - at)
            down = _span(cell, "rowspan")
            for column in range(at, at + across):
                line[column] = cell
                if down > 1:
                    below[column] = (cell, down - 1)
            at += max(across, 1)
            if at >= MOST_COLUMNS:
                break
        grid.append([line.get(column) for column in range(max(line, default=-1) + 1)])
    return grid


def _span(cell: Element, attribute: str) -> int:
    """A cell's rowspan or colspan: 1 where it is missing or no whole number."""
    text = cell.attrs.get(attribute, "").strip()
    return max(1, min(int(text), 65_534)) if text.isdigit() else 1


def _columns(head: list[list[Element | None]], payload: Payload) -> dict[str, int]:
    """The column of each of COLUMNS, by its header: the texts of the header cells over it, top
    to bottom ("ON-Demand Pay as you go"); a ParseError where one is missing or named twice."""
    headers = []
    for at in range(max(map(len, head), default=0)):
        over = [line[at] for line in head if at < len(line) and line[at] is not None]
        unique = [cell for n, cell in enumerate(over) if cell not in over[:n]]  # a rowspan's once
        headers.append(" ".join(cell.text() for cell in unique if cell))
    found = {name: [at for at, text in enumerate(headers) if pattern.search(text)]
             for name, pattern in COLUMNS.items()}  # fmt: skip
    named = [name for name, places in found.items() if places]
    require_columns(named + headers, COLUMNS, payload, PROVIDER)
    twice = "; ".join(
        f"{name} in {', '.join(repr(headers[at]) for at in places)}"
        for name, places in found.items()
        if len(places) > 1
    )
    if twice:
        raise ParseError(
            f"{PROVIDER}: the price table at {payload.url} "
            f"({payload.ref or payload.name or 'unarchived'}) heads more than one column alike "
            f"({twice}): which one it means cannot be told; the layout changed; report it, then "
            f"re-parse the archived payload with `{REPLAY}` once fixed"
        )
    return {name: places[0] for name, places in found.items()}


def _text(line: list[Element | None], at: int) -> str | None:
    cell = line[at] if at < len(line) else None
    return cell.text() if cell is not None else None


def _cluster_tables(tree: Element) -> list[Element]:
    """The tables after the "GPU Clusters" heading, up to the next heading: the Dedicated
    Inference tables before it price the same node types otherwise ($5.49 an H100 GPU-hour
    against $3.99 on 2026-08-22)."""
    found: list[Element] = []
    section = ""
    for element in _shown(tree):
        if element.tag == "h2":
            section = element.text()
        elif element.tag == "table" and section.lower() == CLUSTERS_HEADING:
            found.append(element)
    return found


def _shown(element: Element) -> Iterator[Element]:
    """`element` and the elements below it, in document order, but those in a block the page
    hides (its class `hide`: the live page keeps an older on-demand table there)."""
    yield element
    for child in element.children:
        if isinstance(child, Element) and "hide" not in child.classes:
            yield from _shown(child)


def offers(row: dict[str, Any], page: Page) -> list[Item]:
    """One on-demand record per GPU node type, per 8-GPU node-hour; pure."""
    cells, listed = row["cells"], row["price"]
    name = re.sub(r"\bHGX\s+HGX\b", "HGX", without_marks(row["name"]))  # page wrote "HGX HGX"
    if listed is None:
        return [page.reject(f"{name}: the row has no price cell", cells, name)]
    model = re.sub(r"^(?:NVIDIA|AMD)\s+", "", name, flags=re.IGNORECASE)
    per_gpu, why = price_of(listed, f"{name}: price", PER_GPU)
    if per_gpu is None:
        # "—" (the page's word for a node type not rented on demand): a copy of the row
        # pricing its node refuses both; alone, no sku, so the node is withdrawn (its records
        # carry the node type's name as their sku, which a reject naming it keeps open)
        key = {"region": REGION, "instance_type": f"{GPUS_PER_NODE}x {model}",
               "pricing_model": "on_demand"}  # fmt: skip
        return [page.no_price(why, cells, listed, name, unpriced=key)]
    extra = {"listed": f"{listed} per GPU-hour", "price_basis": "per GPU-hour x 8 (a node)",
             **estimate_of(row["marks"])}  # fmt: skip
    return [
        page.record(
            region=REGION,
            instance_type=f"{GPUS_PER_NODE}x {model}",
            chip=page.chip(model.split(" - ")[0]),  # "H100 SXM - Inference": its variant
            chip_count=float(GPUS_PER_NODE),
            pricing_model="on_demand",
            price_per_hour=round(per_gpu * GPUS_PER_NODE, 6),
            sku=name,
            extra=extra,
        )
    ]


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Together AI public pricing page: Instant GPU Clusters' on-demand price per GPU-hour, "
        "recorded per 8-GPU node"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Together AI",
    checked=Checked(
        asks="the public pricing page",
        against=(
            "**recorded** page (an excerpt: Dedicated Inference, then GPU Clusters), recorded "
            "2026-08-22 in getcomputable/gpu-index at commit "
            "055204adf5e64e62595f97c49b7eb65400149871"
        ),
        when="2026-08-22",
        rest="the failure pages reconstructed",
    ),
    layout=read_by("table headers", tuple(COLUMNS)),
)
parse = SOURCE.parse
