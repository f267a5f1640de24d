"""Modal's public pricing page: the per-second price of each GPU a function can run on, as a
price per GPU-hour (Modal bills GPUs by the second; chipcost stores hours)."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import json_price
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source, kept_open

SOURCE_NAME = "modal"
PROVIDER = "modal"
# Modal has no price API; its pricing page is served with the prices in the HTML (SkyPilot's
# fetch_modal.py reads the same page with one GET).
PAGE_URL = "https://modal.com/pricing"
SECONDS_PER_HOUR = 3600
# One GPU's row of the page, as its visible text: "Nvidia H100 $0.001097 / sec".
ROW = re.compile(r"(?P<label>(?:Nvidia|AMD)\s[\w ,.-]+?)\s+(?P<price>\S+)\s*/\s*sec", re.IGNORECASE)
PRICE = re.compile(r"^\$(?P<usd>\d+(?:\.\d+)?)$")
VENDOR = re.compile(r"^(?:Nvidia|AMD)\s+", re.IGNORECASE)
# "Nvidia A100, 80 GB": the memory the label states, which tells A100 40GB from 80GB.
LABEL_MEMORY = re.compile(r",\s*(?P<gb>\d+)\s*GB$", re.IGNORECASE)
# Labels that state no memory where the chip needs it: Modal's GPU guide gives the H100's as
# 80 GB (SkyPilot's fetch_modal.py, GPU_MEMORY_GIB, reads it so).
MEMORY_GB = {"nvidia h100": 80.0}
# Modal prices a GPU for a function placed anywhere; pinned to a region, every price is 1.5x to
# 1.75x (its region-selection guide). The page's price is the one recorded, region "global".
REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PAGE_URL, label="pricing page", ext="html")


def rows(page: Page) -> list[dict[str, Any]]:
    """Each GPU row of the page: its label, price text and marks (the innermost element whose
    text is one GPU and its per-second price). A GPU the page lists twice at one price is one
    row; at two prices, two, and its offer priced twice is refused (base.offers_priced_once),
    as which price Modal means cannot be told: not the first copy's."""
    found = [e for e in parse_html(html_text(page.payload)).iter() if ROW.fullmatch(e.text())]
    innermost = [e for e in found if not any(_inside(other, e) for other in found)]
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for element in innermost:
        match = ROW.fullmatch(element.text())
        assert match is not None  # every element found matched
        label, price = " ".join(match["label"].split()), match["price"]
        seen.setdefault((label, price), {"label": label, "price": price, "marks": element.attrs})
    return list(seen.values())


def offers(row: dict[str, Any], page: Page) -> list[Item]:
    """One on-demand record per GPU: the per-second price times 3,600, for one GPU; pure."""
    label, text = row["label"], row["price"]
    name = f"1x {VENDOR.sub('', label)}"
    offer = {"region": REGION, "instance_type": name, "pricing_model": "on_demand"}
    listed = PRICE.match(text)
    per_second, why = json_price(listed["usd"] if listed else text, f"{label}: price")
    if per_second is None:
        shown = {"label": label, "price": text}
        return [page.reject(f"{why} (listed {text!r} / sec)", shown, offer=kept_open(text, offer))]
    memory = LABEL_MEMORY.search(label)
    gb = float(memory["gb"]) if memory else MEMORY_GB.get(label.lower())
    model = LABEL_MEMORY.sub("", label)
    extra = {
        "listed": f"{text} / sec",
        "price_basis": "per GPU-second x 3,600 (Modal bills GPUs by the second)",
        "billed_beside": "CPU cores and memory, per second",
        **estimate_of(row["marks"]),
    }
    return [
        page.record(
            **offer,
            chip=page.chip(model, gb),
            chip_count=1.0,
            price_per_hour=round(per_second * SECONDS_PER_HOUR, 6),
            sku=label,
            extra=extra,
        )
    ]


def _inside(inner: Element, outer: Element) -> bool:
    return inner is not outer and any(e is inner for e in outer.iter())


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Modal public pricing page: serverless GPUs billed per second, stored per GPU-hour "
        "(x 3,600), on demand; CPU and memory are billed beside them"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Modal",
    checked=Checked(
        asks="the public pricing page",
        against=(
            'docs only: what SkyPilot\'s fetcher reads from the page (label, then "$... / sec"); '
            "five prices as a public cheat sheet quotes them"
        ),
        when="quotes 2026-05-07",
        rest="the page reconstructed",
    ),
    layout=(
        "HTML page: the parser reads each `<GPU> $<price> / sec` line; a page with none is refused"
        " as an empty listing"
    ),
)
parse = SOURCE.parse
