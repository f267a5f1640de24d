"""Nebius AI Cloud's public prices page (HTML): GPU presets per GPU-hour, by pricing model."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from chipcost.core.catalog import without_marks
from chipcost.core.commands import REPLAY
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._estimate import estimate_of
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._html_encoding import html_text
from chipcost.extract._html_tree import Element, parse_html, raised_shown
from chipcost.extract._kit import PER_GPU, price_of, require_columns, says_no_price
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source, read_by

SOURCE_NAME = "nebius"
PROVIDER = "nebius"
# The public page. Nebius's billing calculator API needs an account, and the page states one
# price list for every region; it is server-rendered, so one GET carries every table.
PRICING_URL = "https://nebius.com/prices"
TABLE = "pc-highlight-table-block"
# The page as served carries its tables as data for the browser to render (recorded 2026-08-22:
# {"type":"highlight-table-block","title":...,"table":{"content":[[header...],[row...]]}}, its
# quotes escaped inside a script): each block's rows are read from there when the page has them.
DATA_BLOCK = re.compile(r'"type":"highlight-table-block".*?"table":\{"content":', re.DOTALL)
# A data cell may be a markdown link ("[Contact us](#ai-contact-form)"): its text is the cell.
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# The data's raised text, "^*^" and "^1^" its footnote marks ("Free^*^", "...(Slurm on
# Kubernetes)^**^"): read by the rule the rendered page's <sup> is (raised_shown): a mark left
# out, digits raised after a whole amount ("$4^50^", "4^50^ USD") kept as superscript digits,
# which the price reader refuses, never read as 4. Anything else raised ("^/hr^") is kept as
# it stands, so a unit or currency raised is seen and refused, not dropped.
RAISED = re.compile(r"\^([0-9*]+)\^")
TITLE = re.compile(r'"title":"((?:[^"\\]|\\.)*)"')
HEAD, BODY, ROW, CELL = (f"{TABLE}__{part}" for part in ("head", "body", "row", "cell"))
ITEM = "item"
# The one unit a price column is read in, however its header writes it: "GPU-hour", "per GPU
# per hour", "/GPU/hr", "GPU hours" (read as "GPU-hour", "per GPU-hour" where "per" or "/" came
# first, so "Price per GPU per hour" is the on-demand "Price per GPU-hour").
GPU_HOUR = "gpu-hour"
GPU_HOUR_WRITTEN = re.compile(
    r"(?i)(?P<per>\bper\s+|/\s*)?\bgpu\s*(?:-|/|\bper\b)?\s*(?:hours?|hrs?|h)\b"
)
# A header pricing a unit of time, per GPU or not: "GPU-hour", "GPU-month", "per GPU per
# hour", "Price per hour", "/hr". A GPU table is one with a header pricing per GPU (whatever
# its unit, so a renamed unit fails naming it) or a row naming a GPU; other tables (CPU,
# storage) have neither. In it every column that looks like a price (such a header, a money
# word, a cell holding an amount of money) is read as a known pricing model per GPU-hour, or
# the source fails naming it: never a column of prices dropped unread, its offers then
# withdrawn on a run that reports ok.
PRICE_UNIT = re.compile(
    r"(?i)(?:\bper\b|/|\bgpu\b)[\s-]*(?:gpu\b[\s-]*(?:per\b|/)?[\s-]*)?"
    r"(?:second|sec|s|minute|min|hour|hr|h|day|week|month|mo|year|yr)s?\b"
)
PER_GPU_HEADER = re.compile(r"(?i)\bgpu\b")
GPU_ROW = re.compile(r"(?i)\b(?:nvidia|gpu)\b")
MONEY_WORD = re.compile(r"(?i)\b(?:price|cost|rate|usd|eur|gbp)\b|[$€£]")
MONEY_CELL = re.compile(r"(?i)[$€£]\s*-?[0-9]|[0-9]\s*(?:usd|eur|gbp)\b")
EXPECTED = ("Item", "On-demand, GPU-hour")
REGION = "global"
# Column header words -> pricing model. Preemptible VMs can be stopped at any time: spot.
MODEL_WORDS = (
    ("preemptible", "spot"),
    ("spot", "spot"),
    ("commit", "commitment"),
    ("reserve", "commitment"),
    ("on-demand", "on_demand"),
    ("on demand", "on_demand"),
    ("price per gpu-hour", "on_demand"),
)
TERM_IN_HEADER = re.compile(r"(\d+)[\s-]*(month|year)", re.IGNORECASE)
TERMS = {("1", "month"): "1mo", ("3", "month"): "3mo", ("6", "month"): "6mo"}
TERMS |= {("12", "month"): "1yr", ("1", "year"): "1yr", ("2", "year"): "2yr"}
TERMS |= {("36", "month"): "3yr", ("3", "year"): "3yr"}
# "from $1.82": the page's lowest price of a preset sold in several sizes, read on purpose and
# said in the record (`price_listed`); the rest of the cell is read as every page's price per
# GPU is (its unit, "starting at", a minus, the number's shape: extract/_price_cell.py).
FROM = re.compile(r"(?i)^\s*from\b\s*")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The prices page, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, PRICING_URL, label="prices page", ext="html")


@dataclass(frozen=True)
class Line:
    """One row of a GPU table, as text: the table's headers and the row's cells."""

    headers: list[str]
    cells: list[str]
    attrs: dict[str, str] = field(default_factory=dict)  # the HTML row's (the sample's marks)


@dataclass(frozen=True)
class Column:
    index: int
    header: str
    model: str  # pricing model, "" for a descriptive column
    term: str = "none"


def rows(page: Page) -> list[Line]:
    """Every row of the page's GPU tables, from its table data where the page carries it, else
    from its rendered tables; each GPU table must have the columns the parser reads, and every
    price column one it can read (a new layout fails loudly, naming the header)."""
    payload = page.payload
    text = html_text(payload)
    tables = _data_tables(text, payload) or _html_tables(text, payload)
    gpu_tables = [t for t in tables if _is_gpu_table(*t)]
    if not gpu_tables:
        found = {h for headers, _ in tables for h in headers}
        require_columns(found, EXPECTED, payload, PROVIDER)
    for headers, lines in gpu_tables:
        require_columns(headers, (EXPECTED[0],), payload, PROVIDER)
        _read_every_price_column(headers, lines, payload)
    return [line for _, lines in gpu_tables for line in lines]


def _is_gpu_table(headers: list[str], lines: list[Line]) -> bool:
    """A table pricing per GPU by a header, or listing a GPU in a row's first cell."""
    return any(PER_GPU_HEADER.search(h) and PRICE_UNIT.search(h) for h in headers) or any(
        line.cells and GPU_ROW.search(line.cells[0]) for line in lines
    )


def _read_every_price_column(headers: list[str], lines: list[Line], payload: Payload) -> None:
    """A ParseError naming the first column of a GPU table that looks like a price (its
    header's unit or money word, a cell of money) but is not read as a pricing model per
    GPU-hour (columns)."""
    for col in columns(headers):
        if col.model:
            continue
        cells = [line.cells[col.index] for line in lines if col.index < len(line.cells)]
        if not (
            PRICE_UNIT.search(col.header)
            or MONEY_WORD.search(col.header)
            or any(MONEY_CELL.search(cell) for cell in cells)
        ):
            continue  # a descriptive column: "Item", "vCPUs", "RAM, GB"
        lower = _gpu_hour(col.header).lower()
        if any(word in lower for word, _ in MODEL_WORDS):
            why = "its unit is not written 'GPU-hour', the one unit the parser reads prices in"
        else:
            why = (
                "it names no pricing model the parser knows (on-demand, preemptible or spot, "
                "a commitment or reserve)"
            )
        why += f", as in {EXPECTED[1]!r}"
        raise ParseError(
            f"{PROVIDER}: the price table at {payload.url} "
            f"({payload.ref or payload.name or 'unarchived'}) has a price column headed "
            f"{col.header!r} that the parser cannot read: {why} (the table's headers: "
            f"{', '.join(headers)}); the layout changed; report it, then re-parse the "
            f"archived payload with `{REPLAY}` once fixed"
        )


def _unreadable_block(payload: Payload, block: str, why: str) -> ParseError:
    return ParseError(
        f"{PROVIDER}: the prices page at {payload.url} "
        f"({payload.ref or payload.name or 'unarchived'}) has a table {block} {why}; the layout "
        f"changed; report it, then re-parse the archived payload with `{REPLAY}` once fixed"
    )


Table = tuple[list[str], list[Line]]


def _html_tables(text: str, payload: Payload) -> list[Table]:
    """The tables of the rendered blocks: each header row with every row after it in its
    block, whichever body holds it (a table split in two bodies is read whole); a block with
    rows before any header fails the source naming it."""
    found: list[Table] = []
    for block in parse_html(text).find_all(None, TABLE):
        in_head = {id(r) for head in block.find_all(None, HEAD) for r in head.find_all(None, ROW)}
        lines: list[Line] | None = None
        for element in block.iter():
            if element.has_class(HEAD):
                headers, lines = _head(element, block, payload), []
                found.append((headers, lines))
            elif element.has_class(ROW) and id(element) not in in_head:
                cells = [cell.text() for cell in element.find_all(None, CELL)]
                if lines is None:
                    title = block.find(None, f"{TABLE}__title")
                    name = repr(title.text()) if title is not None else "without a title"
                    why = f"with a row before any header row ({', '.join(cells)})"
                    raise _unreadable_block(payload, name, f"{why}: its columns cannot be told")
                lines.append(Line(headers, cells, element.attrs))
    return found


def _data_tables(text: str, payload: Payload) -> list[Table]:
    """The tables of the page's data blocks (quotes unescaped), each a list of string rows;
    none where no block can be decoded (the rendered tables are read then), a ParseError
    naming a block that cannot be read beside others that can."""
    data, found, unread = text.replace('\\"', '"'), [], []
    for block in DATA_BLOCK.finditer(data):
        title = TITLE.search(block.group(0))
        name = repr(title.group(1)) if title else "without a title"
        try:
            content, _ = json.JSONDecoder().raw_decode(data, block.end())
        except ValueError:
            unread.append(name)  # not a table the parser can read
            continue
        if not isinstance(content, list) or not all(isinstance(r, list) for r in content):
            raise _unreadable_block(payload, name, "whose content is not a list of rows")
        grid = [[_data_cell(c) for c in r] for r in content]
        if grid:
            found.append((grid[0], [Line(grid[0], cells) for cells in grid[1:]]))
    if found and unread:
        raise _unreadable_block(payload, unread[0], "whose data cannot be decoded")
    return found


def _data_cell(value: object) -> str:
    """A data cell's text: a link's text, the page's footnote marks left out (RAISED)."""
    text = LINK.sub(r"\1", str(value))
    return RAISED.sub(lambda mark: _mark(mark, text), text).strip()


def _mark(mark: re.Match[str], text: str) -> str:
    return raised_shown(mark.group(1), text[: mark.start()], text[mark.end() :])[0]


def _head(group: Element, block: Element, payload: Payload) -> list[str]:
    """The column names of a header group: its one row's cells, or each column's cells of its
    rows read together, top first ("Price per GPU-hour" spanning two columns over
    "Preemptible" and "On-demand": "Price per GPU-hour, Preemptible", ...), a cell spanning
    columns or rows (colspan, rowspan, or their aria- names) over each it spans; a ParseError
    naming the rows where they do not line up, as which name is whose cannot be told. (Only
    the first row was read: the others' names were lost.)"""
    placed: list[dict[int, str]] = []
    held: dict[int, tuple[str, int]] = {}  # column -> a cell spanning rows, the rows it has left
    for row in group.find_all(None, ROW):
        names: dict[int, str] = {}
        column, covered = 0, set(held)
        for cell in row.find_all(None, CELL):
            while column in covered:
                column += 1
            text, across, down = cell.text(), _span(cell, "colspan"), _span(cell, "rowspan")
            for at in range(column, column + across):
                names[at] = text
                if down > 1:
                    held[at] = (text, down)
            column += across
        held = {at: (text, left - 1) for at, (text, left) in held.items() if left > 1}
        placed.append(names | {at: "" for at in covered if at not in names})
    widths = {max(names, default=-1) + 1 for names in placed}
    if len(placed) > 1 and (len(widths) > 1 or any(len(n) != max(widths) for n in placed)):
        title = block.find(None, f"{TABLE}__title")
        name = repr(title.text()) if title is not None else "without a title"
        shown = "; ".join(", ".join(n[at] for at in sorted(n)) for n in placed)
        why = f"whose header rows ({shown}) do not line up: which column each names cannot be told"
        raise _unreadable_block(payload, name, why)
    width = max(widths, default=0)
    return [", ".join(dict.fromkeys(n[at] for n in placed if n.get(at))) for at in range(width)]


def _span(cell: Element, attribute: str) -> int:
    """How many columns (colspan) or rows (rowspan) a header cell spans: 1 unless it says."""
    span = cell.attrs.get(attribute) or cell.attrs.get(f"aria-{attribute}") or "1"
    return int(span) if span.isdigit() and int(span) > 0 else 1


def columns(headers: list[str]) -> list[Column]:
    """What each column of a GPU table holds, read from its header."""
    found = []
    for index, header in enumerate(headers):
        lower = _gpu_hour(header).lower()
        model = next((m for word, m in MODEL_WORDS if word in lower), "")
        term = "none"
        if model == "commitment":
            match = TERM_IN_HEADER.search(header)
            term = TERMS.get((match.group(1), match.group(2).lower()), "") if match else ""
        found.append(Column(index, header, model if GPU_HOUR in lower else "", term))
    return found


def _gpu_hour(header: str) -> str:
    """The header with its GPU-hour written one way (GPU_HOUR_WRITTEN)."""
    return GPU_HOUR_WRITTEN.sub(lambda m: "per GPU-hour" if m["per"] else "GPU-hour", header)


def offers(row: Line, page: Page) -> list[Item]:
    """One record per priced column of a GPU row (per GPU-hour); pure."""
    headers, cells = row.headers, row.cells
    shown = dict(zip(headers, cells, strict=False))
    lower = [h.strip().lower() for h in headers]
    # a footnote's "*" and a mark ("NVIDIA® HGX H100") are no part of the name: the offer keeps
    # its name, and its history, when the page adds one
    item = without_marks(cells[lower.index(ITEM)]) if len(cells) == len(headers) else ""
    name = item.rstrip("*").strip()
    if not name:
        why = f"row has {len(cells)} cells for {len(headers)} columns ({', '.join(headers)})"
        return [page.reject(why, shown)]
    chip, marks = page.chip(name), estimate_of(row.attrs)
    return [
        _cell_offer(name, chip, col, cells, shown, page, marks)
        for col in columns(headers)
        if col.model
    ]


def _cell_offer(
    name: str, chip: str, col: Column, cells: list[str], shown: dict, page: Page, marks: dict
) -> Item:
    # The offer a refused cell is a price of: kept open while its cell cannot be read (a term
    # not told matches any), withdrawn when the cell says no price ("Contact us", "—"), unless
    # another copy of the row prices it (both refused: unpriced).
    offer = {"region": REGION, "instance_type": name, "pricing_model": col.model}
    if not col.term:
        why = f"{name}: column {col.header!r} names no commitment term chipcost knows"
        return page.reject(why, shown, offer=offer | {"term": None})
    price, why = price_of(FROM.sub("", cells[col.index]), f"{name} {col.header}", PER_GPU)
    if price is None:
        termed = offer | {"term": col.term}
        if says_no_price(cells[col.index]):
            return page.reject(why, shown, unpriced=termed)
        return page.reject(why, shown, offer=termed)
    return page.record(
        region=REGION,
        instance_type=name,
        chip=chip,
        # The page prices one GPU (its preset's vCPUs and RAM included): an instance of 1.
        chip_count=1.0,
        pricing_model=col.model,
        term=col.term,
        price_per_hour=price,
        extra={
            "price_basis": "per GPU-hour",
            "column": col.header,
            **_floor(cells[col.index]),
            **marks,
        },
        **_specs(shown),
    )


def _floor(cell: str) -> dict[str, str]:
    """A price the page writes "from $1.82" (a preset of several sizes) is its lowest."""
    return {"price_listed": cell} if FROM.match(cell) else {}


# The preset's host, by header: the vCPUs and RAM that come with the one GPU priced.
SPEC_COLUMNS = {"vcpus": "vcpus", "ram, gb": "ram_gb"}


def _specs(shown: dict[str, str]) -> dict[str, float | None]:
    return {
        SPEC_COLUMNS[k.lower()]: host_spec(v) for k, v in shown.items() if k.lower() in SPEC_COLUMNS
    }


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Nebius AI Cloud public prices page (HTML): GPU presets per GPU-hour, on-demand, "
        "preemptible (spot) and commitment prices where listed"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Nebius",
    checked=Checked(
        asks="the public prices page",
        against=(
            "**recorded** table data of the page (getcomputable/gpu-index's fixture, an excerpt)"
        ),
        when="2026-08-22",
        rest="the rendered tables (the sample's format) reconstructed",
    ),
    layout=read_by("headers", EXPECTED),
)
parse = SOURCE.parse
