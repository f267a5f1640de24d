"""Together AI's GPU clusters, from its public pricing page: the on-demand price per GPU-hour of
each GPU node type its Instant Clusters rent, per node of 8 GPUs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import PER_GPU, price_of
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source

SOURCE_NAME = "together-clusters"
PROVIDER = "together"
# Together's clusters API creates and lists clusters but prices none; the prices are on the
# pricing page ("See our pricing page for current rates", its GPU clusters docs), served in
# the HTML (a public scraper reads its `table tbody tr` rows with one GET).
PAGE_URL = "https://www.together.ai/pricing"
# The section of the page that prices the clusters, by its heading; the page's other sections
# price models per token or dedicated inference endpoints and are not read.
CLUSTERS_HEADING = "gpu clusters"
# A GPU cluster row names the node type ("NVIDIA HGX H100"); the first cell after it is the
# on-demand price per GPU-hour, the next ones reserved terms (not read).
GPU_ROW = re.compile(r"^(?:NVIDIA|AMD)\s", re.IGNORECASE)
# An HGX node has 8 GPUs, and the clusters API rents GPUs in multiples of 8 ("num_gpus ...
# must be multiple of 8"): a record prices one such node.
GPUS_PER_NODE = 8
# The page's cluster prices are the same in every region it rents in; it names none.
REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PAGE_URL, label="pricing page", ext="html")


def rows(page: Page) -> list[dict[str, Any]]:
    """Each GPU node type's row of the GPU Clusters tables the page shows: its cells and marks."""
    found = []
    for table in _cluster_tables(parse_html(html_text(page.payload))):
        for row in table.find_all("tr"):
            cells = [" ".join(td.text().split()) for td in row.find_all("td")]
            if cells and GPU_ROW.match(cells[0]):
                found.append({"cells": cells, "marks": row.attrs})
    return found


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
    cells = row["cells"]
    name = re.sub(r"\bHGX\s+HGX\b", "HGX", cells[0])  # the page has written "HGX HGX"
    if len(cells) < 2:
        return [page.reject(f"{name}: the row has no price cell", cells, name)]
    per_gpu, why = price_of(cells[1], f"{name}: price", PER_GPU)
    if per_gpu is None:
        return [page.reject(why, cells, name)]
    model = re.sub(r"^(?:NVIDIA|AMD)\s+", "", name, flags=re.IGNORECASE)
    extra = {"listed": f"{cells[1]} per GPU-hour", "price_basis": "per GPU-hour x 8 (a node)",
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
    layout=(
        "HTML page: the parser reads the rows of the GPU table (rows opening with NVIDIA or AMD); "
        "a page with none is refused as an empty listing"
    ),
)
parse = SOURCE.parse
