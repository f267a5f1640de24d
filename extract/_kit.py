"""What every source shares: provenance, price cells (read in extract/_price_cell.py), counts,
chip names, JSON shapes, loud failures (no I/O here: the price-file filter imports it without
the archive)."""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Generic, TypeVar

from chipcost.core.catalog import LONGEST_SPELLING, UNKNOWN_CHIP, canonical_chip, read_at_memory
from chipcost.core.commands import REPLAY, REPLAY_DIR
from chipcost.core.cut import NAME_CHARS, first_long
from chipcost.core.errors import ChipcostError, ParseError, SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.record import OFFER_DEFAULTS, ParseResult, PriceRecord, Reject
from chipcost.core.vocabulary import OFFER_KEY
from chipcost.extract._bounds import count_offer, count_refused
from chipcost.extract._price_cell import NOT_A_PRICE as NOT_A_PRICE
from chipcost.extract._price_cell import PER_GPU as PER_GPU
from chipcost.extract._price_cell import PER_INSTANCE as PER_INSTANCE
from chipcost.extract._price_cell import PriceError as PriceError
from chipcost.extract._price_cell import parse_price as parse_price
from chipcost.extract._price_cell import price_of as price_of
from chipcost.extract._price_cell import says_no_price as says_no_price

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def parse_count(text: str | float | int | None) -> int:
    """A whole, positive GPU count; ValueError for 0, fractions ("1/2", 0.5) or text."""
    if isinstance(text, bool) or text is None:
        raise ValueError(f"GPU count {text!r} is missing")
    if isinstance(text, float) and text.is_integer():
        text = int(text)
    cleaned = str(text).strip().lower().removesuffix("x").strip()
    if not (cleaned.isascii() and cleaned.isdigit()):  # not "\u0668" (8 in Arabic-Indic)
        raise ValueError(f"GPU count {text!r} is not a whole number of GPUs")
    if int(cleaned) < 1:
        raise ValueError(f"GPU count {text!r} is below 1")
    return int(cleaned)


def require_offers(
    found: ParseResult | Sequence[PriceRecord], payload: Payload, provider: str
) -> None:
    """Fail loudly when a non-empty payload yields no rows at all: its layout changed.

    Rows refused with a reason count as rows: a page of "Contact sales" is not a layout
    change, a page where nothing was recognised is.
    """
    if isinstance(found, ParseResult):
        rows = len(found.records) + len(found.rejects)
    else:
        rows = len(found)
    if rows or not payload.data.strip():
        return
    raise ParseError(
        f"{provider}: parsed 0 offers from a non-empty page at {payload.url} "
        f"({payload.ref or payload.name or 'unarchived'}, {len(payload.data)} bytes): the page "
        "layout probably changed; the payload is archived, so report a layout change and "
        f"re-parse it with `{REPLAY}` once the parser is fixed"
    )


def require_columns(
    found: Iterable[str], expected: Iterable[str], payload: Payload, provider: str
) -> None:
    """Fail loudly when a price table or record lacks the columns or fields we read."""
    have = {name.strip().lower() for name in found}
    missing = [name for name in expected if name.lower() not in have]
    if not missing:
        return
    raise ParseError(
        f"{provider}: the price data at {payload.url} "
        f"({payload.ref or payload.name or 'unarchived'}) lacks {', '.join(missing)} "
        f"(found {', '.join(sorted(have)) or 'nothing'}): the layout changed; report it, then "
        f"re-parse the archived payload with `{REPLAY}` once fixed"
    )


def missing_fields(row: object, decisive: Iterable[str]) -> str:
    """Why a row is refused when it lacks a field that decides what its price means (a cloud
    flag, a currency, a pricing unit): '' when each is there with a value, else the reason
    naming every one missing. Never a default in its place: a price read under an assumed
    currency or unit is a wrong price, not a missing one (docs/sources.md)."""
    have = row if isinstance(row, dict) else {}
    missing = [name for name in decisive if have.get(name) is None or have.get(name) == ""]
    if not missing:
        return ""
    which = "it decides" if len(missing) == 1 else "they decide"
    return f"lacks {', '.join(missing)}: {which} what its price means, so it is not read"


@dataclass(frozen=True)
class Origin:
    """Where the rows being parsed came from: stamped on every record and reject."""

    source: str
    provider: str
    source_url: str
    payload_ref: str
    observed_at: datetime

    @classmethod
    def of(cls, source: str, provider: str, payload: Payload) -> Origin:
        return cls(source, provider, payload.url, payload.ref, payload.fetched_at)

    def record(self, **offer: Any) -> PriceRecord:
        """A PriceRecord of this origin; `offer` gives the rest (region, chip, price, ...).
        TooManyOffers past the bound of the parse under way (offers_bounded)."""
        count_offer()
        offer.setdefault("source_url", self.source_url)
        return PriceRecord(
            observed_at=self.observed_at,
            provider=self.provider,
            source=self.source,
            payload_ref=self.payload_ref,
            **offer,
        )

    def reject(
        self,
        reason: str,
        row: Any,
        sku: str = "",
        *,
        offer: dict[str, str | None] | None = None,
        unpriced: dict[str, str] | None = None,
    ) -> Reject:
        """A refused row; `offer`, the key fields of the offer it is a price of that the parser
        knows (region, instance_type, pricing_model, ...), keeps that offer open: the rest
        are the record's defaults, and a field given as None, one it cannot tell, matches any.
        `unpriced`, for a row saying its offer is not sold ("—", "Contact us"), which keeps
        nothing open: that offer's key fields, as its record would have them, so that a copy of
        the row pricing it in the same payload is refused with it (Reject.unpriced).
        TooManyOffers past the bound of the parse under way (offers_bounded)."""
        count_refused()
        unpriced_key = self.key(unpriced) if unpriced is not None else {}
        if offer is None:
            return Reject(self.source, reason, row, sku, self.payload_ref, unpriced=unpriced_key)
        return Reject(
            self.source, reason, row, sku, self.payload_ref, self.key(offer), unpriced_key
        )

    def key(self, offer: dict[str, str | None]) -> dict[str, str]:
        """The key fields of `offer` (OFFER_KEY), the record's defaults where it gives none;
        a field given as None left out."""
        known = {**OFFER_DEFAULTS, "provider": self.provider, **offer}
        return {name: value for name in OFFER_KEY if (value := known.get(name)) is not None}

    def offer(self, **shared: Any) -> Offer:
        """What this origin's records of one rented thing share (instance type, chip, region,
        ...), for a row that lists several prices of it."""
        return Offer(self, shared)


@dataclass(frozen=True)
class Offer:
    """One thing a provider rents, as one origin lists it: each of its prices is a record."""

    origin: Origin
    shared: dict[str, Any]

    def record(self, **price: Any) -> PriceRecord:
        """A record of one price (pricing model, term, price, ...); its `extra` follows the
        offer's own."""
        fields = {**self.shared, **price}
        if "extra" in fields:  # each record its own dict: a later step may add to one
            fields["extra"] = {**self.shared.get("extra", {}), **price.get("extra", {})}
        return self.origin.record(**fields)


ALIASES_FILE = "core/data/chip_aliases.csv"
# A JSON API sends prices as numbers or plain decimal strings ("2.19"). Anything else there
# ("$2.49/hr", "2,49", "\u0662.19" in Arabic-Indic digits) means the API changed what it sends:
# refused, not guessed at. [0-9], not \d: \d matches every script's digits.
PLAIN_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
# A number as price files and feeds write it: ASCII digits, at most one point, and an
# exponent at most ("9.0E-4", the spot feed's small prices). float() reads more, each of
# which is refused: "1_7.776" (as 17.776), digits of other scripts ("\u0667.1220" as 7.122),
# spaces or a line break around it, a sign, "infinity", "nan".
DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


# The longest a provider's name may be (a GPU model, an instance type, a region, a zone, a
# SKU): they are tens of characters (the sample's longest, 52), and a longer one is a misread
# page or a planted answer, not a name (no GPU model is 60 MB long). A row naming one is
# refused before a record or a note is made of it, at the bound the validator refuses a
# record's names past (transform/validate.py MAX_NAME): the parse refuses what it would.
LONGEST_NAME = LONGEST_SPELLING
# The fields of a record that name its offer, each held to LONGEST_NAME.
NAMES = ("region", "zone", "instance_type", "sku")


class NameTooLong(ValueError):
    """A name past LONGEST_NAME read in a row: the row is refused, this the reason (read_row)."""


def too_long(what: str, text: str) -> str:
    """The reason a row naming `text` as its `what` is refused: its length and first words."""
    return (
        f"{what} of {len(text):,} characters ({text[:40]!r}...): longer than any provider's "
        f"name ({LONGEST_NAME} at most), so the row is refused (its payload is archived whole)"
    )


def overlong_names(record: PriceRecord) -> str:
    """Why `record` is refused for a name past LONGEST_NAME (NAMES), or a text of its extra
    (a node's id, a plan's name) past NAME_CHARS; "" when none is."""
    why = [
        too_long(name, value)
        for name in NAMES
        if isinstance(value := getattr(record, name), str) and len(value) > LONGEST_NAME
    ]
    if (found := first_long(record.extra, NAME_CHARS)) is not None:
        key, text = found
        why.append(
            f"extra{f' {key!r}' if key else ''} of {len(text):,} characters ({text[:40]!r}...): "
            f"longer than any provider's name or id ({NAME_CHARS:,} at most), so the row is "
            "refused (its payload is archived whole)"
        )
    return "; ".join(why)


class ChipNames:
    """Canonical chips for one parse, remembering spellings that map to none (for the note),
    apart by whether the rows naming them made a record or were all refused.

    Notes carry no source prefix: the run summary and the flow log put the source in front.
    """

    def __init__(self, provider: str, source: str = "") -> None:
        self.provider = provider
        self.source = source  # the aliases listed for this source are read first
        # Each spelling, the memory first stated: of a row that made a record, of rows that
        # made none (refused), and of the row being read (row_done files them).
        self.unknown: dict[str, float | None] = {}
        self.refused: dict[str, float | None] = {}
        self._row: dict[str, float | None] = {}

    def chip(self, spelling: str, memory_gb: float | None = None) -> str:
        """The canonical chip of `spelling`; NameTooLong (its row refused) past LONGEST_NAME."""
        if isinstance(spelling, str) and len(spelling) > LONGEST_NAME:
            raise NameTooLong(too_long("GPU model", spelling))
        chip = canonical_chip(spelling, memory_gb, self.source)
        if chip == UNKNOWN_CHIP:
            self._row.setdefault(spelling, memory_gb)
        return chip

    def row_done(self, loaded: bool) -> None:
        """The row being read ended: `loaded` when it made a record, not when it was refused."""
        into = self.unknown if loaded else self.refused
        for spelling, memory in self._row.items():
            into.setdefault(spelling, memory)
        self._row = {}

    def notes(self) -> list[str]:
        self.row_done(loaded=True)  # a spelling read outside a row's reading, as before
        notes = []
        if self.unknown:
            names = ", ".join(self._said(s, self.unknown) for s in sorted(self.unknown))
            notes.append(
                f"{len(self.unknown)} GPU name(s) map to no canonical chip and were loaded as "
                f"'unknown': {names}; add them to {ALIASES_FILE} if they name a known chip"
            )
        refused = {s: m for s, m in self.refused.items() if s not in self.unknown}
        if refused:
            names = ", ".join(self._said(s, refused) for s in sorted(refused))
            notes.append(
                f"{len(refused)} GPU name(s) map to no canonical chip, in rows refused for "
                f"another reason (none loaded): {names}; add them to {ALIASES_FILE} if they "
                "name a known chip"
            )
        return notes

    def _said(self, spelling: str, found: dict[str, float | None]) -> str:
        """'A100 (needs its memory: 40 GB A100-40GB, 80 GB A100-80GB; stated 48 GB)': a spelling
        the aliases read only at a memory, and the memory the payload stated."""
        needed = read_at_memory(spelling, self.source)
        if not needed:
            return spelling
        memory = found[spelling]
        stated = "none" if memory is None else f"{memory:g} GB"
        at = ", ".join(f"{gb:g} GB {chip}" for chip, gb in needed)
        return f"{spelling} (needs its memory: {at}; stated {stated})"


def json_price(value: object, what: str) -> tuple[float | None, str]:
    """(USD amount, "") for a JSON price field, or (None, why it cannot be used)."""
    if value is None or isinstance(value, bool):
        return None, f"{what}: no price ({value!r})"
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and PLAIN_NUMBER.fullmatch(value.strip()):
        number = float(value.strip())
    elif isinstance(value, str) and " ".join(value.split()).lower() in NOT_A_PRICE:
        return None, f"{what}: no price listed ({value.strip() or 'empty'})"
    else:
        return None, f"{what}: price {value!r} is not a plain number as this API sends prices"
    if not number > 0 or number == float("inf"):
        return None, f"{what}: price {value!r} is not a positive amount"
    return number, ""


# What reading a row of unexpected types raises (None[0], int("x"), hash([]), 10**5000 as
# text): each refuses its row, never the source. ChipcostError (a ValueError) is re-raised by
# those who catch these: the parser's own refusal of the whole payload.
ROW_FAILURES = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError)


class WatchedRow(dict):
    """A JSON row that remembers the field read last: the one a failure names."""

    last: Any = None

    def __getitem__(self, key: Any) -> Any:
        self.last = key
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self.last = key
        return super().get(key, default)


class RowUnreadable(Exception):
    """A row whose reading failed; the message is the reject's reason (read_row)."""


def read_row(read: Callable[[Any], T], row: Any) -> T:
    """`read(row)`, or RowUnreadable naming the field read last and what failed: the loop
    that reads rows refuses this one with that reason and goes on (chipcost's own errors,
    refusals of the whole payload, pass through)."""
    watched = WatchedRow(row) if type(row) is dict else row
    try:
        return read(watched)
    except ROW_FAILURES as exc:
        if isinstance(exc, ChipcostError):
            raise
        if isinstance(exc, NameTooLong):  # its own reason, whichever field was read last
            raise RowUnreadable(str(exc)) from exc
        field = watched.last if isinstance(watched, WatchedRow) else None
        raise RowUnreadable(unreadable(exc, field, row)) from exc


def unreadable(exc: BaseException, field: Any, row: Any) -> str:
    """A reject's reason for a row whose reading failed: the field read last, its value, and
    what the parser met ("field 'availability' = 7: 'int' object is not iterable")."""
    what = str(exc) or type(exc).__name__
    if len(what) > 200:
        what = what[:200] + "..."
    if field is None or not isinstance(row, dict) or field not in row:
        return f"row of an unexpected shape: {what}"
    shown = repr(row[field])
    shown = shown if len(shown) <= 60 else shown[:60] + "..."
    return f"field {field!r} = {shown} is not what the parser reads: {what}"


@dataclass(frozen=True)
class Lookup(Generic[K, T]):
    """Entries of a table a source prices its offers from (a pricebook by GPU name), each key
    once: `twice` holds the keys listed at two different prices, with those prices."""

    entries: dict[K, T]
    twice: dict[K, list[str]]

    def conflict(self, key: K, what: str) -> str:
        """A reject's reason for an offer priced from a key listed twice, or "" when it is not."""
        if key not in self.twice:
            return ""
        return (
            f"{what} {key!r} is listed {len(self.twice[key])} times at different prices "
            f"({', '.join(self.twice[key])}): which one applies cannot be told, so none is used"
        )


def one_each(
    entries: Iterable[T], key: Callable[[T], K | None], price: Callable[[T], object]
) -> Lookup[K, T]:
    """A lookup of `entries` by `key` (None: not an entry): one listed twice at the same
    `price` is one; at two prices it is a conflict (Lookup.twice), never the first or the
    last taken, since one offer priced twice in one answer tells nothing of which is right."""
    found: dict[K, T] = {}
    prices: dict[K, dict[str, None]] = {}
    for entry in entries:
        name = key(entry)
        if name is None:
            continue
        found.setdefault(name, entry)
        prices.setdefault(name, {})[repr(price(entry))] = None
    twice = {name: list(seen) for name, seen in prices.items() if len(seen) > 1}
    return Lookup(found, twice)


# How many decimals a marketplace's summary keeps of its median, min and max: a median of per-GPU
# prices (an offer's price over its GPU count) is otherwise a long fraction of a cent.
SUMMARY_DIGITS = 4


def market_medians(
    records: Iterable[PriceRecord],
    market: Callable[[PriceRecord], tuple[str, ...]],
    counted: str,
    beside: Callable[[list[PriceRecord], PriceRecord], dict[str, Any]],
) -> list[PriceRecord]:
    """One record per market (the records `market` gives one key): its cheapest record priced at
    the median of them all, so that one odd host does not become the price, with the spread and
    how many `counted` ("offers", "machines") in its extra, after what `beside(records,
    cheapest)` says of the market (the GPUs it holds, the cheapest offer's id)."""
    markets: dict[tuple[str, ...], list[PriceRecord]] = defaultdict(list)
    for record in records:
        markets[market(record)].append(record)
    found = []
    for _, same in sorted(markets.items()):
        prices = sorted(r.price_per_hour for r in same)
        cheapest = min(same, key=lambda r: r.price_per_hour)
        extra = {
            **beside(same, cheapest),
            "statistic": f"median of {counted}, per GPU-hour",
            "min": round(prices[0], SUMMARY_DIGITS),
            "max": round(prices[-1], SUMMARY_DIGITS),
            counted: len(same),
        }
        median = round(statistics.median(prices), SUMMARY_DIGITS)
        found.append(replace(cheapest, price_per_hour=median, extra=extra))
    return found


def reject(source: str, reason: str, row: Any, payload: Payload, sku: str = "") -> Reject:
    count_refused()
    return Reject(source=source, reason=reason, row=row, sku=sku, payload_ref=payload.ref)


def slug(text: str) -> str:
    """'NORTH AMERICA' -> 'north-america': a stable region code from a page label."""
    return re.sub(r"[^a-z0-9]+", "-", text.strip().lower()).strip("-")


# Python refuses to read an integer of more digits than this (CVE-2020-10735's limit).
_INT_DIGITS = 4300


def _json_int(text: str) -> int | float:
    # Past the limit int() raises; as a float it is infinity, which every price, count and
    # size check refuses for its row: one such number refuses one row, not the payload.
    return int(text) if len(text) <= _INT_DIGITS else float(text)


class TooDeep(ParseError):
    """A JSON document nested deeper than the reader goes (its recursion limit, about 1,000
    levels): no provider's answer is, so the payload is refused, never a crash."""


def json_of(data: str | bytes) -> Any:
    """json.loads, with an integer too long to read as infinity, for its row to refuse; a
    document nested past the reader's depth is TooDeep (a ParseError)."""
    try:
        return json.loads(data, parse_int=_json_int)
    except RecursionError:
        raise TooDeep(
            "a JSON document nested deeper than the JSON reader goes (about 1,000 levels): "
            "not a provider's answer; report it"
        ) from None


def load_json(payload: Payload, provider: str) -> Any:
    """A payload's JSON, or a ParseError naming the provider, URL and archived file."""
    try:
        return json_of(payload.data)
    except TooDeep:
        raise ParseError(
            f"{provider}: the response from {payload.url} ({payload.ref or payload.name}) is "
            "nested deeper than the JSON reader goes: not the API's answer; report it"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(
            f"{provider}: the response from {payload.url} ({payload.ref or payload.name}) is "
            f"not JSON ({exc}): the API changed or returned an error page; report it, then "
            f"re-parse the archived payload with `{REPLAY}` once fixed"
        ) from exc


def shape_error(provider: str, payload: Payload, expected: str, found: object) -> ParseError:
    """A ParseError for a JSON document whose top level is not what the parser reads."""
    if isinstance(found, dict):
        what = "keys " + ", ".join(sorted(found)) if found else "an empty object"
    else:
        what = type(found).__name__
    return ParseError(
        f"{provider}: the response from {payload.url} ({payload.ref or payload.name}) has no "
        f"{expected} (found {what}): the API format changed; report it, then re-parse the "
        f"archived payload with `{REPLAY}` once fixed"
    )


def field_names(rows: Iterable[Any]) -> set[str]:
    """The union of the keys of the dict rows (for a "renamed field" check)."""
    return {key for row in rows if isinstance(row, dict) for key in row}


def listed_rows(
    payload: Payload, provider: str, key: str, fields: Iterable[str], body: object = None
) -> list[Any]:
    """The list under `key` of a JSON payload (`body`, when already read), its rows checked
    for every field the parser reads: a renamed field fails the parse, naming it."""
    body = load_json(payload, provider) if body is None else body
    rows = body.get(key) if isinstance(body, dict) else None
    if not isinstance(rows, list):
        raise shape_error(provider, payload, f"{key} list", body)
    if rows:
        require_columns(field_names(rows), fields, payload, provider)
    return rows


def missing_key(variable: str, provider: str, where: str) -> SourceSkipped:
    """'JL_API_KEY is not set: ...': the run goes on and the summary says what to set."""
    return SourceSkipped(
        f"{variable} is not set: {provider}'s price API needs a key; create one in {where} and set "
        f"{variable} to collect {provider} prices (or run `{REPLAY_DIR}`)"
    )


def decimal(value: object) -> float | None:
    """A number (int or float, not bool) or text of DECIMAL as a finite float; None for
    anything else, text float() would read otherwise included ("1_7.776", " 2.5")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an int past a float's range (10**400)
            return None
    elif isinstance(value, str) and DECIMAL.fullmatch(value):
        number = float(value)
    else:
        return None
    return number if math.isfinite(number) else None


def positive(text: object, name: str, refused: type[Exception]) -> float:
    """A price written as text (or a number) as a float, or `refused` saying "NAME 'x' is
    not a positive number" when it is not a positive, finite one written in ASCII digits
    (DECIMAL): text float() alone would read as another number ("1_7.776") is refused too."""
    value = decimal(text)
    if value is None or value <= 0:
        raise refused(f"{name} {text!r} is not a positive number")
    return value
