"""Civo's public pricing page (HTML): its NVIDIA GPU instance sizes per instance-hour, on demand
and under 6- to 36-month commitments."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chipcost.core.catalog import without_marks
from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE, estimate_of
from chipcost.extract._host_sizes import host_spec, size_gb
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import (
    PER_INSTANCE,
    parse_count,
    price_of,
    require_columns,
)
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
    read_by,
)

SOURCE_NAME = "civo"
PROVIDER = "civo"
# Civo's API (api.civo.com/v2/sizes) lists sizes without prices; this page prices them,
# server-rendered, one table per GPU under the "nvidia-gpus" section (the page's other
# sections price CPU instances, Kubernetes nodes and storage in tables of the same class).
PRICING_URL = "https://www.civo.com/pricing"
SECTION_ID = "nvidia-gpus"
EXPECTED = ("size", "on-demand", "commitment")
# Each commitment cell holds one block per term, <div id="12_months">, each with an hourly and
# a monthly price; the hourly one is read. Months -> the record's term.
TERMS = {"6": "6mo", "12": "1yr", "24": "2yr", "36": "3yr"}
TERM_BLOCK = re.compile(r"^(\d+)_months$")
# The size cell's detail line: "8 x NVIDIA H200 - 141GB HBM3e".
DETAIL = re.compile(
    r"^(?P<count>\d+)\s*x\s+(?:NVIDIA\s+)?(?P<model>.+?)(?:\s+-\s+(?P<memory>\d+)\s*GB.*)?$",
    re.IGNORECASE,
)
# A price cell shows "N/A" for a size not rented that way (B200 is rented under commitment only).
NOT_OFFERED = "n/a"
# The unit <span> after each price: "per hour", the instance's hour, is the one the page prints
# and the one read. Another ("per GPU per hour", "per minute", "per month") is refused, not
# loaded as the instance's hour (a price per GPU read so is 8 times too cheap a chip). A price
# with no unit beside it is read by its own words (price_of: "/GPU" in it is refused too).
HOURLY = "per hour"
# The page names no region: Civo's GPU prices are the same in each.
REGION = "global"


@dataclass(frozen=True)
class Row:
    """One size of a GPU table as printed: its cells' text and its hourly prices by term."""

    caption: str
    size: str
    detail: str
    ram: str
    vcpus: str
    storage: str
    hourly: dict[str, str]  # term ("none" for on demand) -> the hourly price's text
    marks: dict[str, str]
    units: dict[str, str] = field(default_factory=dict)  # term -> the unit printed beside it


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PRICING_URL, label="pricing page", ext="html")


def rows(page: Page) -> list[Row]:
    """The sizes of every GPU table in the NVIDIA GPUs section; each table's header must name
    the Size, On-demand and Commitment columns. A page holding the section twice is read
    whole: copies pricing a size alike load once, copies that disagree are both refused (the
    kit's offers_priced_once), never the first taken for the provider's word."""
    root = parse_html(html_text(page.payload))
    sections = [e for e in root.iter() if e.tag == "section" and e.attrs.get("id") == SECTION_ID]
    # a table of a section within another is read once
    tables = {id(t): t for section in sections for t in section.find_all("table")}
    found: list[Row] = []
    for table in tables.values():
        caption = table.find("caption")
        headers = [th.text().lower() for th in table.find_all("th")]
        require_columns(headers, EXPECTED, page.payload, PROVIDER)
        for line in table.find_all("tr"):
            cells = {td.attrs.get("data-title", ""): td for td in line.find_all("td")}
            if cells:
                found.append(_row(caption.text() if caption else "", cells))
    return found


def offers(row: Row, page: Page) -> list[Item]:
    """A record per term the size is priced at, per instance-hour; N/A terms are counted."""
    shown = {"caption": row.caption, "size": row.size, "detail": row.detail, **row.hourly}
    # a mark after a name ("NVIDIA® L40S") is no part of it: the size keeps its name, and its
    # history, when the page adds one
    described = DETAIL.match(without_marks(row.detail))
    if described is None:
        return [page.reject(f"size detail {row.detail!r} is not '<count> x <GPU>'", shown)]
    try:
        count = parse_count(described["count"])
    except ValueError as exc:
        return [page.reject(str(exc), shown, row.detail)]
    model, memory = described["model"].strip(), described["memory"]
    name = without_marks(f"{count}x {model} {row.size}")
    offer = page.offer(
        region=REGION,
        instance_type=name,
        chip=page.chip(model, float(memory) if memory else None),
        chip_count=float(count),
        sku=name,
        extra={"price_basis": "per instance-hour", "detail": row.detail, **estimate_of(row.marks)},
        vcpus=host_spec(row.vcpus.split()[0] if row.vcpus.split() else None),
        ram_gb=size_gb(row.ram),
        disk_gb=size_gb(row.storage.split()[0] if row.storage.split() else None),
    )
    made: list[Item] = []
    for term, text in row.hourly.items():
        model_of = "on_demand" if term == "none" else "commitment"
        # the offer of a cell saying it has no price: a copy of the size pricing it refuses both
        key = {"region": REGION, "instance_type": name, "pricing_model": model_of, "term": term}
        if text.strip().lower() == NOT_OFFERED:
            said = "on demand" if term == "none" else f"{term} commitment"
            made.append(Skip(f"{said}: not offered (N/A)", name, unpriced=key, row=shown))
            continue
        unit = " ".join(row.units.get(term, "").split())
        if unit and unit.lower() != HOURLY:
            why = (
                f"{name} {term}: price unit {unit!r} of {text!r} is not an instance-hour: not "
                "read as one"
            )
            made.append(page.reject(why, {**shown, "unit": unit}, name))
            continue
        price, why = price_of(text, f"{name} {term}", PER_INSTANCE)
        if price is None:
            # "—", "Contact us" alone: no sku, so the size's term is withdrawn as N/A's is (its
            # records carry the size's name as their sku, which a reject naming it keeps open)
            made.append(page.no_price(why, shown, text, name, unpriced=key))
            continue
        made.append(offer.record(pricing_model=model_of, term=term, price_per_hour=price))
    return made or [page.reject(f"{name}: no price cell", shown, name)]


def _row(caption: str, cells: dict[str, Element]) -> Row:
    size_cell = cells.get("Size")
    detail = size_cell.find("div", "product-detail") if size_cell is not None else None
    size = size_cell.text().replace(detail.text(), "").strip() if size_cell and detail else ""
    hourly: dict[str, str] = {}
    units: dict[str, str] = {}
    on_demand = cells.get("On-demand price")
    if on_demand is not None:
        hourly["none"], units["none"] = _hourly(on_demand)
    commitment = cells.get("Commitment price")
    for block in commitment.find_all("div") if commitment is not None else []:
        months = TERM_BLOCK.match(block.attrs.get("id", ""))
        if months and months[1] in TERMS:
            term = TERMS[months[1]]
            hourly[term], units[term] = _hourly(block)
    marks = size_cell.attrs if size_cell is not None else {}
    return Row(
        caption=caption,
        size=size,
        detail=detail.text() if detail else "",
        ram=_text(cells.get("RAM")),
        vcpus=_text(cells.get("vCPU")),
        storage=_text(cells.get("Storage")),
        hourly=hourly,
        marks={k: v for k, v in marks.items() if k == ESTIMATE_ATTRIBUTE},
        units=units,
    )


def _hourly(cell: Element) -> tuple[str, str]:
    """The hourly price in a cell and the unit printed beside it: ("$1.29", "per hour") of
    `$1.29<span>per hour</span>`, ("N/A", "per hour"); the unit is read, not thrown away."""
    price = next((d for d in cell.find_all("div") if d.attrs.get("data-option") == "hourly"), None)
    if price is None:
        return "", ""
    text = " ".join("".join(c for c in price.children if isinstance(c, str)).split())
    # the words of its elements as the page shows them (a <sup> footnote is no unit)
    unit = Element(price.tag, children=[c for c in price.children if isinstance(c, Element)])
    return text, unit.text()


def _text(cell: Element | None) -> str:
    return cell.text() if cell is not None else ""


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Civo public pricing page: NVIDIA GPU instance sizes per instance-hour, on demand and "
        "under 6-, 12-, 24- and 36-month commitments; one price for every region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Civo",
    checked=Checked(
        asks="the public pricing page's NVIDIA GPU section",
        against=(
            "**recorded** page (a public GPU price index's fixture), trimmed to the L40S and B200 "
            "tables"
        ),
        when="2026-08-22",
    ),
    layout=read_by("table headers", EXPECTED),
)
parse = SOURCE.parse
