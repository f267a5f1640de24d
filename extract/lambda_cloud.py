"""Lambda: the instance-types API with LAMBDA_API_KEY, its public pricing page without one."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP, without_marks
from chipcost.core.commands import REPLAY
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec, size_gb
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html
from chipcost.extract._kit import (
    PER_GPU,
    PER_INSTANCE,
    parse_count,
    price_of,
    require_columns,
    shape_error,
)
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
)

SOURCE_NAME = "lambda"
PROVIDER = "lambda"
# Lambda's API host (cloud.lambdalabs.com is its former name). Needs an API key.
API_URL = "https://cloud.lambda.ai/api/v1/instance-types"
API_KEY = _fetch.ApiKey("lambda_api_key", "LAMBDA_API_KEY")
# Without a key: the public pricing page, server-rendered, one table per instance size.
PAGE_URL = "https://lambda.ai/pricing"
API_PATH = f"instance-types API ({API_KEY.env})"
PAGE_PATH = f"public pricing page (no {API_KEY.env})"
# gpu_description as the API writes it: "H100 (80 GB SXM5)", "Tesla V100 (16 GB)".
GPU_DESCRIPTION = re.compile(
    r"^(?:Tesla\s+)?(?P<model>.+?)\s*\((?P<memory>\d+)\s*GB\s*(?P<form>[^)]*)\)"
)
# A page row's GPU cell where it carries the count: "8x NVIDIA H100 SXM".
GPU_CELL = re.compile(r"^(?P<count>\S+?)\s*x\s+(?:NVIDIA\s+)?(?P<model>.+)$", re.IGNORECASE)
# The live page (recorded 2026-08-22) names the GPU alone in a "Plan" cell ("NVIDIA H100 SXM")
# and gives the count as the label of the tab its table is in: "8x", "4x", "2x", "1x".
TAB_COUNT = re.compile(r"^(?P<count>\S+?)\s*x$", re.IGNORECASE)
VENDOR = re.compile(r"^NVIDIA\s+", re.IGNORECASE)
FORM_WORDS = re.compile(r"\s+(SXM\d*|PCIe)\b", re.IGNORECASE)
# Page columns by meaning, matched on header text (case-insensitive): the GPU column is "GPUs"
# or the live page's "Plan"; a "/ GPU" in a header ("VRAM/GPU", "PRICE/GPU/HR*") is a unit.
COLUMNS = {
    "gpu": re.compile(r"\bplan\b|(?<!/)(?<!/ )\bgpus?\b", re.IGNORECASE),
    "vram": re.compile(r"vram", re.IGNORECASE),
    "price": re.compile(r"price", re.IGNORECASE),
}
# A price header's term, where a table prices more than one: the on-demand price is read
# ("ON-DEMAND PRICE/GPU/HR*", "Pay as you go"), a reserved term's never ("1-YR RESERVED
# PRICE/GPU/HR"); two price columns not told apart so fail the source naming both.
ON_DEMAND_HEADER = re.compile(r"\bon[-\s]?demand\b|\bpay[-\s]as[-\s]you[-\s]go\b", re.IGNORECASE)
RESERVED_HEADER = re.compile(
    r"\breserved\b|\bcommit(?:ted|ment)?\b|\bcontract\b|\bterm\b|\bupfront\b|\bannual\b"
    r"|\b\d+\s*-?\s*(?:yr|year|mo|month|wk|week)s?\b",
    re.IGNORECASE,
)
# An amount of money in a cell ("$3.99", "3.99 USD"): a table without a header row that holds
# one and cannot be read under the headers before it fails the source, as its rows would be
# lost; one holding none (a layout table's text) is no price table.
AMOUNT = re.compile(r"[$€£]\s*[0-9]|[0-9]\s*(?:USD|EUR|GBP)\b", re.IGNORECASE)
# The time unit of a price header, by its words ("PRICE/GPU/HR*", "Price / GPU / hr*"): the
# hour alone is read; a header naming another unit (or none) fails the source, as the whole
# column would be read wrong (a price per minute as one per hour is 60 times too cheap).
HOUR_WORDS = {"h", "hr", "hrs", "hour", "hours", "hourly"}
OTHER_TIME_WORDS = {
    "s", "sec", "secs", "second", "seconds", "m", "min", "mins", "minute", "minutes",
    "d", "day", "days", "daily", "w", "wk", "wks", "week", "weeks", "weekly",
    "mo", "mos", "mth", "month", "months", "monthly", "y", "yr", "yrs", "year", "years",
    "yearly", "annual", "annually",
}  # fmt: skip
# A price header naming no unit of time (a bare "Price") is read in the unit its table states
# in its own words, its caption's, headers' or cells' ("$3.99/hr", "per GPU per hour",
# "hourly"): the hour alone where they name it and no other unit; else the source fails as for
# such a header. The same words say whether the price is per GPU ("/GPU/hr").
UNIT_SAID = re.compile(
    r"(?i)(?:/|\bper\b|\ban?\b)\s*(?P<gpu>gpu\s*(?:/|-|\bper\b)?\s*)?(?P<unit>[a-z]+)\b"
    r"|\b(?P<adverb>hourly|daily|weekly|monthly|yearly|annually)\b"
)
# A table with a DURATION column prices 1-Click Clusters for a term ("2 weeks – 1 year", "1
# year+") per cluster size, not an instance on demand: its rows are counted, not collected.
TERM_HEADER = "duration"
# The host's columns of the pricing page, by header ("vCPUs", "RAM", "Storage"): read where the
# page has them, left empty where it has not (the price does not depend on them).
HOST_HEADERS = {"vcpus": "vcpus", "ram": "ram", "storage": "storage"}
# Lambda's on-demand price is the same in every region; capacity differs and is kept in extra.
REGION = "global"
ON_DEMAND = {"region": REGION, "pricing_model": "on_demand"}
COMMITTED = "a 1-Click Cluster's price for a term, not on demand: not collected"

API = Format(
    "instance types v1",
    "/api/v1/instance-types",
    (
        Rows(
            "data.*",
            {
                "instance_type": "object",
                "regions_with_capacity_available": "array",
            },
        ),
        Rows(
            "data.*.instance_type",
            {
                "name": "string",
                "description": "string",
                "gpu_description": "string",
                "price_cents_per_hour": "number",
                "specs": "object",
            },
            required=("name", "description", "price_cents_per_hour", "specs"),
        ),
    ),
)
# The page read without a key: HTML, no JSON rows to compare; its tables are found by their
# headers (COLUMNS), and a table without them fails the parse naming them.
PAGE = Format(
    "public pricing page (HTML)",
    "/pricing",
    (),
)
EXPECTED_API_FIELDS = API.required("data.*.instance_type")


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """The API response when LAMBDA_API_KEY is set, else the pricing page; archived on arrival."""
    key = API_KEY.of(ctx)
    http = client or _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env)
    with http:
        if key:
            payload = _http.get(ctx, http, API_URL, headers=API_KEY.headers(key), ext="json")
        else:
            payload = _http.get(ctx, http, PAGE_URL, ext="html")
    ctx.progress(f"{SOURCE_NAME}: {API_PATH if key else PAGE_PATH}")
    return [payload]


def rows(page: Page) -> list[Any]:
    """The API's instance types, or the pricing page's table rows (as cells by meaning)."""
    if page.payload.url.startswith(API_URL):
        page.note(f"prices from the {API_PATH}")
        return _api_rows(page)
    page.note(f"prices from the {PAGE_PATH}")
    return _page_rows(page)


def offers(row: Any, page: Page) -> list[Item]:
    """One on-demand record per instance type; pure."""
    if page.payload.url.startswith(API_URL):
        return [_api_offer(row, page)]
    return [_page_offer(row, page)]


def offer_name(count: int, chip: str, model: str, form: str) -> str:
    """'8x H100-SXM', '8x A100-80GB SXM', '1x GH200': the same name from the API and the page."""
    if chip == UNKNOWN_CHIP:
        return f"{count}x {model}"
    kind = "SXM" if form.upper().startswith("SXM") else "PCIe" if form.upper() == "PCIE" else ""
    # "PCIe" is kept only where one chip row covers both forms (A100): a PCIe-only card (A10)
    # gets none, as the page, which omits its form, names it.
    if kind == "PCIe" and not chip.startswith("A100"):
        kind = ""
    if kind and kind.lower() not in chip.lower():
        return f"{count}x {chip} {kind}"
    return f"{count}x {chip}"


# --- the API ---------------------------------------------------------------------------------


def _api_rows(page: Page) -> list[Any]:
    body = page.json()
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise shape_error(PROVIDER, page.payload, "data object of instance types", body)
    types = [entry.get("instance_type") for entry in data.values() if isinstance(entry, dict)]
    fields = {key for t in types if isinstance(t, dict) for key in t}
    require_columns(fields, EXPECTED_API_FIELDS, page.payload, PROVIDER)
    return list(data.values())


def _name(entry: Any) -> str:
    kind = entry.get("instance_type") if isinstance(entry, dict) else None
    return str(kind.get("name", "")) if isinstance(kind, dict) else ""


def _api_offer(entry: Any, page: Page) -> Item:
    kind = entry.get("instance_type") if isinstance(entry, dict) else None
    if not isinstance(kind, dict):
        return page.reject("entry has no instance_type object", entry)
    specs = kind.get("specs") if isinstance(kind.get("specs"), dict) else {}
    try:
        count = parse_count(specs.get("gpus"))
    except ValueError as exc:
        return page.reject(str(exc), entry, _name(entry))
    described = GPU_DESCRIPTION.match(str(kind.get("gpu_description") or ""))
    if described is None:
        why = f"gpu_description {kind.get('gpu_description')!r} names no GPU and memory"
        return page.reject(why, entry, _name(entry))
    model, memory, form = described["model"], float(described["memory"]), described["form"]
    chip = page.chip(f"{model} {form}".strip(), memory)
    cents = kind.get("price_cents_per_hour")
    if isinstance(cents, bool) or not isinstance(cents, int | float) or cents <= 0:
        why = f"price_cents_per_hour {cents!r} is not a positive price"
        return page.reject(why, entry, _name(entry))
    regions = entry.get("regions_with_capacity_available") or []
    extra = {
        "description": kind.get("description"),
        "regions_with_capacity": [r.get("name") for r in regions if isinstance(r, dict)],
    }
    return page.record(
        **ON_DEMAND,
        instance_type=offer_name(count, chip, model, form),
        chip=chip,
        chip_count=float(count),
        price_per_hour=round(cents / 100, 6),  # the API prices the whole instance, in cents
        sku=str(kind.get("name")),
        extra={k: v for k, v in extra.items() if v is not None},
        vcpus=host_spec(specs.get("vcpus")),
        ram_gb=host_spec(specs.get("memory_gib")),
        disk_gb=host_spec(specs.get("storage_gib")),
    )


# --- the public pricing page -----------------------------------------------------------------


def _page_rows(page: Page) -> list[dict[str, Any]]:
    tree = parse_html(html_text(page.payload))
    tabs = _tab_labels(tree)
    found: list[dict[str, Any]] = []
    before: list[str] = []  # the headers of the table before, for one going on under them
    for number, table in enumerate(tree.find_all("table"), 1):
        rows = [row for row in table.find_all("tr") if row.find("td")]
        headers = _headers(table)
        if headers is None:
            headers = _continued(before, rows, number, page.payload)
        before = headers
        columns = _columns(headers)
        if "gpu" not in columns and "price" not in columns:
            continue  # not a price table (a spec or FAQ table)
        terms = [i for i, header in enumerate(headers) if TERM_HEADER in header.lower()]
        if terms:
            found += [_term_row(_cells(row), terms[0]) for row in rows]
            continue
        columns |= _price_column(headers, page.payload)
        require_columns(columns, COLUMNS, page.payload, PROVIDER)
        header = headers[columns["price"]]
        said_gpu = _require_hourly(header, table, page.payload)
        per_gpu = "gpu" in header.lower().split("price", 1)[1] or said_gpu
        hosts = _host_columns(headers)
        for row in rows:
            cells = _cells(row)
            cell = {k: _cell(cells, columns, k) for k in COLUMNS}
            cell |= {k: _cell(cells, hosts, k) for k in HOST_HEADERS}
            found.append({**cell, "per_gpu": per_gpu, "marks": row.attrs, "tab": tabs.get(table)})
    return found


def _term_row(cells: list[str], term: int) -> dict[str, Any]:
    """A 1-Click Cluster row: its plan and term, to be counted as not collected."""
    return {"gpu": cells[0] if cells else "", "term": cells[term] if term < len(cells) else ""}


def _tab_labels(tree: Element) -> dict[Element, str]:
    """The label of the tab ("8x") each table of a tab panel is shown under, by table."""
    labels = {e.attrs.get("id"): e.text() for e in tree.iter() if e.attrs.get("role") == "tab"}
    return {
        table: labels.get(panel.attrs.get("aria-labelledby"), "")
        for panel in tree.iter()
        if panel.attrs.get("role") == "tabpanel"
        for table in panel.find_all("table")
    }


def _headers(table: Element) -> list[str] | None:
    """The column headers: the cells of the table head's row, or of its first row where that
    is a header row (header cells alone); None for a table whose first row holds data cells,
    as the rest of a table split in two does ([] for a table of no rows)."""
    head = table.find("thead")
    first = (head or table).find("tr")
    if first is None:
        return []
    if head is None and any(cell.tag == "td" for cell in _cell_elements(first)):
        return None
    return _cells(first)


def _continued(before: list[str], rows: list[Element], number: int, payload: Payload) -> list[str]:
    """The headers a table without a header row is read under: those of the table before it,
    where each of its rows has as many cells (the rest of a table split in two); none ([])
    where no cell of it holds an amount; else a ParseError naming it, as its rows cannot be
    told what they hold and none is dropped."""
    widths = sorted({len(_cells(row)) for row in rows})
    if before and widths == [len(before)]:
        return before
    if not any(AMOUNT.search(cell) for row in rows for cell in _cells(row)):
        return []  # no price in it (a layout table's text): nothing of it is read or lost
    first = " | ".join(" ".join(cell.split()) for cell in _cells(rows[0]))
    if before:
        why = (
            f"its rows have {' or '.join(map(str, widths))} cells, not the {len(before)} of the "
            f"headers of the table before it ({', '.join(repr(h.strip()) for h in before)})"
        )
    else:
        why = "no table before it gives headers"
    raise _layout_error(
        payload,
        f"has a table (its table {number}, first row {first[:200]!r}) with no header row, "
        f"and {why}: what its cells hold cannot be told, so none of its rows is read",
        page="the pricing page",
    )


def _cells(row: Element) -> list[str]:
    """A row's cells in order, header cells among them: the live page's GPU cell is a
    <th scope="row">."""
    return [cell.text() for cell in _cell_elements(row)]


def _cell_elements(row: Element) -> list[Element]:
    return [c for c in row.children if isinstance(c, Element) and c.tag in ("td", "th")]


def _columns(headers: list[str]) -> dict[str, int]:
    """Column index by meaning ('gpu', 'vram', 'price'), matched on header words."""
    found: dict[str, int] = {}
    for index, header in enumerate(headers):
        for key, pattern in COLUMNS.items():
            if key not in found and pattern.search(header):
                found[key] = index
    return found


def _price_column(headers: list[str], payload: Payload) -> dict[str, int]:
    """{'price': its index}: the table's one price column, or the on-demand one of a table
    whose others each price a reserved term; {} for none; a ParseError naming the headers
    where which price is on demand cannot be told (two alike, or a reserved term's alone)."""
    places = [at for at, header in enumerate(headers) if COLUMNS["price"].search(header)]
    on_demand = [
        at
        for at in places
        if ON_DEMAND_HEADER.search(headers[at]) and not RESERVED_HEADER.search(headers[at])
    ]
    reserved = [at for at in places if RESERVED_HEADER.search(headers[at])]
    if len(places) == 1 and places != reserved:
        return {"price": places[0]}
    if len(on_demand) == 1 and len(reserved) == len(places) - 1:
        return {"price": on_demand[0]}
    if not places:
        return {}
    named = ", ".join(repr(headers[at].strip()) for at in places)
    if len(places) == 1:
        what = f"heads its one price column {named}, a reserved term's, not an on-demand price"
    else:
        what = (
            f"heads {len(places)} price columns ({named}): which one is the on-demand price "
            "cannot be told, so none is read"
        )
    raise _layout_error(payload, what)


def _require_hourly(header: str, table: Element, payload: Payload) -> bool:
    """Nothing to say when the price header prices by the hour ("PRICE/GPU/HR*"); for a header
    naming no unit of time ("Price"), whether its table's own words (UNIT_SAID) price per GPU,
    where they name the hour and no other unit; else a ParseError naming it: a header is the
    whole column's, so no cell under it is read. (A bare "Price" failed the source whatever
    its table said.)"""
    words = set(re.findall(r"[a-z]+", header.lower()))
    others = sorted(words & OTHER_TIME_WORDS)
    if words & HOUR_WORDS and not others:
        return False
    says = f"names {', '.join(repr(w) for w in others)}" if others else "names no hour"
    if not others:
        said = [m for m in UNIT_SAID.finditer(table.text()) if _time_word(m)]
        units = {_time_word(m) for m in said}
        if units and units <= HOUR_WORDS:
            return any(m["gpu"] for m in said)
        others = sorted(units - HOUR_WORDS)
        says += (
            f", and its table names {', '.join(repr(w) for w in others)}"
            if others
            else ", nor does its table"
        )
    raise _layout_error(
        payload,
        f"heads its price column {header.strip()!r}, which {says}: prices are read "
        "per hour alone, so none under it is read",
    )


def _time_word(said: re.Match[str]) -> str:
    """The unit of time a UNIT_SAID match names ("hr" of "/GPU/hr"), "" for none ("/node")."""
    word = (said["adverb"] or said["unit"] or "").lower()
    return word if word in HOUR_WORDS or word in OTHER_TIME_WORDS else ""


def _layout_error(payload: Payload, what: str, page: str = "the price table") -> ParseError:
    """The source failing on a table it cannot read for sure, before any price of it is."""
    return ParseError(
        f"{PROVIDER}: {page} at {payload.url} "
        f"({payload.ref or payload.name or 'unarchived'}) {what}; the layout changed; report "
        f"it, then re-parse the archived payload with `{REPLAY}` once fixed"
    )


def _host_columns(headers: list[str]) -> dict[str, int]:
    named = {header.strip().lower(): index for index, header in enumerate(headers)}
    return {key: named[word] for key, word in HOST_HEADERS.items() if word in named}


def _count_and_model(row: dict[str, Any]) -> tuple[str, str, str] | None:
    """(count, model, sku) from a GPU cell with its count ("8x NVIDIA H100 SXM"), or from the
    cell and its table's tab ("NVIDIA H100 SXM" under "8x"); None when neither gives one."""
    cell = GPU_CELL.match(row["gpu"])
    if cell is not None:
        return cell["count"], cell["model"], row["gpu"]
    tab = TAB_COUNT.match(row.get("tab") or "")
    if tab is None:
        return None
    return tab["count"], VENDOR.sub("", row["gpu"]), f"{row['tab']} {row['gpu']}"


def _page_offer(row: dict[str, Any], page: Page) -> Item:
    if "term" in row:
        return Skip(COMMITTED, f"{row['gpu']} ({row['term']})")
    cells = {key: row[key] for key in COLUMNS}
    named = _count_and_model(row)
    if named is None:
        why = f"GPU cell {row['gpu']!r} is not '<count>x <GPU>' and no tab gives its count"
        return page.reject(why, cells, row["gpu"])
    count_text, gpu, sku = named
    # a mark after a name ("NVIDIA® H100") is no part of it: the offer keeps its name, and its
    # history, when the page adds one (the sku stays the page's words)
    gpu = VENDOR.sub("", without_marks(gpu))
    try:
        count = parse_count(count_text)
    except ValueError as exc:
        return page.reject(str(exc), cells, sku)
    per_gpu = row["per_gpu"]
    form = FORM_WORDS.search(gpu)
    model = FORM_WORDS.sub("", gpu).strip()
    memory = re.match(r"\s*(\d+)", row["vram"])
    chip = page.chip(gpu, float(memory[1]) if memory else None)
    name = offer_name(count, chip, model, form[1] if form else "")
    price, why = price_of(row["price"], f"{sku}: price", PER_GPU if per_gpu else PER_INSTANCE)
    if price is None:  # "Contact us": a copy of the row pricing its offer refuses both
        # alone, no sku, so the offer is withdrawn (the plan's records carry the sku, and a
        # reject naming it keeps them open)
        unpriced = {**ON_DEMAND, "instance_type": name}
        return page.no_price(why, cells, row["price"], sku, unpriced=unpriced)
    total = price * count if per_gpu else price
    unit = "per GPU-hour" if per_gpu else "per instance-hour"
    return page.record(
        **ON_DEMAND,
        instance_type=name,
        chip=chip,
        chip_count=float(count),
        price_per_hour=round(total, 6),
        sku=sku,
        extra={"listed": f"{row['price']} {unit}", **estimate_of(row["marks"])},
        vcpus=host_spec(row["vcpus"]),
        ram_gb=size_gb(row["ram"]),
        disk_gb=size_gb(row["storage"]),
    )


def _cell(cells: list[str], columns: dict[str, int], key: str) -> str:
    index = columns.get(key)
    return cells[index] if index is not None and index < len(cells) else ""


SOURCE = Source(
    formats=(
        API,
        PAGE,
    ),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Lambda on-demand GPU instances: the instance-types API with LAMBDA_API_KEY, else the "
        "public pricing page; one price for every region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Lambda",
    checked=Checked(
        asks="instance types (with `LAMBDA_API_KEY`), else the public pricing page",
        against=(
            "**recorded** pricing page (an excerpt: the 1-Click Clusters and Instances tabs), "
            "recorded 2026-08-22 in getcomputable/gpu-index at commit "
            "055204adf5e64e62595f97c49b7eb65400149871; the API from documentation and other "
            "projects' parsers"
        ),
        when="2026-08-22",
        rest="the API's answers reconstructed",
    ),
)
parse = SOURCE.parse
