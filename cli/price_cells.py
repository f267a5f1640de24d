"""How a price and its offer are written in every table of prices (prices, cost, compare,
history): the price's decimals, the offer's pricing label and where it is, the fields said once
above a table, and the marks beside a price (an estimate, a doubtful spot price) with their
notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chipcost.cli.fit import plain
from chipcost.core.counting import counted

# DOUBT_MARK after a spot price's pricing model, and doubt_note saying what it means: the
# vocabulary's, which the report marks and says too; the tables import them from here.
from chipcost.core.vocabulary import DOUBT_MARK as DOUBT_MARK
from chipcost.core.vocabulary import PLAN_SHORT, pricing_words
from chipcost.core.vocabulary import doubt_note as doubt_note
from chipcost.transform.rows import number

Row = Mapping[str, object]

# Fields that make up an offer, said once above the table when every row shares them.
FIELDS = {
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
WHERE = ("provider", "region", "zone")
PRICING = ("pricing_model", "term", "payment", "plan")
# Parts of a price that say nothing when shown (an on demand price has no term).
EMPTY = ("", "none", "default")
# After a price no public page gives (the record's extra says so): the mark, and its note.
ESTIMATE_MARK = " est."
# Past this many estimates the note names the first ones and counts the rest, and how the
# table's --wide names each (csv and json name each in their rows' estimate_basis).
_ESTIMATES_LISTED = 4
_WIDE_EACH = " (--wide shows each)"
# Plan words shortened in the pricing label (--wide shows them whole): a 45-character
# "savings plan 3yr, EC2 instance, partial upfront" took the upfront fee's room. The label
# is in the vocabulary's words, as the price explorer says it (vocabulary.pricing_words).
# The short words are the vocabulary's, which reads them back (`--pricing-model`).
SHORT = PLAN_SHORT
SHORT_NOTE = (
    "pricing shortened: std, conv = standard, convertible reserved instance; ec2 = EC2 "
    "instance savings plan (--wide: whole)"
)


def price_text(value: float, per: str = "hour") -> str:
    """'1.2900' an hour, '941.70' a month."""
    from chipcost.reads.price_glance import PRICE_DECIMALS

    return f"{value:,.{PRICE_DECIMALS[per]}f}"


def cell(column: str, value: object, per: str = "hour") -> str:
    """A field's value as a table's cell shows it."""
    from chipcost.reads.your_prices import LIST_COLUMN

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
    for column in FIELDS:
        values = {row[column] for row in rows}
        if len(values) == 1:
            same[column] = cell(column, next(iter(values)))
    return same


def pricing_cell(row: Row, skip: Mapping[str, str] = {}, short: bool = False) -> str:  # noqa: B006
    """'reserved 3yr, std, all upfront': the offer's pricing in the vocabulary's words, less
    the parts said once above the table (`skip`), its plan shortened when `short`."""
    model, term, payment, plan = (_text(row[p]) if p not in skip else None for p in PRICING)
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


def joined(row: Mapping[str, object], parts: tuple[str, ...], skip: dict[str, str]) -> str:
    values = [cell(p, row[p]) for p in parts if p not in skip]
    values = [v for v in values if v not in EMPTY]
    # A zone names its region (us-east-1a): the region would only repeat it.
    if "zone" in parts and row.get("zone") and "region" not in skip:
        values = [v for v in values if v != row["region"] or not str(row["zone"]).startswith(v)]
    return " ".join(values)


def where_cell(row: Row) -> str:
    """'aws us-east-2b', 'verda global': the offer's provider and region (or its zone), as the
    table's "where" says them."""
    return joined(row, WHERE, {})


def estimate_note(rows: Sequence[Row], *, table: bool = True) -> str:
    """What the marked prices are and rest on, each basis said once ('' when none is marked):
    under a table after its mark's legend ('est. = '), past the first bases with how --wide
    names each; csv and json, whose rows say it (estimate, estimate_basis), without either."""
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
        _legend(ESTIMATE_MARK, table)
        + f"an estimate, no price the provider publishes ({counted(len(marked), 'row')}): "
        + "; ".join(said[:_ESTIMATES_LISTED])
        + (f"; and {more:,} more{_WIDE_EACH if table else ''}" if more > 0 else "")
    )


def _legend(mark: str, table: bool) -> str:
    """'(!) = ': what begins a mark's note under a table; nothing in csv and json, whose rows
    carry no mark (a field says it)."""
    return f"{mark.strip()} = " if table else ""
