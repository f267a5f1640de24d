"""`chipcost prices --by chip`: one row per chip, its cheapest offer anywhere; `--by provider`:
one row per chip and provider, its cheapest on demand, spot and commitment price per chip side
by side (chipcost.reads.price_glance)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chipcost.cli.consoles import Screen, notices, print_fitted
from chipcost.cli.fit import GAP, Column, fit_table, floor, plain
from chipcost.cli.formats import OutputFormat, write_rows
from chipcost.cli.render import print_note
from chipcost.cli.render_fresh import print_freshness
from chipcost.cli.render_prices import (
    ESTIMATE_MARK,
    SHORT_NOTE,
    estimate_note,
    price_text,
    pricing_cell,
    where_cell,
)
from chipcost.core.asks import PRICES
from chipcost.core.questions import Voice
from chipcost.core.vocabulary import GLANCE_KINDS, MODEL_LABELS
from chipcost.reads.price_glance import (
    KINDS,
    PER_HOURS,
    by_keys,
    glance_rows,
    per_columns,
    per_hours,
    scale_rows,
    set_apart_note,
    terms_words,
)
from chipcost.reads.price_notes import unconverted_words

if TYPE_CHECKING:
    import polars as pl

    from chipcost.reads.prices import PriceRows

_HEADS = {kind: MODEL_LABELS[kind] for kind in GLANCE_KINDS}
# Kept while they fit, most useful first: the prices, and what a row is per, always stay.
_KEEP = ("commitment_terms", "offers")


def per_words(per: str) -> str:
    """'per chip-month (730 hours)': what a price column is per, with the hours it counts."""
    if per == "hour":
        return "per chip-hour"
    return f"per chip-{per} ({PER_HOURS[per]:,} hours)"


def print_glance(
    console: Screen,
    rows: Sequence[Mapping[str, object]],
    *,
    keys: tuple[str, ...],
    per: str,
    currency: str,
    wide: bool,
) -> None:
    """The glance's rows, the prices' currency and unit said once above them."""
    # The unit and currency are said once above: the headers stay short enough for 80 columns.
    columns = [
        Column("chip", "chip", essential=True),
        *(Column(k, k, essential=True) for k in keys),
        *(Column(f"{k}_per_chip_{per}", _HEADS[k], numeric=True, essential=True) for k in KINDS),
        Column("commitment_terms", "commitment is"),
        Column("offers", "offers", numeric=True),
    ]
    cells = [{c.key: _cell(row, c, per) for c in columns} for row in rows]
    # Where the prices do not fit one line even with the text beside them wrapped (a month's,
    # marked est.), the commitment's price goes under the row with its terms, then spot's: on
    # demand stays beside the chip.
    prices = tuple(c.key for c in columns if c.numeric and c.key != "offers")
    least = sum(floor(c, c.header, [r[c.key] for r in cells], 2) for c in columns if c.essential)
    overflows = least + GAP * (len(keys) + len(prices)) > console.width
    keep = (*prices, *_KEEP) if overflows else _KEEP
    fitted = fit_table(console, columns, cells, keep_order=keep, wide=wide)
    console.say(
        f"cheapest current price {per_words(per)} per {' and '.join(keys)} ({currency}; "
        "blank: none listed)",
    )
    print_fitted(console, fitted)
    marked = sum(len(str(row["estimated"]).split(",")) for row in rows if row.get("estimated"))
    if marked:
        print_note(console, ESTIMATE_NOTE.format(count=marked), label=("note:", ""))


def print_cheapest(
    console: Screen, rows: Sequence[Mapping[str, object]], *, per: str, currency: str, wide: bool
) -> None:
    """`--by chip`: each chip's cheapest offer, where it is, how it is paid and on what
    instance, with how many offers the chip has; estimates marked and said under it."""
    columns = [
        Column("chip", "chip", essential=True),
        Column("price", "cheapest", numeric=True, essential=True),
        Column("where", "where", essential=True),
        Column("pricing", "pricing model", essential=True),
        Column("instance_type", "instance"),
        Column("offers", "offers", numeric=True),
    ]
    cells = []
    for row in rows:
        price = price_text(float(str(row[f"price_per_chip_{per}"])), per)
        cells.append(
            {
                "chip": plain(row["chip"]),
                "price": price + (ESTIMATE_MARK if row.get("estimate") else ""),
                "where": where_cell(row),
                "pricing": pricing_cell(row, short=not wide),
                "instance_type": plain(row["instance_type"]),
                "offers": str(row["offers"]),
            }
        )
    # Where the offer is and how it is paid stay on the row's line, wrapped at need; the
    # instance and the offers, kept while they fit, are folded under it where they do not.
    fitted = fit_table(console, columns, cells, keep_order=("instance_type", "offers"), wide=wide)
    console.say(
        f"cheapest current offer of each chip {per_words(per)} ({currency}; any provider, "
        "region and pricing model the filters leave)"
    )
    print_fitted(console, fitted)
    shortened = any(c["pricing"] != pricing_cell(r) for c, r in zip(cells, rows, strict=True))
    for line in (estimate_note(rows), SHORT_NOTE if shortened else ""):
        if line:
            print_note(console, line, label=("note:", ""))


# The estimates a glance shows: counted; `prices` without --by names what each rests on.
ESTIMATE_NOTE = (
    f"{ESTIMATE_MARK.strip()} = an estimate, no price the provider publishes ({{count}} shown; "
    "`prices` without --by names what each rests on)"
)


def _cell(row: Mapping[str, object], column: Column, per: str) -> str:
    value = row.get(column.key)
    if value is None:
        return ""
    if isinstance(value, float):
        kind = column.key.removesuffix(f"_per_chip_{per}")
        estimated = kind in str(row.get("estimated") or "").split(",")
        return price_text(value, per) + (ESTIMATE_MARK if estimated else "")
    if column.key == "commitment_terms":  # its codes, in the words every table says them
        return plain(terms_words(str(value)))
    return plain(value) if not column.numeric else str(value)


def per_rows(rows: list[dict[str, object]], hours: int) -> str:
    """The table's rows priced per `hours` (in place); the unit's name."""
    scale_rows(rows, hours)
    return next(name for name, h in PER_HOURS.items() if h == hours)


def per_frame(frame: pl.DataFrame, hours: int) -> pl.DataFrame:
    """csv and json per month or year: the hourly columns scaled and named for the unit
    (price_per_chip_month)."""
    import polars as pl

    per = next(name for name, h in PER_HOURS.items() if h == hours)
    names = {old: new for old, new in per_columns(per).items() if old in frame.columns}
    return frame.with_columns(pl.col(old) * hours for old in names).rename(names)


def glance_output(
    asked: dict[str, Any], format: OutputFormat, found: PriceRows, *, plain: bool = False
) -> None:
    """`prices --by chip`: one row per chip, its cheapest offer; `--by provider|region`: one
    row per chip and provider (and region), its cheapest on demand, spot and commitment price
    per chip side by side. `plain`: `prices` with no filter, led by chip's, says in one line
    how to list every offer."""
    from chipcost.cli.consoles import out

    by = asked["by"] or "chip"
    voice = Voice(PRICES)
    per_hours(asked["per"], voice.said("per", asked["per"]))  # refuses a unit it does not know
    per = str(asked["per"] or "hour").strip().lower()
    asked_regions = bool(asked["region"])  # a restricted region answers when named
    rows = glance_rows(
        found.rows,
        by,
        per,
        said=voice.said("by", by),
        regions_asked=asked_regions,
        currency=None if format is OutputFormat.table else found.mine.currency,
    )
    if asked["limit"] is not None:
        rows = rows[: asked["limit"]]
    if format is OutputFormat.table:
        currency = found.mine.heading()
        keys = by_keys(by, voice.said("by", by))
        if keys:
            print_glance(out, rows, keys=keys, per=per, currency=currency, wide=asked["wide"])
        else:
            print_cheapest(out, rows, per=per, currency=currency, wide=asked["wide"])
        apart = set_apart_note(found.rows, left_out=True, regions_asked=asked_regions)
        for note in (apart, unconverted_words(found.unconverted)):  # none left out unsaid
            if note:
                print_note(out, note, label=("note:", ""))
        if plain:
            out.say(EVERY_OFFER_LINE.format(count=len(found.rows)))
        print_freshness(out, found.freshness)
        return
    columns = list(rows[0]) if rows else []
    write_rows(format, columns, [list(r.values()) for r in rows])
    # rows have no place for a price no rate converts: named on stderr, in its own currency
    print_freshness(notices(format), found.freshness._replace(unconverted=tuple(found.unconverted)))


# Under plain `prices`' glance: how to see what it stands for, every offer a row.
EVERY_OFFER_LINE = "all {count:,} offers, one a row: `prices --by offer` (or a filter: --chip H100)"
