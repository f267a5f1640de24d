"""Prices at a glance: one row per chip, its cheapest offer anywhere, as `sky show-gpus`
answers; one row per chip and provider (or provider and region) with its cheapest on demand,
spot and commitment price per chip side by side, as `sky show-gpus H100` answers; and prices
per hour, month or year."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.commands import UNKNOWN_OFFERS
from chipcost.core.errors import UsageError
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.vocabulary import (
    GLANCE_KINDS,
    PRICING_MODEL_TABLE,
    REGION_ROW_PLAN,
    code_words,
    gpu_alone,
    restricted_region,
)
from chipcost.reads.your_prices import DISCOUNT_COLUMN, LIST_COLUMN, YourPrices
from chipcost.transform.rows import number

# What a row of the glance is per: `--by chip` (the chip alone: its cheapest offer, with
# where and how it is paid), `--by provider` or `--by region` (provider and region).
BY = {"chip": (), "provider": ("provider",), "region": ("provider", "region")}
# `--by offer`: no glance, every offer a row (the listing, as csv, json and focus give it).
EVERY_OFFER = "offer"
# What `--by chip` says of each chip's cheapest offer: where it is, how it is paid, on what.
OFFER_FIELDS = (
    "provider", "region", "zone", "pricing_model", "term", "payment", "plan", "instance_type",
    "chip_count",
)  # fmt: skip
# Where `--by chip`'s price comes from and since when: the source that read it, the offer's
# first and last sighting (as every offer's row says them).
DATED_FIELDS = ("source", "valid_from", "last_seen_at")
# A month is 730 hours (8,760 / 12) and a year 8,760 (365 days of 24): the hours a price runs
# for when it is shown per month or per year.
PER_HOURS = {"hour": 1, "month": 730, "year": 8760}
# A price's decimals by what it is per: an hour's needs four to show a small move; a month's
# or a year's (hundreds, thousands) is to the cent. Every view of prices shows them so, and a
# price bound takes in the prices shown as it (chipcost.reads.price_ask).
PRICE_DECIMALS = {"hour": 4, "month": 2, "year": 2}
# The glance's columns of price: on demand, spot, and any commitment (reserved, savings plan,
# a neocloud's term) as one. A capacity block is neither: it is left out of the glance.
_COMMITS = {m.code for m in PRICING_MODEL_TABLE if m.commits}
KINDS = GLANCE_KINDS


def per_hours(per: str | None, said: str) -> int:
    """The hours one price covers for `--per` (1 when not given); `said` names the option."""
    if per is None:
        return 1
    wanted = str(per).strip().lower()
    if wanted not in PER_HOURS:
        raise UsageError(f"{said}: give one of {', '.join(PER_HOURS)}")
    return PER_HOURS[wanted]


def per_columns(per: str) -> dict[str, str]:
    """The hourly price columns of `prices`' rows and their names per `per`:
    price_per_chip_hour -> price_per_chip_month (the upfront fee is paid once: unchanged)."""
    hourly = ("price_per_chip_hour", "price_per_hour", LIST_COLUMN)
    return {c: c.replace("hour", per) for c in hourly}


def per_price(hourly: object, per: str) -> float:
    """A price per chip-hour as a price per `per` (hour, month or year): an hour's as stored, a
    month's or a year's to the cent it is shown to (PRICE_DECIMALS), so that csv and json hold
    the number the table shows (4723.1, not the product's 4723.099999999999)."""
    price = number(hourly) * PER_HOURS[per]
    return price if per == "hour" else round(price, PRICE_DECIMALS[per])


def scale_rows(rows: Sequence[dict[str, object]], hours: int) -> None:
    """Each hourly price of `prices`' rows times `hours`, in place (names kept: a table's
    headers say the unit)."""
    for row in rows:
        for column in per_columns("hour"):
            if row.get(column) is not None:
                row[column] = number(row[column]) * hours


def by_keys(by: str, said: str) -> tuple[str, ...]:
    """The columns a glance row is per, for `--by`; `said` names the option as given."""
    wanted = str(by).strip().lower()
    if wanted not in BY:
        raise UsageError(f"{said}: give one of {', '.join((*BY, EVERY_OFFER))}")
    return BY[wanted]


def every_offer(by: str | None) -> bool:
    """Whether `by` asks for no glance: not given, or `offer` (every offer, one a row)."""
    return by is None or str(by).strip().lower() == EVERY_OFFER


def stored(row: Mapping[str, object]) -> bool:
    """Whether `row` is an offer as stored, not the row a read adds for a region's cheapest
    spot zone (plan REGION_ROW_PLAN, that zone's offer again): what a count of offers counts
    (docs/warehouse.md), so that H100-SXM's 391 offers are not said as 395."""
    return row.get("plan") != REGION_ROW_PLAN


def stored_count(rows: Sequence[Mapping[str, object]]) -> int:
    """How many offers `rows` hold, each once (stored)."""
    return sum(1 for row in rows if stored(row))


def in_cheapest(row: Mapping[str, object], regions_asked: bool = False) -> bool:
    """Whether an offer may answer "cheapest": of a chip chipcost knows (not `unknown`, which
    marks a GPU no chip is named for: no chip to answer for), not a slice of a GPU (chip_count
    below 1, its price per chip a whole-chip equivalent of a share no one rents whole), and not
    in a region most buyers cannot rent in (a government, China or sovereign cloud) unless
    --region asked for it (docs/sources.md, "Slices of a GPU" and "Doubtful rows")."""
    if row["chip"] == UNKNOWN_CHIP or 0 < number(row["chip_count"]) < 1:
        return False
    return regions_asked or not restricted_region(str(row["region"]))


def set_apart_note(
    rows: Sequence[Mapping[str, object]], *, left_out: bool = False, regions_asked: bool = False
) -> str:
    """What `rows` hold that the cheapest answers and the index set apart (in_cheapest): the
    offers of a GPU no known chip is named for, those renting a share of one GPU and those in
    restricted regions, named; '' when none.
    `left_out`: said by a cheapest answer that left them out, else by a listing that shows
    them."""
    rows = [r for r in rows if stored(r)]  # each offer counted once
    shares = sum(1 for r in rows if 0 < number(r["chip_count"]) < 1)
    regions = sorted({str(r["region"]) for r in rows if restricted_region(str(r["region"]))})
    held = 0 if regions_asked else sum(1 for r in rows if str(r["region"]) in regions)
    unknown = sum(1 for r in rows if r["chip"] == UNKNOWN_CHIP)
    parts = []
    if unknown:
        parts.append(
            f"{unknown} offer(s) whose GPU names no chip chipcost knows (chip {UNKNOWN_CHIP}; "
            f"`{UNKNOWN_OFFERS}` lists them)"
        )
    if shares:
        parts.append(
            f"{shares} offer(s) renting a share of one GPU (chip count below 1: the price per "
            "chip is a whole chip's equivalent)"
        )
    if held:
        parts.append(
            f"{held} in a government, China or sovereign region ({', '.join(regions)}; "
            f"{COMMAND_LINE.option('region')} naming it brings it in)"
        )
    if not parts:
        return ""
    if left_out:
        return "left out of the cheapest: " + "; ".join(parts)
    by = COMMAND_LINE.option("by")
    return "; ".join(parts) + f": listed here, left out of {by} and the index"


def cheapest_per_chip(
    rows: Sequence[Mapping[str, object]], per: str, *, regions_asked: bool = False
) -> list[Glanced]:
    """Per chip, its cheapest offer among `rows` (any provider, region and pricing model the
    filters left), per `per` (hour, month or year): the price, OFFER_FIELDS, where and when it
    was read (DATED_FIELDS), what the price rests on where it is an estimate (`estimate`, None
    for a published price), why a spot price is doubtful (`spot_doubt`), whether it is the
    GPU's alone (`gpu_alone`: the host billed beside it) and the bundled sample's (`sample`),
    how many offers the chip has (cheapest_offers), your list price and discount where a read
    adjusted it, and the currency its provider states it in; with the offer itself."""
    found = []
    for index, offers in cheapest_offers(rows, regions_asked=regions_asked).values():
        row = rows[index]
        found.append(
            Glanced(
                {
                    "chip": row["chip"],
                    f"price_per_chip_{per}": per_price(row["price_per_chip_hour"], per),
                    **{k: row.get(k) for k in (*OFFER_FIELDS, *DATED_FIELDS)},
                    "estimate": row.get("estimate") or None,
                    "spot_doubt": row.get("spot_doubt") or None,
                    "gpu_alone": gpu_alone(row.get("source"), row.get("instance_type")),
                    "sample": bool(row.get("sample")),
                    "offers": offers,
                    list_column(per): _list_price(row, per),
                    DISCOUNT_COLUMN: row.get(DISCOUNT_COLUMN),
                    **{k: row.get(k) for k in ("currency", *_RATES, "stated_currency")},
                },
                (row,),
            )
        )
    return found


def cheapest_offers(
    rows: Sequence[Mapping[str, object]], *, regions_asked: bool = False
) -> dict[str, tuple[int, int]]:
    """Per chip, the index in `rows` of its cheapest offer per chip-hour and how many offers
    it has, each once (stored: a region's cheapest spot zone's row is not another offer);
    slices and restricted regions left out (in_cheapest). The chips in the order their first
    row comes (the rows' --sort: by chip, or by price, cheapest chip first); of two offers at
    one price, the first, but a zone's own row before its region's row (which names no zone):
    `prices --by chip` and the explorer's first view, which both stand on it, name the zone."""
    cheapest: dict[str, tuple[float, bool, int]] = {}
    offers: Counter[str] = Counter()
    for index, row in enumerate(rows):
        if not in_cheapest(row, regions_asked):
            continue
        chip, price = str(row["chip"]), number(row["price_per_chip_hour"])
        offers[chip] += stored(row)
        # (price, a region's row): the lower wins, the zone's row at one price
        if chip not in cheapest or (price, not stored(row)) < cheapest[chip][:2]:
            cheapest[chip] = (price, not stored(row), index)
    return {chip: (index, offers[chip]) for chip, (_, _, index) in cheapest.items()}


def cheapest_per_model(rows: Sequence[Mapping[str, object]]) -> dict[str, list[int]]:
    """The explorer's first view: per pricing model (and '' for any), the indexes in `rows` of
    each chip's cheapest offer of it, by the rule of `prices --by chip` (cheapest_offers)."""
    models = sorted({str(row["pricing_model"]) for row in rows})
    found = {"": [i for i, _ in cheapest_offers(rows).values()]}
    for model in models:
        indexes = [i for i, row in enumerate(rows) if row["pricing_model"] == model]
        of_model = [rows[i] for i in indexes]
        found[model] = [indexes[i] for i, _ in cheapest_offers(of_model).values()]
    return found


@dataclass(frozen=True)
class Glanced:
    """A row of the glance and the offers whose prices it shows (one by chip; by provider or
    region, the cheapest of each kind it has): what the notes under it speak of."""

    row: dict[str, object]
    offers: tuple[Mapping[str, object], ...]


def glanced(
    rows: Sequence[Mapping[str, object]],
    by: str,
    per: str,
    *,
    said: str,
    regions_asked: bool = False,
    currency: str | None = None,
    mine: YourPrices | None = None,
) -> list[Glanced]:
    """`rows` at a glance, as `prices --by` answers on the command line and `prices(by=)` in
    Python: by chip, each chip's cheapest offer (cheapest_per_chip); by provider or region,
    the cheapest of each kind side by side (glance). `said` names the option as asked;
    `currency`, when given, is named on every row (json's and the API's money); `mine`, the
    read's discounts and currency, adds what was done to the prices. Each row's fields are
    glance_columns', in their order."""
    keys = by_keys(by, said)
    if keys:
        found = glance(rows, keys, per, regions_asked=regions_asked)
    else:
        found = cheapest_per_chip(rows, per, regions_asked=regions_asked)
    columns = glance_columns(by, per, said=said, currency=currency, mine=mine)
    return [
        Glanced({c: currency if c == "currency" else g.row.get(c) for c in columns}, g.offers)
        for g in found
    ]


def glance_columns(
    by: str,
    per: str,
    *,
    said: str,
    currency: str | None = None,
    mine: YourPrices | None = None,
) -> list[str]:
    """The fields of glanced's rows, in order, with none to hold them too (the header of an
    empty csv): by chip, the cheapest offer's, where and when it was read; by provider or
    region, the kinds' side by side; the marks `estimate` (`estimated`: the kinds that are),
    `spot_doubt`, `gpu_alone` and `sample`; where `mine` adjusted the prices, each one's list
    price in USD and, with discounts, the discount it got (by provider, one of each per kind:
    list_spot_per_chip_hour_usd, spot_discount); `currency` when given, with the rate a
    converting read used (by chip); the currency the provider states it in last."""
    keys = by_keys(by, said)
    listed = mine is not None and mine.active
    discounted = mine is not None and mine.discounts is not None
    if keys:
        prices = [f"{k}_per_chip_{per}" for k in KINDS]
        marks = ["estimated", "spot_doubt", "gpu_alone", "sample", "offers"]
        columns = ["chip", *keys, *prices, "commitment_terms", *marks]
        columns += [list_column(per, k) for k in KINDS] if listed else []
        columns += [f"{k}_{DISCOUNT_COLUMN}" for k in KINDS] if discounted else []
        rates: list[str] = []
    else:
        columns = ["chip", f"price_per_chip_{per}", *OFFER_FIELDS, *DATED_FIELDS, "estimate"]
        columns += ["spot_doubt", "gpu_alone", "sample", "offers"]
        columns += [list_column(per)] if listed else []
        columns += [DISCOUNT_COLUMN] if discounted else []
        rates = list(_RATES) if mine is not None and mine.rates is not None else []
    return columns + (["currency", *rates] if currency is not None else []) + ["stated_currency"]


# The columns a converting read adds beside `currency`: the rate and its day.
_RATES = ("usd_rate", "rate_day")


def list_column(per: str, kind: str | None = None) -> str:
    """'list_price_per_chip_hour_usd' (per month: ..._month_usd); of a kind,
    'list_spot_per_chip_hour_usd'."""
    name = LIST_COLUMN.replace("hour", per)
    return name if kind is None else name.replace("list_price_", f"list_{kind}_")


def _list_price(row: Mapping[str, object], per: str) -> float | None:
    """The offer's list price in USD per `per`, where a read adjusted its price (else None)."""
    listed = row.get(LIST_COLUMN)
    return None if listed is None else per_price(listed, per)


def _kind(model: str) -> str | None:
    if model in ("on_demand", "spot"):
        return model
    return "commitment" if model in _COMMITS else None


def glance(
    rows: Sequence[Mapping[str, object]],
    keys: tuple[str, ...],
    per: str,
    *,
    regions_asked: bool = False,
) -> list[Glanced]:
    """Per chip and `keys`: the cheapest price per chip of each of KINDS (None where the
    provider has none), the commitment's terms, which of those prices are estimates (no
    price the provider publishes: `estimated`, their kinds by comma, None when none is), why
    the spot price is doubtful (`spot_doubt`), whether one of the prices is the GPU's alone
    (`gpu_alone`) and the bundled sample's (`sample`), how many offers the row stands for
    (each once: stored), each price's list price and discount where a read adjusted it and
    the currencies the provider states them in; cheapest on demand first within a chip.
    Prices are per `per` (hour, month or year; per_price)."""
    groups: dict[tuple[str, ...], _Glance] = {}
    for row in rows:
        if not in_cheapest(row, regions_asked):
            continue
        key = tuple(str(row[k]) for k in ("chip", *keys))
        group = groups.setdefault(key, _Glance({"chip": row["chip"], **{k: row[k] for k in keys}}))
        group.offers += stored(row)
        kind = _kind(str(row["pricing_model"]))
        if kind is None:
            continue
        price = per_price(row["price_per_chip_hour"], per)
        cheapest = group.cheapest.get(kind)
        if cheapest is None or price < cheapest:
            group.cheapest[kind] = price
            group.offer[kind] = row
    found = [Glanced(g.row(per), tuple(g.offer.values())) for g in groups.values()]
    return sorted(found, key=lambda g: _order(g.row, per))


@dataclass
class _Glance:
    """One row of the glance as it is gathered: its chip and keys, the cheapest price of each
    kind so far and its offer, and the offers."""

    head: dict[str, object]
    cheapest: dict[str, float] = field(default_factory=dict)
    offer: dict[str, Mapping[str, object]] = field(default_factory=dict)
    offers: int = 0

    def row(self, per: str) -> dict[str, object]:
        offers = [self.offer[k] for k in KINDS if k in self.offer]
        spot = self.offer.get("spot", {})
        commitment = self.offer.get("commitment")
        stated = dict.fromkeys(
            str(o["stated_currency"]) for o in offers if o.get("stated_currency")
        )
        return {
            **self.head,
            **{f"{k}_per_chip_{per}": self.cheapest.get(k) for k in KINDS},
            "commitment_terms": None if commitment is None else _terms(commitment),
            "estimated": ",".join(k for k in KINDS if self.offer.get(k, {}).get("estimate"))
            or None,
            "spot_doubt": spot.get("spot_doubt") or None,
            "gpu_alone": any(gpu_alone(o.get("source"), o.get("instance_type")) for o in offers),
            "sample": any(bool(o.get("sample")) for o in offers),
            "offers": self.offers,
            **{list_column(per, k): _list_price(self.offer.get(k, {}), per) for k in KINDS},
            **{f"{k}_{DISCOUNT_COLUMN}": self.offer.get(k, {}).get(DISCOUNT_COLUMN) for k in KINDS},
            "stated_currency": ",".join(stated) or None,
        }


def _terms(row: Mapping[str, object]) -> str:
    """'reserved 1yr all_upfront': the cheapest commitment's model, term and payment."""
    parts = (row.get(c) for c in ("pricing_model", "term", "payment"))
    return " ".join(str(p) for p in parts if p not in (None, "", "none", "default"))


def terms_words(terms: str) -> str:
    """_terms' codes in the words every table says them: 'savings_plan 3yr all_upfront' ->
    'savings plan 3yr, all upfront'."""
    return code_words(terms)


def _order(group: Mapping[str, object], per: str) -> tuple:
    prices = [group[f"{k}_per_chip_{per}"] for k in KINDS]
    known = [number(p) for p in prices if p is not None]
    first = prices[0] if prices[0] is not None else min(known, default=float("inf"))
    return (str(group["chip"]), prices[0] is None, first, *(str(v) for v in group.values()))
