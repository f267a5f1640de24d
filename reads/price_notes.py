"""What a price read says beside its rows: the chips asked for that no row matched, the prices
no rate converts, and, where nothing matched, why and where the prices are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.catalog import UNKNOWN_CHIP, unpublished_prices
from chipcost.core.commands import suggested
from chipcost.core.names import resolve_chip_name, split_values
from chipcost.core.vocabulary import MODEL_LABELS, PRICING_MODELS
from chipcost.reads.price_ask import (
    COLUMNS,
    KINDS,
    QUERIED,
    known_part,
    named_filters_of,
    query_filters,
)
from chipcost.warehouse.fx import Unrated, unrated
from chipcost.warehouse.prices import chip_values, known_values, per_chip_price_rows

if TYPE_CHECKING:
    from chipcost.reads.price_ask import PriceAsk


def unmatched_names(names: Sequence[str] | str | None, shown: set[str]) -> list[str]:
    """The typed chip names (of several) none of whose chips has a row among `shown`: 'K80'
    in 'H100-SXM,K80', where the rows would otherwise leave it out without a word."""
    typed = split_values(names, "chip name") or []
    if len(typed) < 2:
        return []
    return [n for n in typed if not set(resolve_chip_name(n)) & shown]


# The prices no rate converts that a message names one by one; the rest are counted.
_UNCONVERTED_LISTED = 5


def unconverted_words(
    rows: Sequence[dict[str, object]], *, why: bool = True, listed: int = _UNCONVERTED_LISTED
) -> str:
    """The prices no rate converts (warehouse.fx.unrated_offers), each in its own currency:
    kept and said, not left out ('' when there are none), the first `listed` named and the
    rest counted; without `why`, the list alone."""
    from chipcost.core.commands import RATES
    from chipcost.core.vocabulary import code_words
    from chipcost.transform.tokens import money_sign
    from chipcost.warehouse.fx import MAX_RATE_AGE_DAYS

    if not rows:
        return ""
    said = [
        f"{row['chip']} {row['provider']} {row['region']} {row['instance_type']} "
        f"{code_words(str(row['pricing_model']))}: {money_sign(str(row['currency']))}"
        f"{float(row['price_per_chip_hour']):,.4f} a chip-hour {_days(row)}"  # type: ignore[arg-type]
        for row in rows[:listed]
    ]
    more = len(rows) - len(said)
    listed = "; ".join(said) + (f"; and {more} more" if more > 0 else "")
    if not why:
        return listed
    return (
        f"not in this table, no ECB rate within {MAX_RATE_AGE_DAYS} days of their day "
        f"converting them to US dollars ({len(rows)} price{'s' if len(rows) != 1 else ''}, "
        f"in their own currency; `{RATES}` fetches the rates): {listed}"
    )


def left_out_words(left: Unrated, rows: Sequence[dict[str, object]]) -> str:
    """What a read left out for want of a rate (`left`), then each of `rows` in its own
    currency with its days (unconverted_words): what the command line says under the rows and
    the Python API warns ('' for nothing)."""
    if not left.count:
        return ""
    return left.said() + (
        f". In their own currency: {unconverted_words(rows, why=False)}" if rows else ""
    )


def _days(row: dict[str, object]) -> str:
    """'on 2026-11-01', or of a span of the history 'from 2026-10-20 to 2026-11-01'."""
    first = row.get("first_day")
    if first is not None and first != row["day"]:
        return f"from {first} to {row['day']}"
    return f"on {row['day']}"


# A warehouse no collection has loaded a price into yet: every read and the explorer say so.
NO_PRICES_YET = "the warehouse has no current prices yet: run `chipcost collect`"


def why_empty(
    con: duckdb.DuckDBPyConnection, chips: list[str] | None, ask: PriceAsk | None = None
) -> str:
    """A message for a query that matched no current price: prices left out for want of a
    rate, which part of it has none, or which filter, dropped alone, would give prices."""
    providers = named_filters_of(ask)["providers"] if ask is not None else None
    left = unrated(con, chips=chips, providers=providers)
    if left.count:
        from chipcost.warehouse.fx import unrated_offers

        kept = unrated_offers(con, chips=chips, providers=providers)
        listed = unconverted_words(kept, why=False)
        return (
            f"no current price in US dollars matches: {left.said()}. In their own currency: "
            f"{listed}"
        )
    priced = known_values(con, "chip")
    if not priced:
        return NO_PRICES_YET
    unpriced = [c for c in chips or [] if c not in priced]
    if chips and len(unpriced) == len(chips):
        return (
            f"no current prices for {', '.join(unpriced)}: no source lists "
            f"{'it' if len(unpriced) == 1 else 'them'} today. {unpublished_words(unpriced)}"
            f"Chips with prices: {', '.join(c for c in priced if c != UNKNOWN_CHIP)}"
        )
    if ask is not None and (found := _without_one(con, ask)):
        return (
            "no current price matches all of these filters; some match without "
            f"{', or without '.join(found)}{held_elsewhere(con, chips, named_filters_of(ask))}"
        )
    return (
        "no current price matches all of these filters; widen them "
        f"({suggested('prices', help=True)})"
    )


# How a chip's prices are placed, by named filter: "in regions us-east-2, us-west-2".
_PLACED = {"regions": "in", "providers": "from", "pricing_models": "as"}


def _model_rank(model: str) -> int:
    return PRICING_MODELS.index(model) if model in PRICING_MODELS else len(PRICING_MODELS)


def held_elsewhere(
    con: duckdb.DuckDBPyConnection,
    chips: Sequence[str] | None,
    named: Mapping[str, list[str] | None],
    table: str = "per_chip_prices",
) -> str:
    """'; Trainium2's prices are in regions us-east-2, us-west-2' for each region, provider or
    pricing model filter that no price of the named `chips` meets, else '': where to look."""
    if not chips:
        return ""
    said = []
    for key, placed in _PLACED.items():
        wanted = {str(v).lower() for v in known_part(key, named.get(key) or ())}
        if not wanted:
            continue
        held = chip_values(con, chips, COLUMNS.get(key, key.removesuffix("s")), table)
        if held and not wanted & {h.lower() for h in held}:
            kind = KINDS[key] + ("s" if len(held) > 1 else "")
            if key == "pricing_models":  # in their words, list price first
                held = [MODEL_LABELS.get(m, m) for m in sorted(held, key=_model_rank)]
            more = f" and {len(held) - 12} more" if len(held) > 12 else ""
            said.append(f"{placed} {kind} {', '.join(held[:12])}{more}")
    if not said:
        return ""
    now = "current " if table == "per_chip_prices" else ""
    return f"; {', '.join(chips)}'s {now}prices are {', and '.join(said)}"


def unpublished_words(chips: Sequence[str]) -> str:
    """'Trainium3: price not published (source, date: "words"). ' for each chip whose seller
    publishes no rental price (unpublished_prices.csv), else ''."""
    found = unpublished_prices()
    return "".join(
        f"{chip}: price {found[chip]['status']} ({found[chip]['source']}, "
        f'{found[chip]["date"]}: "{found[chip]["words"]}"). '
        for chip in chips
        if chip in found
    )


def _without_one(con: duckdb.DuckDBPyConnection, ask: PriceAsk) -> list[str]:
    """Each filter given (of two or more) without which some current price matches."""
    given = [f.name for f in QUERIED if f.narrows and ask[f.name] not in (None, "", [], ())]
    if len(given) < 2:
        return []
    found = []
    for name in given:
        rest = ask.without(name)
        if per_chip_price_rows(con, **query_filters(rest, named_filters_of(rest))):
            found.append(_shown_filter(ask, name))
    return found


def _shown_filter(ask: PriceAsk, name: str) -> str:
    value = ask[name]
    if isinstance(value, list | tuple):
        value = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    elif isinstance(value, float):
        value = f"{value:g}"
    return ask.voice.said(name, value)
