"""`chipcost prices`: current per-chip prices from the warehouse, without Prefect: its
options (the fields of chipcost.core.asks.PRICES), the table of every offer, the glance
(`--by chip|provider|region`: one row a chip, or a chip and provider) and csv, json and FOCUS.
The question is chipcost.reads.prices'; its ask and checks reads.price_ask', its notes
reads.price_notes'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chipcost.cli.commands.prices_glance import fields_of, glance_output, per_frame, per_rows
from chipcost.cli.consoles import Screen, notices, out, print_fitted
from chipcost.cli.fit import Column, Line, cell_len, fit_table
from chipcost.cli.formats import OutputFormat, write_rows
from chipcost.cli.parser import Command
from chipcost.cli.price_cells import (
    DOUBT_MARK,
    EMPTY,
    ESTIMATE_MARK,
    FIELDS,
    PRICING,
    SHORT,
    SHORT_NOTE,
    WHERE,
    Row,
    cell,
    constants,
    doubt_note,
    estimate_note,
    joined,
    pricing_cell,
)
from chipcost.cli.render import print_note, say_more_rows
from chipcost.cli.render_fresh import print_freshness
from chipcost.core.asks import DEFAULT_TABLE_ROWS, PRICES
from chipcost.core.counting import counted
from chipcost.core.errors import NoMatch, UsageError
from chipcost.core.questions import Voice
from chipcost.core.vocabulary import gpu_alone_note, pricing_words

if TYPE_CHECKING:  # the table reads rows: neither DuckDB's nor polars' import is needed here
    from chipcost.reads.prices import PriceRows


def _prices(**given: Any) -> None:
    """`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect.
    Its options are the fields of chipcost.core.asks.PRICES."""
    asked = PRICES.given(given)
    focus = asked["format"] == "focus"  # the frame, under FOCUS's column names
    format = OutputFormat.csv if focus else OutputFormat(asked["format"])
    limit = asked["limit"]
    from chipcost.reads import answers
    from chipcost.reads.price_glance import every_offer, per_hours
    from chipcost.reads.price_notes import unmatched_names

    hours = per_hours(asked["per"], Voice(PRICES).said("per", asked["per"]))
    bounds_said = _bound_notes(asked, hours)
    table = format is OutputFormat.table
    # A table asked nothing but `prices` leads with each chip's cheapest offer (--by chip);
    # any filter, --sort or --limit, `--by offer`, and csv, json and focus (scripts read them)
    # list every offer.
    plain = table and asked["by"] is None and not _narrowed(asked)
    asked["by"] = "chip" if plain else None if every_offer(asked["by"]) else asked["by"]
    if focus and (hours != 1 or asked["by"] is not None):  # FOCUS's columns are its own
        said = "--by" if asked["by"] is not None else "--per"
        raise UsageError(
            f"{said} with --format focus: FOCUS's columns are hourly, one per "
            "offer; give --format csv or json"
        )
    # The table and the glance read rows (no polars to import); csv and json write the frame.
    answer = answers.prices(asked, rows=table or asked["by"] is not None)
    found, ask, empty = answer.found, answer.ask, answer.empty
    mine = found.mine
    for said in bounds_said:  # once the bounds are taken: no note before a refusal
        notices(format).say(f"note: {said}")
    if asked["by"] is not None:
        _hints(notices(format), ask.hints)
        if empty and not table:  # [] or the header: a pipe still parses
            write_rows(format, fields_of(asked, mine), [])
        if empty:
            raise NoMatch(empty)
        glance_output(asked, format, found, plain=plain)
        return
    if table:
        _hints(out, ask.hints)
        if empty:
            raise NoMatch(empty)
        per = per_rows(found.rows, hours)
        print_prices(out, found, limit=limit or DEFAULT_TABLE_ROWS, wide=asked["wide"], per=per)
        _no_rows_for(out, unmatched_names(ask["chip"], {str(r["chip"]) for r in found.rows}))
        return
    from chipcost.cli.formats import with_currency, write_frame

    frame = found.frame if limit is None else found.frame.head(limit)
    # The table's note under the rows written, whose gpu_alone (FOCUS's x_GpuAlone) marks it.
    alone = gpu_alone_note(frame.select("source", "instance_type").iter_rows())
    if not focus:
        frame = with_currency(frame, mine.currency)
    if hours != 1:
        frame = per_frame(frame, hours)
    if focus:
        from chipcost.transform.focus import focus_frame, focus_text_times

        frame = focus_text_times(focus_frame(frame.to_dicts()))
    write_frame(format, frame)  # when empty, [] or the header: a pipe still parses
    _hints(notices(format), ask.hints)
    if empty:
        raise NoMatch(empty)
    _no_rows_for(notices(format), unmatched_names(ask["chip"], set(found.frame["chip"])))
    for line in [*mine.notes(found.frame.to_dicts()), alone]:
        if line:
            notices(format).say(f"note: {line}")
    say_more_rows(notices(format), found.frame.height - frame.height)
    print_freshness(notices(format), found.freshness)


def _narrowed(asked: dict[str, Any]) -> bool:
    """Whether `prices` was asked for any filter of its offers, an order or a count."""
    given = [f.name for f in PRICES.fields if f.query is not None and f.narrows]
    return any(asked[name] not in (None, "", [], ()) for name in (*given, "sort", "limit"))


def _bound_notes(asked: dict[str, Any], hours: int) -> list[str]:
    """What a price bound is read as: per chip-month or -year with --per, as the table's
    cells (chipcost.reads.price_ask reads it per chip-hour); with --currency, in that currency,
    as the cells (the bound is on the prices shown). None for a bound that is no amount
    (chipcost.reads.price_ask says why)."""
    from chipcost.reads.price_ask import amount_as_printed

    said = []
    currency = str(asked.get("currency") or "USD").strip().upper()
    for name in ("min_price", "max_price"):
        value = asked[name]
        number = amount_as_printed(str(value), "$") if isinstance(value, str) else value
        if value is None or not isinstance(number, int | float):
            continue
        option = Voice(PRICES).said(name, value)
        if hours != 1:
            said.append(
                f"{option} is per chip-{str(asked['per']).lower()}, as the table's prices: "
                f"{number / hours:.4f} per chip-hour"
            )
        if currency not in ("USD", "$"):
            said.append(f"{option} is in {currency}, as the table's prices")
    return said


def _hints(console, hints: tuple[str, ...]) -> None:
    """What a name was read as (an instance type given as a chip), before the answer."""
    for hint in hints:
        console.say(f"note: {hint}")


def _no_rows_for(console, names: list[str]) -> None:
    """A note for each chip asked for, of several, that no current price matched."""
    if names:
        console.say(f"note: no current price of {', '.join(names)} matches these filters")


prices = Command("prices", PRICES, _prices)


# The table of every offer (`--by offer`, or any filter).
# Under a table cut at its --limit: how to see the rest, or the answer it holds at a glance.
MORE_ROWS = (
    "--by chip gives each chip's cheapest offer in a row; --chip NAME, --provider, --region or "
    "--pricing-model narrow the offers; --limit N shows more"
)


def keep_order() -> tuple[str, ...]:
    """Kept at any width: chip, where, pricing and $/chip-hr. Then the instance, the upfront
    fee and the spot interruption bucket (what a price costs and risks), left out in the
    reverse order only where even wrapped they do not fit; beside them, the columns kept
    while they fit."""
    from chipcost.reads.your_prices import DISCOUNT_COLUMN, LIST_COLUMN

    return (
        "instance_type", "upfront", "interruption",
        DISCOUNT_COLUMN, LIST_COLUMN, "price_per_hour", "chip_count", "source",
    )  # fmt: skip


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


def _columns(rows: Sequence[Row], same: dict[str, str]) -> list[Column]:
    varying = [c for c in FIELDS if c not in same]
    columns = []
    if "chip" in varying:
        columns.append(Column("chip", "chip", essential=True))
    if any(c in varying for c in WHERE):
        columns.append(Column("where", "where", essential=True))
    if any(c in varying for c in PRICING):
        columns.append(Column("pricing", "pricing model", essential=True))
    if "instance_type" in varying:
        # What tells two offers of one provider and region apart: kept on any screen.
        columns.append(Column("instance_type", "instance", essential=True))
    if "chip_count" in varying:
        columns.append(Column("chip_count", "chip count", numeric=True))
    # The price the table is ranked by: on the row's line at any width; the instance's price
    # and chip count beside it only while every essential column is on that line too.
    columns.append(
        Column("price_per_chip_hour", "$/chip-hr", numeric=True, essential=True, primary=True)
    )
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
        shown["where"] = joined(row, WHERE, same)
        shown["pricing"] = pricing_cell(row, same, short=True)
        if row.get("estimate"):
            shown["price_per_chip_hour"] += ESTIMATE_MARK
        if row.get("spot_doubt"):
            shown["pricing"] += DOUBT_MARK
        cells.append(shown)
    return cells


def _has_values(rows: Sequence[Row], column: str) -> bool:
    return any(row[column] is not None and str(row[column]) != "" for row in rows)


def _yours(columns: list[Column], result: PriceRows) -> list[Column]:
    """The price columns named in your currency, and your discount beside the list price."""
    from chipcost.reads.your_prices import DISCOUNT_COLUMN, LIST_COLUMN

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
        if value in EMPTY or (key in PRICING[1:] and PRICING[0] in same):
            continue
        if key in PRICING:
            taken = PRICING if key == PRICING[0] else (key,)
            value = pricing_words(*(same.get(p) if p in taken else None for p in PRICING))
        pairs.append((FIELDS[key], value))
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
    from chipcost.reads.price_glance import set_apart_note
    from chipcost.reads.price_notes import unconverted_words

    rows = result.rows
    shown = rows[:limit]
    same: dict[str, str] = {}
    if wide:
        columns = [c for c in _WIDE if _has_values(shown, c.key)]
    else:
        same = constants(rows)
        columns = _columns(shown, same)
    columns = _per_headers(_yours(columns, result), per)
    fitted = fit_table(
        console, columns, _shown(shown, same, per), keep_order=keep_order(), wide=wide
    )
    console.say(f"current per-chip prices ({result.mine.heading()}{_per_words(per)})")
    for line in _header(same, console.width):
        console.line(line)
    print_fitted(console, fitted)
    if len(rows) > limit:
        console.say(f"{counted(len(rows) - limit, 'more row')}: {MORE_ROWS}")
    short = not wide and _shortened(shown, same)
    alone = gpu_alone_note((row.get("source"), row.get("instance_type")) for row in shown)
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
