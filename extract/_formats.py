"""The formats a source has read, declared once beside its parser: which answers each is (by
the URL path the archive's manifest keeps beside every payload), where its rows are, and the
fields of those rows with their JSON types. The parser dispatches by it (an archived answer of
a retired API version is read by that version's parser) and takes its required fields from it;
every run compares each payload with it and says what is new, missing or changed (`drift`)
before any price is parsed."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from chipcost.core.payload import Payload
from chipcost.extract._estimate import ESTIMATE_KEY

# How every drift note starts: `chipcost sources` picks the latest run's notes out by it.
DRIFT = "format drift"
# The JSON types a field may be declared with; "number" takes integers too.
TYPES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})
# chipcost's own marks in the sample's payloads, no provider's field, so never said new: the
# estimate mark, and `chipcostSample`, the label "synthetic sample data, ..." the sample
# builders added before it (chipcost's archives of that time still replay).
SAMPLE_MARKS = frozenset({ESTIMATE_KEY, "chipcostSample"})
# A field's name that says its row's currency, once case, '_' and '-' are set aside: currency,
# currency_code, currencyCode, CURRENCY-CODE.
CURRENCY_NAMES = frozenset({"currency", "currencycode"})
# The bytes of a payload that may name one: a payload without them is not decoded to look.
_CURRENCY_BYTES = re.compile(rb"(?i)currency")


@dataclass(frozen=True)
class Rows:
    """The rows at one place of a format's answer and their fields.

    `at`: the path to them, dot-separated from the document's top: `name[]` is each item of
    the list under `name` (`[]` alone: each item of a document that is a list), `*` each
    value of an object keyed by id ("data.locations[]", "[]", "hostnodes.*",
    "hostnodes.*.specs.gpu.*"). `fields`: every field the rows are known to
    carry, by its JSON type ("string", "number|null", ...); `required`: those the parser
    cannot read a row without (a rename of one fails the parse naming it)."""

    at: str
    fields: Mapping[str, str]
    required: tuple[str, ...] = ()
    # Fields only some answers carry (a documented example's, a provider's optional ones):
    # not said missing when no row has them.
    optional: tuple[str, ...] = ()
    # False for a place some answers lack by design (an error the API answered in place of the
    # list, archived as it came): its absence is not said.
    always: bool = True
    # Where these rows are the source's offers: the keys, at any depth inside a row, its prices
    # are under (the sample moves them: sample/build/_table.py reads them from here).
    prices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name, kind in self.fields.items():
            if not set(kind.split("|")) <= TYPES:
                raise ValueError(f"{self.at}.{name}: unknown JSON type {kind!r}")
        unknown = (set(self.required) | set(self.optional)) - set(self.fields)
        if unknown:
            raise ValueError(f"{self.at}: fields not declared: {sorted(unknown)}")


@dataclass(frozen=True)
class Format:
    """One format a source has read: `name` (the API and version), the URL `path` its answers
    come from (a payload is this format when its archived URL's path ends so), its `rows`, and
    `retired`: when and why it stopped being fetched ("" while fetched). A retired format's
    parser stays, so an archive of it replays."""

    name: str
    path: str
    rows: tuple[Rows, ...]
    retired: str = ""
    # How a payload's bytes are read as a document: JSON unless the source says (a JSONP feed
    # unwrapped by its own reader).
    decode: Callable[[bytes], Any] = json.loads
    fields_at: dict[str, Rows] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields_at", {r.at: r for r in self.rows})

    def matches(self, url: str) -> bool:
        return urlsplit(url).path.rstrip("/").endswith(self.path.rstrip("/"))

    def required(self, at: str) -> tuple[str, ...]:
        """The fields the parser needs of the rows at `at`."""
        return self.fields_at[at].required


def format_of(formats: Sequence[Format], payload: Payload) -> Format | None:
    """The declared format an archived payload is, by the URL it was fetched from."""
    return next((f for f in formats if f.matches(payload.url)), None)


def walk(document: Any, at: str) -> list[Any] | None:
    """The rows at `at` of a document, or None when the path itself is not there."""
    nodes = [document]
    for step in at.split("."):
        found: list[Any] = []
        for node in nodes:
            if step == "*":
                if not isinstance(node, dict):
                    return None
                found += list(node.values())
                continue
            name, each = (step[:-2], True) if step.endswith("[]") else (step, False)
            if not name and each:  # a document (or row) that is itself the list
                if not isinstance(node, list):
                    return None
                found += node
                continue
            if not isinstance(node, dict) or name not in node:
                return None
            value = node[name]
            if each and not isinstance(value, list):
                return None
            found += value if each else [value]
        nodes = found
    return nodes


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _accepts(declared: str, seen: str) -> bool:
    kinds = set(declared.split("|"))
    return seen in kinds or (seen == "integer" and "number" in kinds)


@dataclass
class _Seen:
    """What the payloads of one format showed at one place: its rows' fields and types."""

    rows: int = 0
    absent: int = 0  # payloads where the path itself was not there
    keys: Counter = field(default_factory=Counter)
    types: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))


def drift(formats: Sequence[Format], payloads: Sequence[Payload], source: str) -> list[str]:
    """What the payloads show that their declared formats do not: per format and place, the
    fields new, missing (from every row) or of another type; a payload of no declared
    format, and a place not found, said too. Payloads that are not JSON (or nested deeper than
    the reader goes) are left to the parse. Nothing when the source declares no format."""
    if not formats:
        return []
    seen: dict[tuple[str, str], _Seen] = {}
    unknown: list[str] = []
    for payload in payloads:
        known = format_of(formats, payload)
        if known is None:
            unknown.append(urlsplit(payload.url).path or payload.url)
            continue
        try:
            document = known.decode(payload.data)
        except (ValueError, RecursionError):  # not JSON, or nested past the reader: the
            continue  # parse refuses it, naming the payload
        for rows in known.rows:
            place = seen.setdefault((known.name, rows.at), _Seen())
            found = walk(document, rows.at)
            if found is None:
                place.absent += 1
                continue
            for row in found:
                if not isinstance(row, dict):
                    continue
                place.rows += 1
                place.keys.update(list(row))
                for key, value in row.items():
                    place.types[key][json_type(value)] += 1
    notes = [_said(source, formats, name, at, place) for (name, at), place in seen.items()]
    if unknown:
        names = ", ".join(sorted(set(unknown)))
        notes.append(
            f"{DRIFT} ({source}): {len(unknown)} payload(s) from {names}, a URL of no format "
            "the source declares: read as its parser finds them"
        )
    return [note for note in notes if note]


def _said(source: str, formats: Sequence[Format], name: str, at: str, place: _Seen) -> str:
    declared = next(f for f in formats if f.name == name).fields_at[at]
    parts = []
    if place.absent and declared.always:
        parts.append(f"no {at} in {place.absent} payload(s)")
    if place.rows:
        new = sorted(set(place.keys) - set(declared.fields) - SAMPLE_MARKS)
        missing = sorted(set(declared.fields) - set(place.keys) - set(declared.optional))
        if new:
            parts.append(f"new {', '.join(new)}")
        if missing:
            parts.append(f"missing {', '.join(missing)}")
        parts += list(_changed(declared, place))
    if not parts:
        return ""
    return f"{DRIFT} ({source}, {name}, {at}): {'; '.join(parts)}"


def _changed(declared: Rows, place: _Seen) -> Iterator[str]:
    for key, kind in sorted(declared.fields.items()):
        odd = {t: n for t, n in place.types.get(key, {}).items() if not _accepts(kind, t)}
        if odd:
            shown = ", ".join(f"{t} in {n} of {place.keys[key]} rows" for t, n in odd.items())
            yield f"{key} changed from {kind} to {shown}"


def names_currency(key: object) -> bool:
    """Whether a field's name says a currency (CURRENCY_NAMES)."""
    return isinstance(key, str) and key.lower().replace("_", "").replace("-", "") in CURRENCY_NAMES


@dataclass(frozen=True, eq=False)
class Stated:
    """A currency a row states in a field its format does not declare (`key` = `value`, new at
    `at`): a price of that row read in another currency is not loaded (stated_currencies)."""

    at: str
    key: str
    value: Any

    def other_than(self, currency: str) -> bool:
        """Whether it says another currency than `currency`: a null or empty one says none;
        "usd" is USD; a value that is no currency's code (a number, an object) is another."""
        if self.value is None or self.value == "":
            return False
        return not isinstance(self.value, str) or self.value.strip().upper() != currency

    def reason(self, currency: str) -> str:
        where = f"new at {self.at}" if self.at else "its format does not declare"
        return (
            f"{self.key} {self.value!r:.40}, a field {where}, says another currency than "
            f"{currency}, the one its price is read in: not loaded as {currency}"
        )


@dataclass(frozen=True)
class StatedCurrencies:
    """The currencies one payload's rows state in fields its format does not declare: by the
    id of each row stating one and of every list and object inside it (`by_node`, the rows
    of the document they were found in), and the fields the format declares anywhere (a row
    read from another copy of the document is found by a currency field of its own not among
    them)."""

    by_node: dict[int, tuple[Stated, ...]]
    declared: frozenset[str]
    # The document the ids are of, held while they are asked.
    document: Any = field(repr=False)

    def of_row(self, row: Any) -> list[Stated]:
        """What `row` states: its own fields, those of the rows inside it, of the row it is in;
        a row of another copy of the document, its own currency fields the format declares
        nowhere."""
        found: dict[int, Stated] = {}
        nodes = [row]
        while nodes:
            node = nodes.pop()
            found |= {id(said): said for said in self.by_node.get(id(node), ())}
            nodes += _inside(node)
        if found or not isinstance(row, dict):
            return list(found.values())
        return [
            Stated("", key, value)
            for key, value in row.items()
            if names_currency(key) and key not in self.declared
        ]


def stated_currencies(
    formats: Sequence[Format], payload: Payload, document: Callable[[], Any] | None = None
) -> StatedCurrencies | None:
    """The currencies `payload`'s rows state in a field new at their place (named like
    currency, currency_code or currencyCode, in any case), or None where none does: a row's
    own word on its currency, which the parser does not read, is not overruled by the currency
    the source reads its prices in. `document`: the payload's JSON as the parser reads it (its
    rows then found by identity); else decoded here. Nothing for a payload of no declared
    format, one not JSON, or one whose bytes never say "currency"."""
    known = format_of(formats, payload)
    if known is None or not known.rows or not _CURRENCY_BYTES.search(payload.data):
        return None
    try:
        if document is not None and known.decode is json.loads:  # not a JSONP feed's
            body = document()
        else:
            body = known.decode(payload.data)
    except (ValueError, RecursionError):  # the parse refuses it, naming the payload
        return None
    declared = frozenset(name for rows in known.rows for name in rows.fields)
    by_node: dict[int, tuple[Stated, ...]] = {}
    for rows in known.rows:
        for row in walk(body, rows.at) or ():
            if not isinstance(row, dict):
                continue
            said = tuple(
                Stated(rows.at, key, value)
                for key, value in row.items()
                if names_currency(key) and key not in rows.fields
            )
            if said:
                _mark(row, said, by_node)
    return StatedCurrencies(by_node, declared, body) if by_node else None


def _mark(row: dict, said: tuple[Stated, ...], by_node: dict[int, tuple[Stated, ...]]) -> None:
    """`said` filed under the row and each list and object inside it."""
    nodes: list[Any] = [row]
    while nodes:
        node = nodes.pop()
        by_node[id(node)] = by_node.get(id(node), ()) + said
        nodes += _inside(node)


def _inside(node: Any) -> list[Any]:
    """The lists and objects right inside a JSON node."""
    values = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    return [value for value in values if isinstance(value, dict | list)]
