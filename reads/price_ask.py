"""What `prices` was asked (PriceAsk), and the checks of the filters a price read is asked
(prices, and history, index and cost as well): each option checked, and the names spelled as
the warehouse holds them or refused with the closest it holds."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import duckdb

from chipcost.core.asks import PRICES
from chipcost.core.errors import UsageError
from chipcost.core.names import (
    check_known,
    name_among,
    resolve_chip_names,
    split_values,
)
from chipcost.core.names import shown as quoted
from chipcost.core.questions import Voice
from chipcost.core.vocabulary import pricing_code, pricing_labels
from chipcost.reads.price_glance import PER_HOURS, PRICE_DECIMALS
from chipcost.warehouse.fx import unrated_values
from chipcost.warehouse.prices import as_spelled, instance_spellings, known_values

# The fields of prices' question that become the query's keywords (filters, and the order).
QUERIED = tuple(f for f in PRICES.fields if f.query is not None)


@dataclass(frozen=True)
class PriceAsk:
    """What `prices` was asked (the fields of PRICES that become its query: filters and order)
    as a user gave them: names may be families or comma lists, any case. `voice` spells the
    fields in messages as the asker did: `--max-price 3`, or `max_price=3` from Python."""

    given: Mapping[str, Any] = field(default_factory=dict)
    voice: Voice = Voice(PRICES)
    hints: tuple[str, ...] = ()  # what the ask was read as, where a name was not what it said
    per: str = "hour"  # what the price bounds are per, as the table shows prices (--per)

    @classmethod
    def of(cls, values: Mapping[str, Any], *, api: bool = False) -> PriceAsk:
        per = str(values.get("per") or "hour").strip().lower()
        return cls(
            {f.name: values.get(f.name) for f in QUERIED},
            Voice(PRICES, api),
            per=per if per in PER_HOURS else "hour",
        )

    def __getitem__(self, name: str) -> Any:
        return self.given.get(name)

    def without(self, name: str) -> PriceAsk:
        return replace(self, given={**self.given, name: None})


def pricing_model_name(value: str) -> str:
    """'On demand' -> 'on_demand', 'savings plan 1yr, all upfront' -> 'savings_plan 1yr
    all_upfront': the warehouse spells pricing models in snake case; every spelling chipcost
    prints is taken, a table's whole pricing label included (chipcost.core.vocabulary
    .pricing_code)."""
    try:
        return pricing_code(value)
    except ValueError as exc:
        raise UsageError(
            f"pricing model {quoted(value)}: {exc}; give one as a table prints it (e.g. "
            "'savings plan 1yr, all upfront') or a model alone (e.g. savings_plan)"
        ) from None


# The unit a number's option may be written with, as tables print it: '80 GB', '$2.50'.
_UNITS = {"min_memory": "GB", "min_ram": "GB", "min_price": "$", "max_price": "$"}
_EXAMPLES = {"GB": "80 or 80GB", "$": "2.5 or $2.50"}
_THOUSANDS = re.compile(r"\d{1,3}(,\d{3})+(\.\d*)?")
# An amount with its currency, as a table or a person writes one: '€3.86', 'EUR 3.86', '$2.50'.
_CURRENCY_SIGN = re.compile(r"\s*(€|£|\$|eur\b|gbp\b|usd\b)\s*", re.IGNORECASE)
_SIGNS = {"€": "EUR", "£": "GBP", "$": "USD"}


def _number(ask: PriceAsk, name: str, *, low: float = 0.0, currency: str = "USD") -> float | None:
    """The option's number; a price bound in `currency`, the one the table shows (a sign or a
    code before it must name that currency)."""
    value = ask[name]
    if value is None:
        return None
    if isinstance(value, str) and _UNITS.get(name) == "$" and (sign := _CURRENCY_SIGN.match(value)):
        if _SIGNS.get(sign[1], sign[1].upper()) != currency:
            raise UsageError(
                f"{ask.voice.said(name, _as_given(ask, name))}: a price bound is in the "
                f"currency the table shows, {currency} ({ask.voice.option('currency')} "
                f"{'changes it' if currency == 'USD' else currency}): give it as its cells print "
                "it, e.g. 2.50"
            )
        value = value[sign.end() :]
    if isinstance(value, str):  # as a table prints it: '80GB', '$2.50', '1,024'
        value = amount_as_printed(value, _UNITS.get(name, ""))
    if isinstance(value, bool) or not isinstance(value, int | float):
        example = _EXAMPLES.get(_UNITS.get(name, ""), "3.5")
        raise UsageError(
            f"{ask.voice.said(name, _as_given(ask, name))}: give a number, e.g. {example}"
        )
    if not math.isfinite(value) or value < low:
        raise UsageError(
            f"{ask.voice.said(name, _as_given(ask, name))}: give a finite number of {low:g} or more"
        )
    return float(value)


def _as_given(ask: PriceAsk, name: str) -> str:
    """A value as the asker wrote it: the command line's text, Python's repr."""
    value = ask[name]
    return value if isinstance(value, str) and not ask.voice.api else repr(value)


def amount_as_printed(text: str, unit: str) -> float | str:
    """'$2.50' -> 2.5, '80 GB' -> 80.0, '1,024' -> 1024.0: a number as tables print it, in the
    option's unit ('$' before, or a currency's sign or code: '€2.50', 'EUR 2.50'; 'GB' after);
    the text itself when it is no such number."""
    plain = text.strip().removesuffix(" est.")  # a cell of an estimated price: '$0.1729 est.'
    if unit == "$" and (sign := _CURRENCY_SIGN.match(plain)):  # '$2.50', '€2.50', 'EUR 2.50'
        plain = plain[sign.end() :]
    elif unit:
        plain = re.sub(rf"\s*{unit}$", "", plain, flags=re.IGNORECASE)
    if _THOUSANDS.fullmatch(plain):
        plain = plain.replace(",", "")
    try:
        return float(plain)
    except ValueError:
        return text


def _counts(ask: PriceAsk, name: str) -> list[float] | None:
    values = ask[name]
    if values is None:
        return None
    taken = (int, float, str)  # a number, or its text ('8', '8,16')
    items = [values] if isinstance(values, taken) else values
    if not isinstance(items, list | tuple) or not all(
        isinstance(i, taken) and not isinstance(i, bool) for i in items
    ):
        raise UsageError(
            f"{ask.voice.said(name, quoted(values))}: give the chips per instance, more than 0 "
            "(a fraction of a GPU: 0.125), e.g. 8, or a list of such numbers"
        )
    counts = []
    for item in split_values(items, "chip count") or []:
        try:
            count = float(item)
        except ValueError:
            count = math.nan
        if not math.isfinite(count) or count <= 0 or count > 1e6:
            raise UsageError(
                f"{ask.voice.said(name, repr(item))}: give the chips per instance, more than 0 "
                "(a fraction of a GPU: 0.125), e.g. 8"
            )
        counts.append(count)
    return counts or None


KINDS = {
    "regions": "region",
    "pricing_models": "pricing model",
    "providers": "provider",
    "instances": "instance type",
}
# The warehouse's column of a named filter whose key is not its column's plural.
COLUMNS = {"instances": "instance_type"}
# The question's field of a named filter whose key is not its field's plural.
_FIELDS = {"instances": "instance"}


def named_filters(
    regions: Sequence[str] | str | None,
    pricing_models: Sequence[str] | str | None,
    providers: Sequence[str] | str | None,
    instances: Sequence[str] | str | None = None,
) -> dict[str, list[str] | None]:
    """The filters as the warehouse spells them: lists split, pricing models in snake case,
    a provider's name as the README writes it, or a company's, read as its code."""
    return {
        "instances": split_values(instances, "instance type"),
        "regions": split_values(regions, "region"),
        "pricing_models": [
            pricing_model_name(m)
            for m in pricing_labels(split_values(pricing_models, "pricing model") or [])
        ]
        or None,
        "providers": provider_codes(split_values(providers, "provider")),
    }


def provider_codes(providers: list[str] | None) -> list[str] | None:
    """Each provider as its code: named by its title ('IBM Cloud', 'Vast.ai': Source.title,
    from which the README's list is written), a company's name ('Amazon'), or its code in any
    case or in words ('Massed Compute'); any other as given, for the message."""
    if not providers:
        return providers
    codes, titles = provider_titles()
    return [name_among(p, codes, titles) or p for p in providers]


def provider_titles() -> tuple[frozenset[str], dict[str, str]]:
    """Every provider the registry holds (those registered only to say why they are not
    collected too) and each one's title, by title: the names a provider is asked for by."""
    from chipcost.extract import registry

    sources = registry().values()
    titles = {source.title: source.provider for source in sources if source.title}
    return frozenset(source.provider for source in sources), titles


def known_part(key: str, values: Sequence[str]) -> list[str]:
    """The values of a named filter as its column holds them: a pricing code's model
    ('savings_plan 1yr' -> 'savings_plan'), any other value as it is."""
    if key != "pricing_models":
        return list(values)
    return list(dict.fromkeys(v.split(" ")[0] for v in values))


def check_named(
    con: duckdb.DuckDBPyConnection,
    named: dict[str, list[str] | None],
    seen: Sequence[dict] = (),
    known: Callable[[duckdb.DuckDBPyConnection, str], list[str]] = known_values,
    held: tuple[str, str] = ("no current price is in", "current prices are in"),
    voice: Voice | None = None,
) -> None:
    """Refuse an unknown region, pricing model or provider with the closest known values
    (`known` lists a column's values: the current prices' by default, whose name is `held`).
    A value among `seen` (rows the filters matched) is known without asking the warehouse
    again. A region may be real without prices: it is said to have none, not to be unknown.
    `voice`, when given, names the option in the message as the asker spelled it."""
    for key, values in named.items():
        if not values:
            continue
        column = COLUMNS.get(key, key.removesuffix("s"))
        values = known_part(key, values)
        shown = {str(r[column]).lower() for r in seen}
        unseen = [v for v in values if v.lower() not in shown]
        if unseen:
            among = known(con, column)
            option = voice.name(_FIELDS.get(key, key.removesuffix("s"))) if voice else None
            aliases = None
            if key == "providers":
                _source_not_provider(unseen, among, option)
                aliases = {title.lower(): code for title, code in provider_titles()[1].items()}
            if key == "regions":
                zones = zones_held(con)
                _where_not_region(unseen, among, zones, known(con, "provider"), option, voice)
                unseen = [v for v in unseen if v.strip().lower() not in zones]
                if not unseen:
                    continue
            where = held if key == "regions" else None
            check_known(KINDS[key], unseen, among, held=where, option=option, aliases=aliases)


def _source_not_provider(
    values: Sequence[str], providers: Sequence[str], option: str | None
) -> None:
    """A source's name given as a provider ('aws-bulk', as `sources` lists it beside its
    provider): refused naming the provider whose prices it collects."""
    from chipcost.extract import registry

    known = {p.lower() for p in providers}
    sources = registry()
    said = f"{option}: " if option else ""
    for value in values:
        name = value.strip().lower()
        if name in known:  # a provider's name as well ('lambda')
            continue
        source = sources.get(name)
        if source is not None and source.provider.lower() in known:
            raise UsageError(
                f"{said}{value!r} is a source, not a provider: it collects provider "
                f"{source.provider}'s prices; give {source.provider} (every price row names its "
                "source)"
            )
        # a provider `chipcost sources` lists (ibm, scp) whose sources have loaded no price,
        # and the exchange rates' source (ecb-rates, provider ecb)
        collecting = sorted(s.name for s in sources.values() if name in (s.name, s.provider))
        if collecting and all(sources[c].reference for c in collecting):  # ECB's rates
            raise UsageError(
                f"{said}{value!r} publishes reference data ({', '.join(collecting)}), no "
                "accelerator prices: give a provider that sells them (`chipcost sources` lists "
                "each source's provider)"
            )
        if collecting and not any(sources[c].collected for c in collecting):
            raise UsageError(
                f"{said}{value!r} has no price: chipcost does not collect it (`chipcost sources` "
                "lists it; docs/sources.md says why)"
            )
        if collecting:
            raise UsageError(
                f"{said}{value!r} has no current price: {', '.join(collecting)} collected none "
                "(`chipcost sources` says when each last ran and what it needs)"
            )


def _where_not_region(
    values: Sequence[str],
    regions: Sequence[str],
    zones: Mapping[str, str],
    providers: Sequence[str],
    option: str | None,
    voice: Voice | None,
) -> None:
    """A table's 'where' cell given as a region ('verda global', 'aws us-east-2b': provider,
    then region or zone; history's 'aws · us-east-2 · us-east-2b'): refused with the two
    filters it stands for (its zone where it names one)."""
    by_lower = {r.lower(): r for r in regions}
    named = {p.lower(): p for p in providers}
    for value in values:
        first, region, *rest = [*value.replace("·", " ").split(), "", ""]
        region = region.lower()
        zone = next((zones[z] for z in (region, *(r.lower() for r in rest)) if z in zones), None)
        near = (r for low, r in by_lower.items() if region.startswith(low) and region != low)
        found = zone or by_lower.get(region) or next(near, None)
        if first.lower() in named and found:
            said = f"{option}: " if option else ""
            provider = (
                voice.said("provider", named[first.lower()]) if voice else named[first.lower()]
            )
            again = voice.said("region", found) if voice else found
            raise UsageError(
                f"{said}{value!r} is a provider and where its offer is, as a table's 'where' "
                f"says them: give {provider} {again}"
            )


def zones_held(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every zone an offer was ever priced in (us-east-2b, as a row's "where" prints it), by
    its lower case: a region filter takes one and keeps that zone's offers
    (chipcost.warehouse.where.Where.places)."""
    rows = con.execute(
        "SELECT DISTINCT zone FROM price_history WHERE zone IS NOT NULL AND zone <> '' "
        "AND zone <> region"
    ).fetchall()
    return {str(zone).lower(): str(zone) for (zone,) in rows}


def known_or_unrated(con: duckdb.DuckDBPyConnection, column: str) -> list[str]:
    """A column's values among the current prices and among those left out for want of a
    rate: a provider whose prices are all in euros is known, and the read says why it shows
    none (why_empty), rather than calling it unknown."""
    return sorted({*known_values(con, column), *unrated_values(con, column)})


def checked_filters(
    con: duckdb.DuckDBPyConnection,
    regions: Sequence[str] | str | None,
    pricing_models: Sequence[str] | str | None,
    providers: Sequence[str] | str | None,
    instances: Sequence[str] | str | None = None,
    voice: Voice | None = None,
) -> dict[str, list[str] | None]:
    """Region, pricing model, provider and instance type filters split and checked against
    the current prices (those no rate converts too: known, and said as left out, not
    unknown): an unknown one is refused with the closest known values, named as `voice`
    spells the options."""
    named = named_filters(regions, pricing_models, providers, instances)
    if named["instances"]:  # as the warehouse spells them (Azure's "Standard_" prefix)
        spellings = instance_spellings(con)
        named["instances"] = as_spelled(named["instances"], spellings)
    check_named(con, named, known=known_or_unrated, voice=voice)
    return named


def named_filters_of(ask: PriceAsk) -> dict[str, list[str] | None]:
    return named_filters(ask["region"], ask["pricing_model"], ask["provider"], ask["instance"])


def query_filters(ask: PriceAsk, named: dict[str, list[str] | None], currency: str = "USD") -> dict:
    """The query's keywords (each asked field's `query`), each value checked as its field's
    `check` says (a price bound in `currency`); the names (`named`: regions, pricing models,
    providers) are checked against the warehouse by check_named."""
    chips = resolve_chip_names(ask["chip"])
    checks: dict[str, Callable[[str], Any]] = {
        "chips": lambda _: chips,
        "named": lambda name: named[f"{name}s"],
        "number": lambda name: _number(ask, name, currency=currency),
        "counts": lambda name: _counts(ask, name),
        "switch": lambda name: _switch(ask, name),
        "sort": lambda name: _sort(ask, name, chips),
    }
    filters = {f.query: checks[str(f.check)](f.name) for f in QUERIED}
    low, high = filters["min_price"], filters["max_price"]
    if low is not None and high is not None and low > high:
        raise UsageError(
            f"{ask.voice.said('min_price', f'{low:g}')} is above "
            f"{ask.voice.said('max_price', f'{high:g}')}"
        )
    return {**filters, **_per_chip_hour(low, high, ask.per)}


def _per_chip_hour(low: float | None, high: float | None, per: str) -> dict[str, float | None]:
    """The price bounds, given per `per` as the table shows prices, per chip-hour (what the
    warehouse holds); each takes in the prices shown as it: a price is shown rounded to its
    decimals (PRICE_DECIMALS), so `--max-price 4.1624` copied from a cell keeps that cell's
    offer, stored at 4.16240011, and `--min-price 1.6707` the one stored at 1.67069."""
    hours, half = PER_HOURS[per], 0.5 * 10 ** -PRICE_DECIMALS[per]
    return {
        "min_price": None if low is None else max(low - half, 0.0) / hours,
        "max_price": None if high is None else (high + half) / hours,
    }


def within(
    rows: list[dict[str, object]], min_price: float | None, max_price: float | None
) -> list[dict[str, object]]:
    """The rows whose price per chip-hour (as shown: converted, discounted) is within the
    bounds (per chip-hour, _per_chip_hour)."""
    low = -math.inf if min_price is None else min_price
    high = math.inf if max_price is None else max_price
    return [row for row in rows if low <= float(row["price_per_chip_hour"]) <= high]  # type: ignore[arg-type]


def _switch(ask: PriceAsk, name: str) -> bool | None:
    if ask[name] is not None and not isinstance(ask[name], bool):
        raise UsageError(
            f"{ask.voice.said(name, repr(ask[name]))}: give True (only {name}), False (no "
            f"{name}) or None"
        )
    return ask[name]


def _sort(ask: PriceAsk, name: str, chips: list[str] | None) -> str:
    """The order asked for, or the default: cheapest first across a family's variants (the
    alphabetically first variant would fill the page), else by chip."""
    from chipcost.warehouse.prices import SORTS

    if ask[name] is None:
        return "price" if chips is not None and len(chips) > 1 else "chip"
    wanted = str(ask[name]).strip().lower()
    if wanted not in SORTS:
        raise UsageError(f"{ask.voice.said(name, ask[name])}: sort by one of {', '.join(SORTS)}")
    return wanted
