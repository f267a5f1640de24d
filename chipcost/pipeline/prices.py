"""What `chipcost prices` and chipcost.prices() do: check the filters, query, date the prices."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.core.names import (
    check_known,
    provider_names,
    python_name,
    resolve_chip_name,
    resolve_chip_names,
    split_values,
)
from chipcost.core.vocabulary import PRICING_MODELS, TERMS
from chipcost.pipeline.your_prices import YourPrices
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.prices import known_values, per_chip_price_rows, per_chip_prices

if TYPE_CHECKING:  # frames for the API, csv and json; the terminal table reads rows
    import polars as pl

# The money of a price row: what your discounts and currency change.
MONEY = ("price_per_chip_hour", "price_per_hour", "upfront")
# Columns the read adds to the warehouse's: when the row's source last succeeded (what dates
# the price) and whether that run was the bundled sample.
FRESHNESS_COLUMNS = ("source_as_of", "sample")


@dataclass(frozen=True)
class PriceAsk:
    """Filters as a user gives them: names may be families or comma lists, any case."""

    chips: Sequence[str] | str | None = None
    regions: Sequence[str] | str | None = None
    pricing_models: Sequence[str] | str | None = None
    providers: Sequence[str] | str | None = None
    min_memory_gb: float | None = None
    chip_counts: Sequence[float] | float | None = None
    min_price: float | None = None
    max_price: float | None = None
    spot: bool | None = None
    # chip | price | provider | region; None: cheapest first when the chip names stand for
    # more than one chip (a family, "H100"), else by chip
    sort: str | None = None
    api: bool = False  # messages name the Python API's parameters (max_price=), not options


def _named(ask: PriceAsk, option: str, value: object) -> str:
    """'--max-price 3' on the command line, 'max_price=3' from the Python API."""
    if ask.api:
        return f"{python_name(option)}={value}"
    return f"{option} {value}"


@dataclass(frozen=True)
class PriceResult:
    frame: pl.DataFrame  # every matching current price, cheapest first within chip, model and term
    freshness: Freshness  # of the sources in `frame`
    chips: list[str] | None  # the canonical chips the names asked for stood for
    mine: YourPrices = YourPrices()  # your discounts and currency, applied to `frame`


@dataclass(frozen=True)
class PriceRows:
    """The same as PriceResult, as rows (column -> value): what a terminal table reads."""

    rows: list[dict[str, object]]
    freshness: Freshness
    chips: list[str] | None
    mine: YourPrices = YourPrices()


def pricing_model_name(value: str) -> str:
    """'On-Demand' -> 'on_demand': the warehouse spells pricing models in snake case."""
    return value.strip().lower().replace("-", "_").replace(" ", "_")


def _number(ask: PriceAsk, option: str, value: float | None, *, low: float = 0.0) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ChipcostError(f"{_named(ask, option, repr(value))}: give a number, e.g. 3.5")
    if not math.isfinite(value) or value < low:
        raise ChipcostError(
            f"{_named(ask, option, repr(value))}: give a finite number of {low:g} or more"
        )
    return float(value)


def _counts(ask: PriceAsk, values: Sequence[float] | float | None) -> list[float] | None:
    if values is None:
        return None
    items = [values] if isinstance(values, int | float | str) else list(values)
    counts = []
    for item in split_values(items, "chip count") or []:
        try:
            count = float(item)
        except ValueError:
            count = math.nan
        if not math.isfinite(count) or count <= 0 or count > 1e6:
            raise ChipcostError(
                f"{_named(ask, '--chips', repr(item))}: give the chips per instance, 1 or more, "
                "e.g. 8"
            )
        counts.append(count)
    return counts or None


_KINDS = {"regions": "region", "pricing_models": "pricing model", "providers": "provider"}


def named_filters(
    regions: Sequence[str] | str | None,
    pricing_models: Sequence[str] | str | None,
    providers: Sequence[str] | str | None,
) -> dict[str, list[str] | None]:
    """The filters as the warehouse spells them: lists split, pricing models in snake case,
    a company name read as its cloud."""
    return {
        "regions": split_values(regions, "region"),
        "pricing_models": [
            pricing_model_name(m) for m in split_values(pricing_models, "pricing model") or []
        ]
        or None,
        "providers": provider_names(split_values(providers, "provider")),
    }


def check_named(
    con: duckdb.DuckDBPyConnection,
    named: dict[str, list[str] | None],
    seen: Sequence[dict] = (),
    known: Callable[[duckdb.DuckDBPyConnection, str], list[str]] = known_values,
    held: tuple[str, str] = ("no current price is in", "current prices are in"),
) -> None:
    """Refuse an unknown region, pricing model or provider with the closest known values
    (`known` lists a column's values: the current prices' by default, whose name is `held`).
    A value among `seen` (rows the filters matched) is known without asking the warehouse
    again. A region may be real without prices: it is said to have none, not to be unknown."""
    for key, values in named.items():
        if not values:
            continue
        column = key.removesuffix("s")
        shown = {str(r[column]).lower() for r in seen}
        unseen = [v for v in values if v.lower() not in shown]
        if unseen:
            among = known(con, column)
            check_known(_KINDS[key], unseen, among, held=held if key == "regions" else None)


def checked_filters(
    con: duckdb.DuckDBPyConnection,
    regions: Sequence[str] | str | None,
    pricing_models: Sequence[str] | str | None,
    providers: Sequence[str] | str | None,
) -> dict[str, list[str] | None]:
    """Region, pricing model and provider filters split and checked against the current
    prices: an unknown one is refused with the closest known values."""
    named = named_filters(regions, pricing_models, providers)
    check_named(con, named)
    return named


def _filters(ask: PriceAsk, named: dict[str, list[str] | None]) -> dict:
    """The filters as per_chip_prices takes them, numbers and chips checked; the names
    (`named`: regions, pricing models, providers) are checked by check_named."""
    low = _number(ask, "--min-price", ask.min_price)
    high = _number(ask, "--max-price", ask.max_price)
    if low is not None and high is not None and low > high:
        raise ChipcostError(
            f"{_named(ask, '--min-price', f'{low:g}')} is above "
            f"{_named(ask, '--max-price', f'{high:g}')}"
        )
    chips = resolve_chip_names(ask.chips)
    return {
        "chips": chips,
        "sort": _sort(ask, chips),
        "regions": named["regions"],
        "models": named["pricing_models"],
        "providers": named["providers"],
        "min_memory_gb": _number(ask, "--min-memory", ask.min_memory_gb),
        "chip_counts": _counts(ask, ask.chip_counts),
        "min_price": low,
        "max_price": high,
        "spot": ask.spot,
    }


def _sort(ask: PriceAsk, chips: list[str] | None) -> str:
    """The order asked for, or the default: cheapest first across a family's variants (the
    alphabetically first variant would fill the page), else by chip."""
    from chipcost.warehouse.prices import SORTS

    if ask.sort is None:
        return "price" if chips is not None and len(chips) > 1 else "chip"
    wanted = str(ask.sort).strip().lower()
    if wanted not in SORTS:
        raise ChipcostError(f"{_named(ask, '--sort', ask.sort)}: sort by one of {', '.join(SORTS)}")
    return wanted


def find_prices(
    con: duckdb.DuckDBPyConnection,
    ask: PriceAsk,
    *,
    stale_days: int,
    now: datetime | None = None,
    mine: YourPrices | None = None,
) -> PriceResult:
    """Current per-chip prices matching `ask`, each dated by its source's last successful run."""
    import polars as pl

    named = named_filters(ask.regions, ask.pricing_models, ask.providers)
    filters = _filters(ask, named)
    check_named(con, named)
    frame = per_chip_prices(con, **filters)
    fresh = freshness(
        con, frame["source"].unique().sort().to_list(), stale_days=stale_days, now=now
    )
    as_of = {s.source: s.last_ok_at for s in fresh.sources}
    sample = {s.source: s.sample for s in fresh.sources}
    stamp = frame["last_seen_at"].dtype
    frame = frame.with_columns(
        pl.col("source")
        .replace_strict(as_of, default=None, return_dtype=stamp)
        .alias("source_as_of"),
        pl.col("source")
        .replace_strict(sample, default=False, return_dtype=pl.Boolean)
        .alias("sample"),
    )
    mine = mine or YourPrices()
    if mine.active:
        frame = mine.frame(frame, MONEY)
        if mine.discounts is not None:  # a discount may change which offer is cheaper
            rows = frame.to_dicts()
            order = sorted(range(frame.height), key=lambda i: price_order(rows[i], filters["sort"]))
            frame = frame[order]
    return PriceResult(frame=frame, freshness=fresh, chips=filters["chips"], mine=mine)


def find_price_rows(
    con: duckdb.DuckDBPyConnection,
    ask: PriceAsk,
    *,
    stale_days: int,
    now: datetime | None = None,
    mine: YourPrices | None = None,
) -> PriceRows:
    """find_prices as rows, without polars: the `chipcost prices` table."""
    named = named_filters(ask.regions, ask.pricing_models, ask.providers)
    filters = _filters(ask, named)
    rows = per_chip_price_rows(con, **filters)
    # A name the rows show is known: only the others are looked up (the usual case: none).
    check_named(con, named, seen=rows)
    fresh = freshness(con, sorted({str(r["source"]) for r in rows}), stale_days=stale_days, now=now)
    dated = {s.source: (s.last_ok_at, s.sample) for s in fresh.sources}
    for row in rows:
        row["source_as_of"], row["sample"] = dated.get(str(row["source"]), (None, False))
    mine = mine or YourPrices()
    if mine.active:
        mine.rows(rows, MONEY)
        if mine.discounts is not None:  # a discount may change which offer is cheaper
            rows.sort(key=lambda row: price_order(row, filters["sort"]))
    return PriceRows(rows=rows, freshness=fresh, chips=filters["chips"], mine=mine)


_TERM_HOURS = dict(zip(TERMS, (0, 168, 730, 2190, 4380, 8760, 17520, 26280), strict=True))


def _term_hours(term: str) -> int:
    """A term's length in hours, as the warehouse's TERM_HOURS sorts it ('7d', '1yr')."""
    if term[:-1].isdigit() and term[-1:] in ("d", "h"):
        return int(term[:-1]) * (24 if term.endswith("d") else 1)
    return _TERM_HOURS.get(term, 0)


def price_order(row: dict, sort: str) -> tuple:
    """The order of warehouse.prices' query, in Python: for rows whose prices changed on read."""
    model = str(row["pricing_model"])
    first = {"chip": (), "price": (row["price_per_chip_hour"],)}.get(sort, (str(row.get(sort)),))
    return (
        *first,
        str(row["chip"]),
        PRICING_MODELS.index(model) if model in PRICING_MODELS else 99,
        _term_hours(str(row["term"])),
        str(row["term"]),
        row["price_per_chip_hour"],
        *(str(row.get(c) or "") for c in ("region", "zone", "instance_type", "payment", "plan")),
        str(row["source"]),
    )


def unmatched_names(names: Sequence[str] | str | None, shown: set[str]) -> list[str]:
    """The typed chip names (of several) none of whose chips has a row among `shown`: 'K80'
    in 'H100-SXM,K80', where the rows would otherwise leave it out without a word."""
    typed = split_values(names, "chip name") or []
    if len(typed) < 2:
        return []
    return [n for n in typed if not set(resolve_chip_name(n)) & shown]


def why_empty(
    con: duckdb.DuckDBPyConnection, chips: list[str] | None, ask: PriceAsk | None = None
) -> str:
    """A message for a query that matched no current price: which part of it has none, or
    which filter, dropped alone, would give prices."""
    priced = known_values(con, "chip")
    if not priced:
        return "the warehouse has no current prices yet: run `chipcost collect`"
    unpriced = [c for c in chips or [] if c not in priced]
    if chips and len(unpriced) == len(chips):
        return (
            f"no current prices for {', '.join(unpriced)}: no source lists "
            f"{'it' if len(unpriced) == 1 else 'them'} today. "
            f"Chips with prices: {', '.join(priced)}"
        )
    if ask is not None and (found := _without_one(con, ask)):
        return (
            "no current price matches all of these filters; some match without "
            f"{', or without '.join(found)}"
        )
    return "no current price matches all of these filters; widen them (chipcost prices --help)"


# The filters of a PriceAsk as `chipcost prices` names them, for why_empty (the command's).
_FILTER_OPTIONS = {
    "chips": "--chip",
    "regions": "--region",
    "pricing_models": "--pricing-model",
    "providers": "--provider",
    "min_memory_gb": "--min-memory",
    "chip_counts": "--chips",
    "min_price": "--min-price",
    "max_price": "--max-price",
    "spot": "--spot",
}


def _without_one(con: duckdb.DuckDBPyConnection, ask: PriceAsk) -> list[str]:
    """Each filter given (of two or more) without which some current price matches."""
    given = [f for f in _FILTER_OPTIONS if getattr(ask, f) not in (None, "", [], ())]
    if len(given) < 2:
        return []
    found = []
    for field in given:
        rest = replace(ask, **{field: None})
        filters = _filters(rest, named_filters(rest.regions, rest.pricing_models, rest.providers))
        if per_chip_price_rows(con, **filters):
            found.append(_shown_filter(ask, field))
    return found


def _shown_filter(ask: PriceAsk, field: str) -> str:
    value = getattr(ask, field)
    if field == "spot":
        return "--spot" if value else "--no-spot"
    if isinstance(value, list | tuple):
        value = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    elif isinstance(value, float):
        value = f"{value:g}"
    return _named(ask, _FILTER_OPTIONS[field], value)
