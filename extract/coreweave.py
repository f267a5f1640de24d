"""CoreWeave's public pricing page (HTML): per-instance GPU prices, on-demand and spot."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chipcost.core.catalog import without_marks
from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._host_sizes import host_spec, size_gb
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import (
    PER_INSTANCE,
    parse_count,
    price_of,
    require_columns,
    slug,
)
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Source,
    read_by,
)

SOURCE_NAME = "coreweave"
PROVIDER = "coreweave"
# The public page; CoreWeave has no public price API. Server-rendered (Webflow), so one GET
# returns every table: no script needs to run.
PRICING_URL = "https://www.coreweave.com/pricing"
# One row per GPU instance: a table-row-v2 whose kind ends in "gpu-pricing" (most rows are
# "kubernetes-gpu-pricing", the HGX H100's "gpu-pricing-and-kubernetes-gpu-pricing" on the page
# as recorded 2026-08-22); CPU rows are "kubernetes-cpu-pricing".
ROW, GPU_KIND = "table-row-v2", "gpu-pricing"
MODEL_NAME = "table-model-name"
# Each row repeats its figures as labelled values (the page's mobile layout): reading by
# label, not by column position, survives a reordered or widened table.
META_VALUE = "table-meta-value"
COUNT_LABEL = "gpu count"
VRAM_LABEL = "vram"
PRICE_SPANS = {"on_demand": "instance-price", "spot": "spot-price"}
ITEM_VALUE = "item-value"
# The words after a price's value in its span: "/ Hour", the instance's hour, as the page prints
# it and as it is read. Another ("/ GPU / Hour", "/ Minute", "/ Month") is refused, not loaded
# as the instance's hour (a price per GPU read so is 8 times too cheap a chip). A price with no
# words after it is read by its own (price_of: "/GPU" in it is refused too).
HOURLY = "/ hour"
# The table's header and cells: the host columns of a GPU row are read by their header.
HEADER, CELL = "table-v2-header", "table-v2-cell"
HOST_COLUMNS = {"vcpus": "vcpus", "ram_gb": "system ram (gb)", "disk_gb": "local storage (tb)"}
# What every GPU row must carry; a page without them changed layout (ParseError).
EXPECTED = ("GPU Count", "On-Demand Price")
# The served page writes a footnote after a count as "4^1" (its own script turns "^1" into a
# superscript in the browser): the count is 4, with footnote 1.
CARET_NOTE = re.compile(r"\^(\S+)$")
# Section labels such as "REGION: NORTH AMERICA" set the region of the tables after them.
REGION_MARKER = re.compile(r"^region:\s*(.+)$", re.IGNORECASE)
DEFAULT_REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The pricing page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PRICING_URL, label="pricing page", ext="html")


@dataclass(frozen=True)
class Row:
    """One GPU row of the page as printed, before any number is read from it."""

    region: str
    name: str
    product: str
    labels: dict[str, Element]
    prices: dict[str, str]  # pricing model -> price text
    # The row's cells under its table's header (lower case): "vcpus", "system ram (gb)", ...
    cells: dict[str, str] = field(default_factory=dict)
    # pricing model -> the sample's estimate mark on that price's span (a live page has none)
    marks: dict[str, dict[str, str]] = field(default_factory=dict)
    # pricing model -> the unit printed after its price ("/ Hour")
    units: dict[str, str] = field(default_factory=dict)


def rows(page: Page) -> list[Row]:
    """The page's GPU rows; the labels and prices the parser reads must be among them."""
    found = gpu_rows(parse_html(html_text(page.payload)))
    if found:
        labels = {label for row in found for label in row.labels}
        priced = {"on-demand price"} if any("on_demand" in r.prices for r in found) else set()
        require_columns(labels | priced, EXPECTED, page.payload, PROVIDER)
    return found


def gpu_rows(root: Element) -> list[Row]:
    """Every GPU row in document order, each with the region label that precedes it."""
    rows, region, header = [], DEFAULT_REGION, []
    for element in root.iter():
        marker = _region_marker(element)
        if marker:
            region = marker
        elif element.has_class(HEADER):
            header = [cell.text().lower() for cell in element.find_all(None, CELL)]
        elif _is_gpu_row(element):
            name_el = element.find(None, MODEL_NAME)
            rows.append(
                Row(
                    region=region,
                    name=name_el.text() if name_el else "",
                    product=name_el.attrs.get("data-product", "") if name_el else "",
                    labels=_labelled_values(element),
                    prices=_price_texts(element),
                    units=_price_units(element),
                    marks=_price_marks(element),
                    cells=dict(
                        zip(header, (c.text() for c in element.find_all(None, CELL)), strict=False)
                    ),
                )
            )
    return rows


def _is_gpu_row(element: Element) -> bool:
    return element.has_class(ROW) and any(c.endswith(GPU_KIND) for c in element.classes)


def _region_marker(element: Element) -> str:
    if not element.children or not all(isinstance(c, str) for c in element.children):
        return ""
    match = REGION_MARKER.match(element.text())
    return slug(match.group(1)) if match else ""


def _labelled_values(row: Element) -> dict[str, Element]:
    """{label: value element} from <div class="table-meta-value">8</div><div>GPU Count</div>."""
    found: dict[str, Element] = {}
    for parent in row.iter():
        siblings = [c for c in parent.children if isinstance(c, Element)]
        for value, label in zip(siblings, siblings[1:], strict=False):
            if value.has_class(META_VALUE) and label.text():
                found.setdefault(label.text().lower(), value)
    return found


def _price_texts(row: Element) -> dict[str, str]:
    texts = {}
    for model, css in PRICE_SPANS.items():
        span = row.find("span", css)
        if span is not None:
            value = span.find(None, ITEM_VALUE)
            texts[model] = value.text() if value is not None else ""
    return texts


def _price_units(row: Element) -> dict[str, str]:
    """{pricing model: the words after its value}: "/ Hour" of `On-Demand Price: <span
    class="item-value">$49.24</span> / Hour<br/>`; read, not thrown away."""
    units = {}
    for model, css in PRICE_SPANS.items():
        span = row.find("span", css)
        value = span.find(None, ITEM_VALUE) if span is not None else None
        if span is None or value is None:
            continue
        holder = next(e for e in span.iter() if any(c is value for c in e.children))
        after = holder.children[[c is value for c in holder.children].index(True) + 1 :]
        units[model] = Element(holder.tag, children=after).text()
    return units


def _price_marks(row: Element) -> dict[str, dict[str, str]]:
    found = {}
    for model, css in PRICE_SPANS.items():
        span = row.find("span", css)
        if span is not None and estimate_of(span.attrs):
            found[model] = estimate_of(span.attrs)
    return found


def offers(row: Row, page: Page) -> list[Item]:
    """One record per price the row lists; a reject with the reason for each it cannot use."""
    count_el = row.labels.get(COUNT_LABEL)
    shown = {"name": row.name, "region": row.region, "prices": row.prices}
    shown["gpu_count"] = count_el.text(footnotes=True) if count_el is not None else None
    try:
        count = parse_count(_count_text(count_el))
        if not row.prices:
            raise ValueError("the row shows no On-Demand or Spot price")
    except ValueError as exc:
        return [page.reject(f"{row.name}: {exc}", shown, row.product)]
    vram = _number(row.labels.get(VRAM_LABEL))
    chip = page.chip(row.name, vram)
    made: list[Item] = []
    for model, text in row.prices.items():
        # Each price is the instance's: a cell saying "/GPU" or "From" is refused, not read,
        # and so is one whose unit after it is not the hour.
        what = f"{row.name} {model.replace('_', '-')}"
        unit = row.units.get(model, "")
        if unit and " ".join(unit.replace("/", " / ").split()).lower() != HOURLY:
            why = (
                f"{what}: price unit {unit!r} of {text!r} is not an instance-hour: not read as one"
            )
            made.append(page.reject(why, {**shown, "unit": unit}, row.product))
            continue
        price, why = price_of(text, what, PER_INSTANCE)
        if price is None:
            # "Contact us", "N/A", empty: a copy of the row pricing its offer refuses both;
            # alone, no sku, so the offer is withdrawn (the product's slug is the sku of its
            # every region's and pricing model's records, which a reject naming it keeps open)
            key = {"region": row.region, "instance_type": without_marks(row.name),
                   "pricing_model": model}  # fmt: skip
            made.append(page.no_price(why, shown, text, row.product, unpriced=key))
            continue
        made.append(
            page.record(
                region=row.region,
                # a mark ("NVIDIA® HGX H100") is no part of the name: its history stays whole
                instance_type=without_marks(row.name),
                chip=chip,
                chip_count=float(count),
                pricing_model=model,
                price_per_hour=price,
                sku=row.product,
                extra={**_extra(vram, count_el), **row.marks.get(model, {})},
                **_host(row.cells),
            )
        )
    return made


def _host(cells: dict[str, str]) -> dict[str, float | None]:
    """The columns "vCPUs", "System RAM (GB)" and "Local Storage (TB)" (1,000 GB a TB)."""
    return {
        "vcpus": host_spec(cells.get(HOST_COLUMNS["vcpus"])),
        "ram_gb": host_spec(cells.get(HOST_COLUMNS["ram_gb"])),
        "disk_gb": size_gb(f"{cells[HOST_COLUMNS['disk_gb']]} TB")
        if cells.get(HOST_COLUMNS["disk_gb"])
        else None,
    }


def _count_text(count_el: Element | None) -> str | None:
    """The count without its footnote marker: "4" of "4<sup>1</sup>" and of "4^1"."""
    return CARET_NOTE.sub("", count_el.text()).strip() if count_el is not None else None


def _footnotes(count_el: Element) -> list[str]:
    caret = CARET_NOTE.search(count_el.text())
    return count_el.footnotes() + ([caret.group(1)] if caret else [])


def _number(element: Element | None) -> float | None:
    if element is None:
        return None
    try:
        return float(element.text().replace(",", ""))
    except ValueError:
        return None


def _extra(vram: float | None, count_el: Element | None) -> dict[str, object]:
    extra: dict[str, object] = {"price_basis": "per instance-hour"}
    if vram is not None:
        extra["vram_gb"] = vram
    if count_el is not None and _footnotes(count_el):
        extra["gpu_count_footnotes"] = _footnotes(count_el)
    return extra


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "CoreWeave public pricing page (HTML): GPU instances per instance-hour, on-demand "
        "and spot where listed"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="CoreWeave",
    checked=Checked(
        asks="the public pricing page",
        against=(
            "**recorded** page (getcomputable/gpu-index's fixture, its GPU and first CPU tables)"
        ),
        when="2026-08-22",
    ),
    layout=read_by("labels", EXPECTED),
)
parse = SOURCE.parse
