"""`chipcost prices --by chip|provider|region`: the glance's table, its csv and json rows and
the notes under them (the offers' table, the command itself: cli/commands/prices.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chipcost.cli.consoles import Screen, notices, out, print_fitted
from chipcost.cli.fit import GAP, Column, fit_table, floor, plain
from chipcost.cli.formats import OutputFormat, write_rows
from chipcost.cli.price_cells import (
    DOUBT_MARK,
    ESTIMATE_MARK,
    SHORT_NOTE,
    doubt_note,
    estimate_note,
    price_text,
    pricing_cell,
    where_cell,
)
from chipcost.cli.render import print_note, say_more_rows
from chipcost.cli.render_fresh import print_freshness
from chipcost.core.asks import PRICES
from chipcost.core.questions import Voice
from chipcost.core.vocabulary import GLANCE_KINDS, MODEL_LABELS, gpu_alone_note

if TYPE_CHECKING:  # the table reads rows: neither DuckDB's nor polars' import is needed here
    import polars as pl

    from chipcost.reads.prices import PriceRows
    from chipcost.reads.your_prices import YourPrices


# The glance: `--by chip`, `--by provider`, `--by region`.
_HEADS = {kind: MODEL_LABELS[kind] for kind in GLANCE_KINDS}
# Kept while they fit, most useful first: the prices, and what a row is per, always stay.
_KEEP = ("commitment_terms", "offers")


def per_words(per: str) -> str:
    """'per chip-month (730 hours)': what a price column is per, with the hours it counts."""
    from chipcost.reads.price_glance import PER_HOURS

    if per == "hour":
        return "per chip-hour"
    return f"per chip-{per} ({PER_HOURS[per]:,} hours)"


def print_glance(
    console: Screen,
    rows: Sequence[Mapping[str, object]],
    offers: Sequence[Mapping[str, object]] = (),
    *,
    keys: tuple[str, ...],
    per: str,
    currency: str,
    wide: bool,
) -> None:
    """The glance's rows, the prices' currency and unit said once above them; a doubtful spot
    price marked and said under them with its offer (of `offers`, those whose prices the rows
    show), and the discount each price got where your discounts apply."""
    from chipcost.reads.price_glance import KINDS
    from chipcost.reads.your_prices import DISCOUNT_COLUMN

    # The unit and currency are said once above: the headers stay short enough for 80 columns.
    columns = [
        Column("chip", "chip", essential=True),
        *(Column(k, k, essential=True) for k in keys),
        *(
            Column(f"{k}_per_chip_{per}", _HEADS[k], numeric=True, essential=True, primary=n == 0)
            for n, k in enumerate(KINDS)  # on demand's price stays beside the chip
        ),
        Column("commitment_terms", "commitment is"),
        Column("offers", "offers", numeric=True),
    ]
    discounted = any(f"spot_{DISCOUNT_COLUMN}" in row for row in rows)
    if discounted:
        columns.append(Column(DISCOUNT_COLUMN, "your discount"))
    cells = []
    for row in rows:
        shown = {c.key: _cell(row, c, per) for c in columns if c.key != DISCOUNT_COLUMN}
        if row.get("spot_doubt"):
            shown[f"spot_per_chip_{per}"] += DOUBT_MARK
        if discounted:
            shown[DISCOUNT_COLUMN] = _discounts_cell(row, per)
        cells.append(shown)
    # Where the prices do not fit one line even with the text beside them wrapped (a month's,
    # marked est.), the commitment's price goes under the row with its terms, then spot's: on
    # demand stays beside the chip.
    prices = tuple(c.key for c in columns if c.numeric and c.key != "offers")
    least = sum(floor(c, c.header, [r[c.key] for r in cells], 2) for c in columns if c.essential)
    overflows = least + GAP * (len(keys) + len(prices)) > console.width
    kept = (*_KEEP, DISCOUNT_COLUMN)
    keep = (*prices, *kept) if overflows else kept
    fitted = fit_table(console, columns, cells, keep_order=keep, wide=wide)
    console.say(
        f"cheapest current price {per_words(per)} per {' and '.join(keys)} ({currency}; "
        "blank: none listed)",
    )
    print_fitted(console, fitted)
    marked = sum(len(str(row["estimated"]).split(",")) for row in rows if row.get("estimated"))
    estimates = ESTIMATE_NOTE.format(count=marked) if marked else ""
    spot = [o for o in offers if o["pricing_model"] == "spot"]  # the mark is on spot's price
    for line in (estimates, doubt_note(spot)):
        if line:
            print_note(console, line, label=("note:", ""))


def _discounts_cell(row: Mapping[str, object], per: str) -> str:
    """The discount the row's prices got: one said once where every price shown got it
    ('50% verda deal'), else each kind's ('on demand 10% EDP; spot none')."""
    from chipcost.reads.price_glance import KINDS
    from chipcost.reads.your_prices import DISCOUNT_COLUMN

    got = {
        k: row.get(f"{k}_{DISCOUNT_COLUMN}")
        for k in KINDS
        if row.get(f"{k}_per_chip_{per}") is not None
    }
    if len(set(got.values())) <= 1:
        return plain(next(iter(got.values()), None) or "")
    return plain("; ".join(f"{_HEADS[k]} {d or 'none'}" for k, d in got.items()))


def print_cheapest(
    console: Screen, rows: Sequence[Mapping[str, object]], *, per: str, currency: str, wide: bool
) -> None:
    """`--by chip`: each chip's cheapest offer, where it is, how it is paid and on what
    instance, with how many offers the chip has; estimates and doubtful spot prices marked and
    said under it; where your discounts or currency apply, the list price and the discount
    beside the price."""
    from chipcost.reads.price_glance import list_column
    from chipcost.reads.your_prices import DISCOUNT_COLUMN

    unit = {"hour": "-hr", "month": "-mo", "year": "-yr"}[per]
    listed = list_column(per) in (rows[0] if rows else {})
    discounted = DISCOUNT_COLUMN in (rows[0] if rows else {})
    columns = [
        Column("chip", "chip", essential=True),
        Column("price", "cheapest", numeric=True, essential=True, primary=True),
        *([Column("list", f"list $/chip{unit}", numeric=True)] if listed else []),
        *([Column(DISCOUNT_COLUMN, "your discount")] if discounted else []),
        Column("where", "where", essential=True),
        Column("pricing", "pricing model", essential=True),
        Column("instance_type", "instance"),
        Column("offers", "offers", numeric=True),
    ]
    cells = []
    for row in rows:
        price = price_text(float(str(row[f"price_per_chip_{per}"])), per)
        listed_price = row.get(list_column(per))
        cells.append(
            {
                "chip": plain(row["chip"]),
                "price": price + (ESTIMATE_MARK if row.get("estimate") else ""),
                "list": "" if listed_price is None else price_text(float(listed_price), per),
                DISCOUNT_COLUMN: plain(row.get(DISCOUNT_COLUMN) or ""),
                "where": where_cell(row),
                "pricing": pricing_cell(row, short=not wide)
                + (DOUBT_MARK if row.get("spot_doubt") else ""),
                "instance_type": plain(row["instance_type"]),
                "offers": str(row["offers"]),
            }
        )
    # Where the offer is and how it is paid stay on the row's line, wrapped at need; the
    # instance and the offers, kept while they fit, are folded under it where they do not.
    keep = ("instance_type", "list", DISCOUNT_COLUMN, "offers")
    fitted = fit_table(console, columns, cells, keep_order=keep, wide=wide)
    console.say(
        f"cheapest current offer of each chip {per_words(per)} ({currency}; any provider, "
        "region and pricing model the filters leave)"
    )
    print_fitted(console, fitted)
    shortened = any(
        c["pricing"].removesuffix(DOUBT_MARK) != pricing_cell(r)
        for c, r in zip(cells, rows, strict=True)
    )
    for line in (estimate_note(rows), doubt_note(rows), SHORT_NOTE if shortened else ""):
        if line:
            print_note(console, line, label=("note:", ""))


# The estimates a glance shows: counted; `prices` without --by names what each rests on.
ESTIMATE_NOTE = (
    f"{ESTIMATE_MARK.strip()} = an estimate, no price the provider publishes ({{count:,}} shown; "
    "`prices` without --by names what each rests on)"
)


def _cell(row: Mapping[str, object], column: Column, per: str) -> str:
    from chipcost.reads.price_glance import terms_words

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
    from chipcost.reads.price_glance import PER_HOURS, scale_rows

    scale_rows(rows, hours)
    return next(name for name, h in PER_HOURS.items() if h == hours)


def per_frame(frame: pl.DataFrame, hours: int) -> pl.DataFrame:
    """csv and json per month or year: the hourly columns priced per the unit as the tables
    show them (per_price: to the cent) and named for it (price_per_chip_month)."""
    import polars as pl

    from chipcost.reads.price_glance import PER_HOURS, per_columns, per_price

    per = next(name for name, h in PER_HOURS.items() if h == hours)
    names = {old: new for old, new in per_columns(per).items() if old in frame.columns}
    priced = (
        pl.Series(old, [None if v is None else per_price(v, per) for v in frame[old]], pl.Float64)
        for old in names
    )
    return frame.with_columns(priced).rename(names)


def fields_of(asked: dict[str, Any], mine: YourPrices) -> list[str]:
    """The fields of `--by`'s csv and json rows (chipcost.reads.price_glance.glance_columns)."""
    from chipcost.reads.price_glance import glance_columns

    by, per = asked["by"] or "chip", str(asked["per"] or "hour").strip().lower()
    said = Voice(PRICES).said("by", by)
    return glance_columns(by, per, said=said, currency=mine.currency, mine=mine)


def glance_notes(
    found: PriceRows,
    offers: Sequence[Mapping[str, object]],
    *,
    one_each: bool,
    regions_asked: bool,
    table: bool,
) -> list[str]:
    """What a glance says under its rows, the table's and csv and json's alike (on stderr):
    what your discounts and currency did (`one_each`: each row shows one offer, `--by chip`,
    and the rows applied to are counted), the doubtful spot prices among `offers` (those whose
    prices the rows show) where no table marks them and says them under it (csv and json, not
    `table`: their spot_doubt field says it), what the cheapest left out, the prices no rate
    converts (csv and json name them with the freshness) and the sources that price the GPU
    alone."""
    from chipcost.reads.price_glance import set_apart_note
    from chipcost.reads.price_notes import unconverted_words

    doubts = "" if table else doubt_note(offers, table=False)
    return [
        line
        for line in (
            *found.mine.notes(offers if one_each else ()),
            doubts,
            set_apart_note(found.rows, left_out=True, regions_asked=regions_asked),
            unconverted_words(found.unconverted) if table else "",
            gpu_alone_note((o.get("source"), o.get("instance_type")) for o in offers),
        )
        if line
    ]


def glance_output(
    asked: dict[str, Any], format: OutputFormat, found: PriceRows, *, plain: bool = False
) -> None:
    """`prices --by chip`: one row per chip, its cheapest offer; `--by provider|region`: one
    row per chip and provider (and region), its cheapest on demand, spot and commitment price
    per chip side by side. `plain`: `prices` with no filter, led by chip's, says in one line
    how to list every offer. The notes are the table's in csv and json too, on stderr."""
    from chipcost.reads.price_glance import by_keys, glanced, per_hours, stored_count

    by = asked["by"] or "chip"
    voice = Voice(PRICES)
    per_hours(asked["per"], voice.said("per", asked["per"]))  # refuses a unit it does not know
    per = str(asked["per"] or "hour").strip().lower()
    asked_regions = bool(asked["region"])  # a restricted region answers when named
    table = format is OutputFormat.table
    keys = by_keys(by, voice.said("by", by))
    said = {"one_each": not keys, "regions_asked": asked_regions}
    answered = glanced(
        found.rows,
        by,
        per,
        said=voice.said("by", by),
        regions_asked=asked_regions,
        currency=None if table else found.mine.currency,
        mine=found.mine,
    )
    more = 0 if asked["limit"] is None else max(len(answered) - asked["limit"], 0)
    answered = answered[: len(answered) - more]
    rows = [g.row for g in answered]
    offers = [offer for g in answered for offer in g.offers]
    if table:
        currency = found.mine.heading()
        if keys:
            print_glance(
                out, rows, offers, keys=keys, per=per, currency=currency, wide=asked["wide"]
            )
        else:
            print_cheapest(out, rows, per=per, currency=currency, wide=asked["wide"])
        say_more_rows(out, more)
        for note in glance_notes(found, offers, **said, table=True):
            print_note(out, note, label=("note:", ""))  # none left out unsaid
        if plain:
            out.say(EVERY_OFFER_LINE.format(count=stored_count(found.rows)))
        print_freshness(out, found.freshness)
        return
    columns = fields_of(asked, found.mine)
    write_rows(format, columns, [[r[c] for c in columns] for r in rows])
    say_more_rows(notices(format), more)
    for note in glance_notes(found, offers, **said, table=False):
        notices(format).say(f"note: {note}")
    # rows have no place for a price no rate converts: named on stderr, in its own currency
    print_freshness(notices(format), found.freshness._replace(unconverted=tuple(found.unconverted)))


# Under plain `prices`' glance: how to see what it stands for, every offer (counted once: a
# region's cheapest spot zone's row, which --by offer lists too, is no other offer).
EVERY_OFFER_LINE = "all {count:,} offers: `prices --by offer` (or a filter: --chip H100)"
