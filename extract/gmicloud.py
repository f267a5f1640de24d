"""GMI Cloud's public pricing page (HTML): a card per NVIDIA GPU with its price per GPU-hour,
which the page gives as a starting price ("from $2.00")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from chipcost.core.catalog import without_marks
from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE, estimate_of
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import PER_GPU, price_of
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source

SOURCE_NAME = "gmicloud"
PROVIDER = "gmicloud"
# The English page (the bare /pricing redirects to a locale): server-rendered cards, one per
# GPU, each a heading "NVIDIA H200", a price span and a unit span. GMI Cloud's console API
# (console.gmicloud.ai) needs an account and is not read.
PRICING_URL = "https://www.gmicloud.ai/en/pricing"
# A card's heading names the vendor first; a mark after a name ("NVIDIA® H200") is no part of
# it (catalog.without_marks), so the offer keeps its name, and its history, when a page adds one.
HEADING = re.compile(r"^NVIDIA\s+", re.IGNORECASE)
# The heading is a heading element (the recorded page's <h3>, or another level), or a child
# of the card holding no price span ("<div>NVIDIA H200</div>").
HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# The unit span after the price, read as the price's period and quantity: only a GPU-hour is
# understood; another unit is refused, not priced as one.
UNITS = {"/gpu-hour": 1.0}
# "from $2.00": the page prints each GPU's starting price. The word is kept in the record.
FROM = re.compile(r"^\s*from\s+", re.IGNORECASE)
# " GPU" after some names ("NVIDIA H100 GPU", not "NVIDIA H200"): a word of the card, not the chip.
GPU_WORD = re.compile(r"\s+GPU$", re.IGNORECASE)
REGION = "global"


@dataclass(frozen=True)
class Card:
    """One GPU card as printed: its heading, price text, unit text and availability badge."""

    heading: str
    price: str
    unit: str
    badge: str
    marks: dict[str, str]


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PRICING_URL, label="pricing page", ext="html")


def rows(page: Page) -> list[Card]:
    """Every card: an element whose own heading names an NVIDIA GPU."""
    root = parse_html(html_text(page.payload))
    return [card for e in root.iter() if (card := _card(e)) is not None]


def offers(card: Card, page: Page) -> list[Item]:
    """One on-demand record per GPU card, per GPU-hour at its starting price."""
    shown = {"heading": card.heading, "price": card.price, "unit": card.unit}
    model = GPU_WORD.sub("", HEADING.sub("", without_marks(card.heading)))
    name = f"1x {model}"
    # A unit or price that cannot be read keeps the card's offer open ("Contact us": none,
    # unless another copy of the card prices it: both refused).
    offer = {"region": REGION, "instance_type": name, "pricing_model": "on_demand"}
    per = UNITS.get(card.unit.strip().lower())
    if per is None:
        why = f"{name}: price unit {card.unit!r} is not a GPU-hour"
        return [page.no_price(why, shown, card.price, offer=offer, unpriced=offer)]
    price, why = price_of(FROM.sub("", card.price), f"{name} price", PER_GPU)
    if price is None:
        listed = FROM.sub("", card.price)
        return [page.no_price(why, shown, listed, offer=offer, unpriced=offer)]
    extra = {
        "price_basis": "per GPU-hour",
        "listed": f"{card.price} {card.unit}",
        "starting_price": bool(FROM.match(card.price)),
        "availability": card.badge or None,
        **estimate_of(card.marks),
    }
    return [
        page.record(
            **offer,
            chip=page.chip(model),
            chip_count=per,
            price_per_hour=price,
            sku=card.heading,
            extra={k: v for k, v in extra.items() if v is not None},
        )
    ]


def _card(element: Element) -> Card | None:
    """The card `element` is, or None: it has one heading child naming an NVIDIA GPU (a heading
    element, or a child without a span under a card holding one) and spans after it, the price
    and the unit."""
    children = [c for c in element.children if isinstance(c, Element)]
    spans = element.find_all("span")
    headings = [
        c
        for c in children
        if HEADING.match(without_marks(c.text()))
        and (c.tag in HEADING_TAGS or (spans and not c.find("span")))
    ]
    if len(headings) != 1:
        return None
    [heading] = headings
    badge = next(
        (c.text() for c in children if c.tag == "div" and c is not heading and not c.find("span")),
        "",
    )
    return Card(
        heading=heading.text(),
        price=spans[0].text() if spans else "",
        unit=spans[1].text() if len(spans) > 1 else "",
        badge=badge,
        marks={k: v for k, v in element.attrs.items() if k == ESTIMATE_ATTRIBUTE},
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "GMI Cloud public pricing page: each NVIDIA GPU's starting price per GPU-hour, on "
        "demand; one price for every region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="GMI Cloud",
    checked=Checked(
        asks="the public pricing page (English)",
        against="**recorded** page (a public GPU price index's fixture), its card grid",
        when="2026-08-22",
    ),
    layout=(
        "HTML page: the parser reads a card per GPU (heading, price, unit); a unit other than a "
        "GPU-hour is refused, and a page with no card is refused as an empty listing"
    ),
)
parse = SOURCE.parse
