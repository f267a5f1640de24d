"""One offer priced twice in one answer is refused, in every source: each source's recorded
good payloads (tests/fixtures/<source>/contract.toml), every list of objects in them (the
offers, a pricebook, a flavour's pricings, a region's prices...) given a copy of one entry
with one of its numbers changed, the copy put after the entry and before it. Whatever the
source reads that number as, an offer the payload alone prices must come out at that price
or not at all (both prices refused, with rejects saying why): never the copy's price because
it came last, nor the entry's because it came first. Lists and numbers are sampled, the same
every run, to keep the walk within seconds."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import registry
from chipcost.extract.base import offers_priced_once
from tests.helpers import record
from tests.sources import contract, nested_json

SOURCES = registry()
# Kinds of list tried per payload, entries per list (spread over it: a pricebook's first
# entry may price nothing the payload lists), numbers per entry: within seconds.
MAX_LISTS = 10
MAX_ENTRIES = 8
MAX_NUMBERS = 4
# Copies tried per source (each twice: after its entry and before), spread over all of them.
MAX_VARIANTS = 40
# Sources whose price of an offer is made of many entries on purpose, where one more entry
# at another number moves it, as it should: a marketplace's median of its hosts' asks (the
# kit's `combine`), the cheapest of AWS's Capacity Block offerings at their start dates, and
# the cheapest of Prime Intellect's listings of one configuration by one seller.
SUMMARISED = frozenset(
    {
        "aws-capacity-blocks",
        "primeintellect",
        *(name for name, s in SOURCES.items() if s.combine is not None),
    }
)
Path_ = tuple[Any, ...]


def _node(value: Any) -> Any:
    inner = nested_json(value)
    return inner if inner is not None else value


def _lists(node: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every list holding an object, by its path (text-nested JSON walked too)."""
    node = _node(node)
    if isinstance(node, list):
        if any(isinstance(_node(v), dict) for v in node):
            yield at
        items = list(enumerate(node))[:50]
    elif isinstance(node, dict):
        items = list(node.items())
    else:
        return
    for key, value in items:
        yield from _lists(value, (*at, key))


def _numbers(node: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every number (or number written as text) inside an entry, by its path."""
    node = _node(node)
    if isinstance(node, dict):
        items = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))[:5]
    else:
        if _changed(node) is not None:
            yield at
        return
    for key, value in items:
        yield from _numbers(value, (*at, key))


def _changed(value: Any) -> Any:
    """The number twice over plus one (a price, a count, a period: any number the copy
    states otherwise), or None for what is no number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return type(value)(value * 2 + 1)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return f"{number * 2 + 1:g}"
    return None


def _get(doc: Any, path: Path_) -> Any:
    for key in path:
        doc = _node(doc)[key]
    return doc


def _set(doc: Any, path: Path_, value: Any) -> Any:
    """`doc` with the value at `path` replaced, text-nested JSON re-encoded as it was."""
    inner = nested_json(doc)
    if inner is not None:
        return json.dumps(_set(inner, path, value))
    if not path:
        return value
    doc = copy.copy(doc)
    doc[path[0]] = _set(doc[path[0]], path[1:], value)
    return doc


def _kinds_of_list(doc: Any) -> list[Path_]:
    """Lists of each kind (their path with list positions as '*': every flavour's pricings
    is one kind), the first of each, the kinds sampled."""
    kinds: dict[Path_, list[Path_]] = {}
    for at in _lists(doc):
        kinds.setdefault(tuple("*" if isinstance(k, int) else k for k in at), []).append(at)
    chosen = _sampled(sorted(kinds, key=len), MAX_LISTS)
    return [kinds[kind][0] for kind in chosen]


# Names of the numbers a price is read from, tried first: an entry has more numbers (limits,
# sizes, phases) than are tried.
PRICEY = re.compile(r"(?i)price|value|cost|rate|amount|units|nanos|interval|count|number|hour")


def _first_numbers(entry: Any) -> list[Path_]:
    found = list(_numbers(entry))
    found.sort(key=lambda at: not any(PRICEY.search(str(k)) for k in at[-1:]))
    return found[:MAX_NUMBERS]


def _sampled(paths: list[Path_], most: int) -> list[Path_]:
    if len(paths) <= most:
        return paths
    step = len(paths) / most
    return [paths[int(n * step)] for n in range(most)]


def _parse(source: str, payloads: list[Payload]) -> ParseResult | None:
    try:
        return SOURCES[source].parse(payloads)
    except ChipcostError:
        return None  # the payload refused whole: nothing wrong got in


def _prices(result: ParseResult) -> dict[tuple, tuple]:
    return {
        (r.payload_ref, *r.offer_key()): (r.price_per_hour, r.upfront, r.currency)
        for r in result.records
    }


def _variants(payloads: list[Payload]) -> Iterator[tuple[str, list[Payload]]]:
    """(what was done, the payloads) for each list, entry, number and side of the copy,
    sampled to MAX_VARIANTS."""
    docs = {i: doc for i, p in enumerate(payloads) if (doc := _json(p)) is not None}
    copies = [
        (index, at, n, number)
        for index, doc in docs.items()
        for at in _kinds_of_list(doc)
        for n in _objects(_node(_get(doc, at)))
        for number in _first_numbers(_node(_get(doc, at))[n])
    ]
    for index, at, n, number in _sampled(copies, MAX_VARIANTS):
        doc, found = docs[index], payloads[index]
        entries = _node(_get(doc, at))
        twin = _set(entries[n], number, _changed(_get(entries[n], number)))
        for side, where in (("after", n + 1), ("before", n)):
            changed = [*entries[:where], twin, *entries[where:]]
            varied = dataclasses.replace(found, data=json.dumps(_set(doc, at, changed)).encode())
            what = f"{found.name} {list(at)}[{n}] {list(number)} copied {side}"
            yield what, [*payloads[:index], varied, *payloads[index + 1 :]]


def _objects(entries: list) -> list[int]:
    return _sampled([i for i, v in enumerate(entries) if isinstance(_node(v), dict)], MAX_ENTRIES)


def _json(found: Payload) -> Any:
    try:
        return json.loads(found.data)
    except ValueError:
        return None  # an HTML, XML or CSV payload


def _json_sources() -> list[str]:
    names = []
    for name in sorted(SOURCES):
        found = contract(name)
        if found is None or not found.good or name in SUMMARISED or SOURCES[name].reference:
            continue
        payloads = found.good_payloads()
        if any(_json(p) is not None for p in payloads):
            names.append(name)
    return names


@pytest.mark.parametrize("source", _json_sources())
def test_an_entry_listed_twice_at_another_number_never_changes_a_price(source):
    payloads = contract(source).good_payloads()
    whole = _parse(source, payloads)
    assert whole is not None and whole.records, f"{source}: its good fixtures load nothing"
    alone = _prices(whole)
    failures = []
    for what, varied in _variants(payloads):
        result = _parse(source, varied)
        if result is None:
            continue
        found = _prices(result)
        moved = {k: (alone[k], v) for k, v in found.items() if k in alone and v != alone[k]}
        if moved:
            key, (was, now) = next(iter(moved.items()))
            failures.append(f"{what}: {key[1:]} at {now}, the payload alone says {was}")
        if set(alone) - set(found) and len(result.rejects) <= len(whole.rejects):
            failures.append(f"{what}: an offer went without a reject")
    assert not failures, f"{source}:\n" + "\n".join(failures[:20])


def test_the_kit_refuses_both_prices_and_keeps_one_of_equal_ones():
    """The rule itself, for sources whose parse is their own: two prices of one key in one
    payload are two rejects naming both; equal ones are one record; other payloads' keys
    are judged apart (a run's two pages are the validator's to judge)."""
    cheap, dear = record(price_per_hour=2.8), record(price_per_hour=3.06)
    euro = record(price_per_hour=2.8, currency="EUR")
    other_page = record(price_per_hour=9.0, payload_ref="elsewhere/0002.json.gz")
    kept = offers_priced_once(ParseResult(records=[cheap, record(price_per_hour=2.8)]))
    assert kept.records == [cheap] and not kept.rejects
    for one, two in ((cheap, dear), (cheap, euro), (dear, record(upfront=5.0))):
        result = offers_priced_once(ParseResult(records=[one, two, other_page]))
        assert result.records == [other_page]
        assert [r.sku for r in result.rejects] == [one.sku, two.sku]
        # Each names the offer, which stays open: a source without skus withdrew it.
        assert {tuple(r.offer.values()) for r in result.rejects} == {one.offer_key()}
        reason = result.rejects[0].reason
        assert "priced 2 times in one payload" in reason
        assert f"{one.price_per_hour!r}" in reason and two.currency in reason


def test_a_source_of_its_own_parse_keeps_the_rule():
    """Every registered source's parse is the kit's rule over its own: a record priced
    twice never reaches the loader, whichever way the source parses."""
    twice = [record(price_per_hour=1.0), record(price_per_hour=2.0)]

    def own(_: Any) -> ParseResult:
        return ParseResult(records=list(twice))

    for name, source in SOURCES.items():
        copied = dataclasses.replace(source, parse=own, rows=None, offers=None)
        result = copied.parse([])
        assert not result.records and len(result.rejects) == 2, name
