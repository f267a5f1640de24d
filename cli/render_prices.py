"""The `chipcost prices` table: constant columns said once, the essentials always whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from chipcost.cli.consoles import Screen, print_fitted
from chipcost.cli.fit import Column, Line, cell_len, fit_table, plain
from chipcost.cli.render import print_note
from chipcost.cli.render_fresh import print_freshness
from chipcost.core.vocabulary import PLAN_SHORT, gpu_alone_note, pricing_words
from chipcost.reads.price_glance import PRICE_DECIMALS, set_apart_note
from chipcost.reads.price_notes import unconverted_words
from chipcost.reads.your_prices import DISCOUNT_COLUMN, LIST_COLUMN
from chipcost.transform.rows import number

if TYPE_CHECKING:  # the table reads rows: neither DuckDB's nor polars' import is needed here
    from chipcost.reads.prices import PriceRows

Row = Mapping[str, object]

# Fields that make up an offer, said once above the table when every row shares them.
_FIELDS = {
    "chip": "chip",
    "provider": "provider",
    "region": "region",
    "zone": "zone",
    "instance_type": "instance",
    "chip_count": "chip count",
    "pricing_model": "pricing model",
    "term": "term",
    "payment": "payment",
    "plan": "plan",
    "source": "source",
}
_WHERE = ("provider", "region", "zone")
_PRICING = ("pricing_model", "term", "payment", "plan")
# Parts of a price that say nothing when shown (an on demand price has no term).
_EMPTY = ("", "none", "default")
# Under a table cut at its --limit: how to see the rest, or the answer it holds at a glance.
MORE_ROWS = (
    "--by chip gives each chip's cheapest offer in a row; --chip NAME, --provider, --region or "
    "--pricing-model narrow the offers; --limit N shows more"
)
# After a price no public page gives (the record's extra says so): the mark, and its note.
ESTIMATE_MARK = " est."
# After a spot price's pricing model: not below its offer's on-demand price (doubt_note).
DOUBT_MARK = " (!)"
# Past this many estimates the note names the first ones and counts the rest.
_ESTIMATES_LISTED = 4
# Kept at any width: chip, where, pricing and $/chip-hr. Then the instance, the upfront fee and
# the spot interruption bucket (what a price costs and risks), left out in the reverse order
# only where even wrapped they do not fit; beside them, the columns kept while they fit.
KEEP_ORDER = (
    "instance_type", "upfront", "interruption",
    DISCOUNT_COLUMN, LIST_COLUMN, "price_per_hour", "chip_count", "source",
)  # fmt: skip
# Plan words shortened in the pricing label (--wide shows them whole): a 45-character
# "savings plan 3yr, EC2 instance, partial upfront" took the upfront fee's room. The label
# is in the vocabulary's words, as the price explorer says it (vocabulary.pricing_words).
# The short words are the vocabulary's, which reads them back (`--pricing-model`).
SHORT = PLAN_SHORT
SHORT_NOTE = (
    "pricing shortened: std, conv = standard, convertible reserved instance; ec2 = EC2 "
    "instance savings plan (--wide: whole)"
)
_WIDE = (
    Column("chip", "chip"),
    Column("provider", "provider"),
    Column("region", "region"),
    Column("zone", "zone"),
    Column("instance_type", "instance"),
    Column("chip_count", "chip count", numeric=True),
    Column("memory_gb", "GB/chip", numeric=True),
    # The host, where the source publishes it (a column no row has a value in is left out).
    Column("vcpus", "vCPUs", numeric=True),
    Column("ram_gb", "RAM GB", numeric=True),
    Column("disk_gb", "disk GB", numeric=True),
    Column("pricing_model", "pricing model"),
    Column("term", "term"),
    Column("payment", "payment"),
    Column("plan", "plan"),
    Column("price_per_chip_hour", "$/chip-hr", numeric=True),
    Column("price_per_hour", "$/instance-hr", numeric=True),
    Column("upfront", "upfront $", numeric=True),
    Column("interruption", "interruption"),
    Column("source", "source"),
    Column("source_as_of", "as of (UTC)"),
    Column("estimate", "estimate: rests on"),
)


def price_text(value: float, per: str = "hour") -> str:
    """'1.2900' an hour, '941.70' a month."""
    return f"{value:,.{PRICE_DECIMALS[per]}f}"


def cell(column: str, value: object, per: str = "hour") -> str:
    if value is None:
        return ""
    if column in ("price_per_chip_hour", "price_per_hour", LIST_COLUMN):
        return price_text(number(value), per)
    if column == "upfront":
        return f"{value:,.2f}"
    if column in ("chip_count", "memory_gb", "vcpus", "ram_gb", "disk_gb"):
        return f"{value:g}"
    if column == "source_as_of":
        return f"{value:%Y-%m-%d %H:%M}"
    return plain(value)


def constants(rows: Sequence[Row]) -> dict[str, str]:
    """Offer fields with one value in every row (said once, not repeated per row)."""
    same = {}
    for column in _FIELDS:
        values = {row[column] for row in rows}
        if len(values) == 1:
            same[column] = cell(column, next(iter(values)))
    return same


def pricing_cell(row: Row, skip: Mapping[str, str] = {}, short: bool = False) -> str:  # noqa: B006
    """'reserved 3yr, std, all upfront': the offer's pricing in the vocabulary's words, less
    the parts said once above the table (`skip`), its plan shortened when `short`."""
    model, term, payment, plan = (_text(row[p]) if p not in skip else None for p in _PRICING)
    if short and plan is not None:
        plan = SHORT.get(plan, plan)
    # A term of none, never printed, is meant ('reserved, no term, at on-demand rate') unless
    # the header says the model and the term both.
    if "pricing_model" not in skip or "term" not in skip:
        model = _text(row["pricing_model"])
        if row["term"] == "none":
            term = "none"
    return plain(pricing_words(model, term, payment, plan, model_said="pricing_model" not in skip))


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _joined(row: Mapping[str, object], parts: tuple[str, ...], skip: dict[str, str]) -> str:
    values = [cell(p, row[p]) for p in parts if p not in skip]
    values = [v for v in values if v not in _EMPTY]
    # A zone names its region (us-east-1a): the region would only repeat it.
    if "zone" in parts and row.get("zone") and "region" not in skip:
        values = [v for v in values if v != row["region"] or not str(row["zone"]).startswith(v)]
    return " ".join(values)


def where_cell(row: Row) -> str:
    """'aws us-east-2b', 'verda global': the offer's provider and region (or its zone), as the
    table's "where" says them."""
    return _joined(row, _WHERE, {})


def _columns(rows: Sequence[Row], same: dict[str, str]) -> list[Column]:
    varying = [c for c in _FIELDS if c not in same]
    columns = []
    if "chip" in varying:
        columns.append(Column("chip", "chip", essential=True))
    if any(c in varying for c in _WHERE):
        columns.append(Column("where", "where", essential=True))
    if any(c in varying for c in _PRICING):
        columns.append(Column("pricing", "pricing model", essential=True))
    if "instance_type" in varying:
        # What tells two offers of one provider and region apart: kept on any screen.
        columns.append(Column("instance_type", "instance", essential=True))
    if "chip_count" in varying:
        columns.append(Column("chip_count", "chip count", numeric=True))
    columns.append(Column("price_per_chip_hour", "$/chip-hr", numeric=True, essential=True))
    columns.append(Column("price_per_hour", "$/instance-hr", numeric=True))
    if any((row["upfront"] or 0) > 0 for row in rows):
        columns.append(Column("upfront", "upfront $", numeric=True, essential=True))
    if any(row.get("interruption") for row in rows):
        # AWS's frequency of interruption bucket (Spot Instance Advisor) beside a spot price.
        columns.append(Column("interruption", "interruption", essential=True))
    if "source" in varying:
        columns.append(Column("source", "source"))
    return columns


def _shown(rows: Sequence[Row], same: dict[str, str], per: str) -> list[dict[str, str]]:
    cells = []
    for row in rows:
        shown = {key: cell(key, value, per) for key, value in row.items()}
        shown["where"] = _joined(row, _WHERE, same)
        shown["pricing"] = pricing_cell(row, same, short=True)
        if row.get("estimate"):
            shown["price_per_chip_hour"] += ESTIMATE_MARK
        if row.get("spot_doubt"):
            shown["pricing"] += DOUBT_MARK
        cells.append(shown)
    return cells


def doubt_note(rows: Sequence[Row]) -> str:
    """What the spot prices marked doubtful are ('' when none is)."""
    marked = [row for row in rows if row.get("spot_doubt")]
    if not marked:
        return ""
    named = [f"{row['provider']} {row['region']} {row['instance_type']}" for row in marked]
    more = len(named) - _ESTIMATES_LISTED
    return (
        f"{DOUBT_MARK.strip()} = a spot price not below its offer's on-demand price (no "
        f"discount: stale or mislabelled at the source; {len(marked)} row"
        f"{'s' if len(marked) != 1 else ''}): "
        + "; ".join(dict.fromkeys(named[:_ESTIMATES_LISTED]))
        + (f"; and {more} more" if more > 0 else "")
    )


def estimate_note(rows: Sequence[Row]) -> str:
    """What the marked prices are and rest on, each basis said once ('' when none is marked)."""
    marked = [row for row in rows if row.get("estimate")]
    if not marked:
        return ""
    offers: dict[str, dict[str, None]] = {}
    for row in marked:
        basis = row.get("estimate_basis") or row["estimate"]  # cost rows: a flag and its basis
        offers.setdefault(str(basis), {})[f"{row['provider']} {row['instance_type']}"] = None
    said = [f"{', '.join(names)}: {basis}" for basis, names in offers.items()]
    more = len(said) - _ESTIMATES_LISTED
    return (
        f"{ESTIMATE_MARK.strip()} = an estimate, no price the provider publishes "
        f"({len(marked)} row{'s' if len(marked) != 1 else ''}): "
        + "; ".join(said[:_ESTIMATES_LISTED])
        + (f"; and {more} more (--wide shows each)" if more > 0 else "")
    )


def _has_values(rows: Sequence[Row], column: str) -> bool:
    return any(row[column] is not None and str(row[column]) != "" for row in rows)


def _yours(columns: list[Column], result: PriceRows) -> list[Column]:
    """The price columns named in your currency, and your discount beside the list price."""
    mine = result.mine
    if not mine.active:
        return columns
    money = mine.currency
    named = [
        replace(
            c, header=c.header.replace("$/", f"{money}/").replace("upfront $", f"upfront {money}")
        )
        for c in columns
    ]
    at = next(i for i, c in enumerate(named) if c.key == "price_per_chip_hour") + 1
    extra = [Column(LIST_COLUMN, "list $/chip-hr", numeric=True)]
    if mine.discounts is not None:
        extra.append(Column(DISCOUNT_COLUMN, "your discount"))
    return named[:at] + extra + named[at:]


def _per_headers(columns: list[Column], per: str) -> list[Column]:
    """'$/chip-hr' as '$/chip-mo' or '$/chip-yr' when the prices are per month or year."""
    unit = {"hour": "-hr", "month": "-mo", "year": "-yr"}[per]
    return [replace(c, header=c.header.replace("-hr", unit)) for c in columns]


def _per_words(per: str) -> str:
    """', per month of 730 hours': said beside the currency when the prices are not hourly."""
    from chipcost.reads.price_glance import PER_HOURS

    return "" if per == "hour" else f", per {per} of {PER_HOURS[per]:,} hours"


def _shortened(rows: Sequence[Row], same: dict[str, str]) -> bool:
    """Whether a pricing label shown was shortened."""
    parts = [p for p in ("payment", "plan") if p not in same]
    return any(row[p] in SHORT for row in rows for p in parts)


def _said_once(same: dict[str, str]) -> list[tuple[str, str]]:
    """The header's fields and values: the pricing parts every row shares in the words the
    table's pricing column says them ('pricing model savings plan 1yr', 'payment all upfront'),
    the model's in one label with it; the other fields as they are; none that says nothing."""
    pairs = []
    for key, value in same.items():
        if value in _EMPTY or (key in _PRICING[1:] and _PRICING[0] in same):
            continue
        if key in _PRICING:
            taken = _PRICING if key == _PRICING[0] else (key,)
            value = pricing_words(*(same.get(p) if p in taken else None for p in _PRICING))
        pairs.append((_FIELDS[key], value))
    return pairs


def _header(same: dict[str, str], width: int) -> list[Line]:
    """'chip H100-SXM   provider aws ...': each field's name, then its one value in bold; a
    field and its value kept on one line, the lines after the first indented."""
    indent: Line = [("  ", "")]
    lines: list[Line] = []
    line: Line = []
    for name, value in _said_once(same):
        pair = [(f"{name} ", ""), (value, "bold")]
        if line and cell_len("".join(t for t, _ in line) + f"   {name} {value}") > width:
            lines.append(line)
            line = list(indent)
        line += [*([("   ", "")] if line and line != indent else []), *pair]
    return [*lines, line] if line else lines


def print_prices(
    console: Screen, result: PriceRows, *, limit: int, wide: bool, per: str = "hour"
) -> None:
    """The prices (at most `limit` rows, already priced per `per`: hour, month or year),
    what they share, and how fresh they are."""
    rows = result.rows
    shown = rows[:limit]
    same: dict[str, str] = {}
    if wide:
        columns = [c for c in _WIDE if _has_values(shown, c.key)]
    else:
        same = constants(rows)
        columns = _columns(shown, same)
    columns = _per_headers(_yours(columns, result), per)
    fitted = fit_table(console, columns, _shown(shown, same, per), keep_order=KEEP_ORDER, wide=wide)
    console.say(f"current per-chip prices ({result.mine.heading()}{_per_words(per)})")
    for line in _header(same, console.width):
        console.line(line)
    print_fitted(console, fitted)
    if len(rows) > limit:
        console.say(f"{len(rows) - limit} more rows: {MORE_ROWS}")
    short = not wide and _shortened(shown, same)
    alone = gpu_alone_note(row.get("source") for row in shown)
    for line in [
        *result.mine.notes(rows),
        estimate_note(shown),
        doubt_note(shown),
        unconverted_words(result.unconverted),
        set_apart_note(shown),
        alone,
        SHORT_NOTE if short else "",
    ]:
        if line:  # provider text: never markup, wrapped to the width
            print_note(console, line, label=("note:", ""))
    print_freshness(console, result.freshness)
