"""Modal's public pricing page: the per-second price of each GPU a function can run on, as a
price per GPU-hour (Modal bills GPUs by the second; chipcost stores hours)."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.catalog import without_marks
from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import NOT_A_PRICE, json_price
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source

SOURCE_NAME = "modal"
PROVIDER = "modal"
# Modal has no price API; its pricing page is served with the prices in the HTML (SkyPilot's
# fetch_modal.py reads the same page with one GET).
PAGE_URL = "https://modal.com/pricing"
SECONDS_PER_HOUR = 3600
# The second the page prices GPUs by, as it may write it: "/ sec", "per second", "/GPU/sec".
PER_SECOND = r"(?:/|per)\s*(?:GPU\s*(?:/|per)\s*)?sec(?:ond)?"
# One GPU's row of the page, as its visible text (marks such as "®" left out): "Nvidia H100
# $0.001097 / sec". The price is a dollar amount ("$ 0.001097" where the page puts a no-break
# space after the sign) or a sign standing for none ("—"), per second: a price per another
# unit is not converted.
LABEL = r"(?:Nvidia|AMD|Intel)\s[\w ,.-]+?"
ROW = re.compile(
    rf"(?P<label>{LABEL})\s+(?P<price>\$\s*[^\s/]+|[^\w\s/$][^\s/]*)"
    rf"\s*(?P<unit>{PER_SECOND})",
    re.IGNORECASE,
)
# A GPU's row that says it lists no price, with no price sign or unit: "Nvidia H100 Contact
# us", "Nvidia H100 —" (the words every price cell is read by, extract/_price_cell.py). It is a
# reject saying so, as an unpriced cell of any source is, never a line skipped unsaid.
NO_PRICE = "|".join(
    re.escape(words) for words in sorted(NOT_A_PRICE, key=len, reverse=True) if words
)
UNPRICED = re.compile(rf"(?P<label>{LABEL})\s+(?P<price>{NO_PRICE}|[-–—]+)\.?", re.IGNORECASE)
# A line of the GPU price list: a vendor's name, then a price or its unit (or words saying it
# has none, UNPRICED). One that is not a ROW is a reject naming it, not skipped: its GPU would
# be withdrawn on a run that said nothing.
LINE = re.compile(r"^(?:Nvidia|AMD|Intel)\s.*(?:\$|/|\bper\b)", re.IGNORECASE)
# A dollar amount and the words after it, as a line that is no ROW shows them.
PRICED = re.compile(r"\$\s*[^\s/]+\s*(?P<unit>.*)$")
PRICE = re.compile(r"^\$\s*(?P<usd>\d+(?:\.\d+)?)$")
VENDOR = re.compile(r"^(?:Nvidia|AMD|Intel)\s+", re.IGNORECASE)
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
    """Each GPU line of the page: its label, price text, unit and marks (the innermost element
    whose text is one GPU and its price). A GPU the page lists twice at one price is one row;
    at two prices, two, and its offer priced twice is refused (base.offers_priced_once), as
    which price Modal means cannot be told: not the first copy's. A line of a list holding GPU
    rows that names a vendor but is no row ("$3.95 / hr", "Nvidia H200 (141 GB)", "Nvidia H100
    ask us") is a row saying why it is not read, which offers() makes a reject naming it; one
    saying it lists no price ("Nvidia H100 Contact us", "Nvidia H100 —") a row of that price,
    which offers() refuses as no price listed."""
    root = parse_html(html_text(page.payload))
    parent = {id(c): e for e in root.iter() for c in e.children if isinstance(c, Element)}
    found = [
        (e, text)
        for e in root.iter()
        if LINE.match(text := without_marks(e.text())) or UNPRICED.fullmatch(text)
    ]
    innermost = [(e, t) for e, t in found if not any(_inside(o, e) for o, _ in found)]
    # The lists of GPU prices: each element holding a row the page's pattern reads.
    lists = {id(parent.get(id(e))) for e, text in innermost if ROW.fullmatch(text)}
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for element, text in innermost:
        match = ROW.fullmatch(text) or (
            UNPRICED.fullmatch(text) if _within(element, lists, parent) else None
        )
        if match is not None:
            label, price = " ".join(match["label"].split()), match["price"]
            unit = " ".join((match.groupdict().get("unit") or "").split())
            row = {"label": label, "price": price, "unit": unit, "marks": element.attrs}
            seen.setdefault((label, price), row)
        elif _within(element, lists, parent):
            seen.setdefault(("", text), {"line": text, **_unread(text)})
    # A line of a list naming a GPU with neither a price nor words saying it has none ("Nvidia
    # H100 ask us"): said too, not skipped.
    read = {id(e) for e, _ in found}
    for line in (c for e in root.iter() if id(e) in lists for c in e.children):
        text = without_marks(line.text()) if isinstance(line, Element) else ""
        if VENDOR.match(text) and not any(id(e) in read for e in line.iter()):
            seen.setdefault(("", text), {"line": text, **_unread(text)})
    return list(seen.values())


def _within(element: Element, lists: set[int], parent: dict[int, Element]) -> bool:
    """Whether `element` is inside one of the `lists` (by id)."""
    at = parent.get(id(element))
    while at is not None:
        if id(at) in lists:
            return True
        at = parent.get(id(at))
    return False


def _unread(line: str) -> dict[str, str]:
    """Why a GPU line that is no ROW is not read (its unit, its name or its price), and its
    label where that is read, whose offer the reject keeps open."""
    priced = PRICED.search(line)
    if priced is None:
        return {"why": "no dollar price is read in it"}
    name = line[: priced.start()].strip()
    unit = " ".join(priced["unit"].split())
    if not re.fullmatch(PER_SECOND, unit, re.IGNORECASE):
        why = f"unit {unit!r} is not per second, as the page prices GPUs: not read, nor converted"
        return {"why": why, **({"label": name} if re.fullmatch(LABEL, name, re.I) else {})}
    return {"why": f"the GPU's name {name!r} is not read (a sign in it no GPU name here has)"}


def offers(row: dict[str, Any], page: Page) -> list[Item]:
    """One on-demand record per GPU: the per-second price times 3,600, for one GPU; a line not
    read, a reject naming it and why; pure."""
    label = row.get("label")
    name = f"1x {VENDOR.sub('', label)}" if label else None
    offer = {"region": REGION, "instance_type": name, "pricing_model": "on_demand"}
    if "why" in row:  # a line not read: its offer, where its name is read, kept open
        why = f"GPU line {row['line']!r}: {row['why']}"
        return [page.reject(why, {"line": row["line"]}, offer=offer if name else None)]
    text = row["price"]
    listed = PRICE.match(text)
    per_second, why = json_price(listed["usd"] if listed else text, f"{label}: price")
    if per_second is None:
        shown = {"label": label, "price": text}
        said = " ".join(f"listed {text!r} {row['unit']}".split())
        # "—" withdraws the GPU, unless another copy of its line prices it: both refused
        return [page.no_price(f"{why} ({said})", shown, text, offer=offer, unpriced=offer)]
    memory = LABEL_MEMORY.search(label)
    gb = float(memory["gb"]) if memory else MEMORY_GB.get(label.lower())
    model = LABEL_MEMORY.sub("", label)
    extra = {
        "listed": f"{text} {row['unit']}",
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
