"""One bad row is one reject, in every source: each source's recorded good payloads
(tests/fixtures/<source>/contract.toml), one offer row at a time with each of its fields in
turn replaced by null, a number, a string, a list and an object. The source must still load
its other rows, and never end in an exception other than chipcost's own (which the run
reports as "unexpected ... a bug in chipcost" and loses the day's prices)."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import registry
from tests.sources import contract

# What a provider may send where another type was expected; the text is one no row holds.
ODD = {
    "null": None,
    "number": 7,
    "string": "odd value",
    "list": [1, "two", None],
    "object": {"odd": [None]},
    # a JSON number too long for Python to read as an integer (more than 4,300 digits)
    "huge number": "HUGE",
}
HUGE = "9" * 5000
# Fields tried per source (evenly spaced over its row's fields, the same every run): the
# whole walk stays within seconds.
MAX_FIELDS = 16
Path_ = tuple[Any, ...]


def _decoded(value: Any) -> Any:
    """A JSON document nested as text (AWS's PriceList entries), decoded; else None."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return None
    return None


def _is_object(value: Any) -> bool:
    return isinstance(value, dict) or isinstance(_decoded(value), dict)


def _row_lists(node: Any, at: Path_ = ()) -> Iterator[tuple[Path_, list]]:
    """Every list of objects (or object of objects, a listing keyed by name) in a document,
    by its path and row keys (text-nested JSON walked too)."""
    if isinstance(node, list):
        items = list(enumerate(node))
    elif isinstance(node, dict):
        items = list(node.items())
    else:
        return
    if sum(_is_object(value) for _, value in items) >= 2:
        yield at, [key for key, value in items if _is_object(value)]
    for key, value in items:
        inner = _decoded(value)
        yield from _row_lists(inner if inner is not None else value, (*at, key))


def _get(doc: Any, path: Path_) -> Any:
    for key in path:
        inner = _decoded(doc)
        doc = (inner if inner is not None else doc)[key]
    return doc


def _set(doc: Any, path: Path_, value: Any, *, delete: bool = False) -> Any:
    """`doc` with the value at `path` replaced (or its list entry deleted), text-nested JSON
    re-encoded as it was."""
    inner = _decoded(doc)
    if inner is not None:
        return json.dumps(_set(inner, path, value, delete=delete))
    if not path:
        return value
    doc = copy.copy(doc)
    key, rest = path[0], path[1:]
    if delete and not rest:
        del doc[key]
    else:
        doc[key] = _set(doc[key], rest, value, delete=delete)
    return doc


def _fields(row: dict, at: Path_) -> list[Path_]:
    """A row's fields and its objects' fields, one level down."""
    found = []
    for key, value in row.items():
        found.append((*at, key))
        inner = _decoded(value)
        nested = inner if inner is not None else value
        if isinstance(nested, dict):
            found.extend((*at, key, sub) for sub in nested)
    return found


def _sampled(paths: list[Path_]) -> list[Path_]:
    if len(paths) <= MAX_FIELDS:
        return paths
    step = len(paths) / MAX_FIELDS
    return [paths[int(n * step)] for n in range(MAX_FIELDS)]


def _loaded(result: ParseResult) -> int:
    """Rows loaded: records, and a reference source's facts (the ECB's rates, Spot
    Advisor's interruption buckets)."""
    return len(result.records) + sum(map(len, result.facts.values()))


def _parse(source: str, payloads: list[Payload]) -> ParseResult | None:
    """The parse, or None for chipcost's own refusal; anything else fails the test."""
    try:
        return registry()[source].parse(payloads)
    except ChipcostError:
        return None


def _with(payloads: list[Payload], index: int, doc: Any) -> list[Payload]:
    # The huge number is written into the text: Python cannot write it as an int either.
    text = json.dumps(doc).replace('"HUGE"', HUGE).replace('\\"HUGE\\"', HUGE)
    changed = dataclasses.replace(payloads[index], data=text.encode())
    return [*payloads[:index], changed, *payloads[index + 1 :]]


def _offer_row(source: str, payloads: list[Payload], loaded: tuple):
    """The first row (payload, document, path) whose removal changes the records: one that
    makes offers, so damaging it tests the rest of the source going on."""
    for index, found in enumerate(payloads):
        try:
            doc = json.loads(found.data)
        except ValueError:
            continue  # an HTML, XML or script payload: no JSON rows to damage
        for at, rows in sorted(_row_lists(doc), key=lambda pair: -len(pair[1])):
            for key in rows[:12]:
                gone = _set(doc, (*at, key), None, delete=True)
                without = _parse(source, _with(payloads, index, gone))
                if without is not None and (without.records, without.facts) != loaded:
                    return index, doc, (*at, key), without
    return None


def _json_sources() -> list[str]:
    names = []
    for name in sorted(registry()):
        found = contract(name)
        if found is None or not found.good:
            continue
        if any(case.file.endswith(".json") for case in found.good):
            names.append(name)
    return names


@pytest.mark.parametrize("source", _json_sources())
def test_each_field_of_an_offer_row_replaced_leaves_the_other_rows(source):
    payloads = contract(source).good_payloads()
    whole = _parse(source, payloads)
    assert whole is not None and _loaded(whole), f"{source}: its good fixtures load nothing"
    found = _offer_row(source, payloads, (whole.records, whole.facts))
    assert found is not None, f"{source}: no JSON row of its good fixtures makes an offer"
    index, doc, row_at, without = found
    failures = []
    row = _get(doc, row_at)
    for field in _sampled(_fields(_decoded(row) or row, row_at)):
        for kind, odd in ODD.items():
            changed = _with(payloads, index, _set(doc, field, odd))
            try:
                result = _parse(source, changed)
            except Exception as exc:  # noqa: BLE001 - the failure this test is for
                failures.append(f"{field[len(row_at) :]} = {kind}: {type(exc).__name__}: {exc}")
                continue
            if result is None or _loaded(result) < _loaded(without):
                got = "a refusal" if result is None else f"{_loaded(result)} rows"
                failures.append(
                    f"{field[len(row_at) :]} = {kind}: {got}, the other rows alone load "
                    f"{_loaded(without)}"
                )
            else:
                for reject in result.rejects:
                    reject.row_json()  # stored as JSON text: must serialise
    assert not failures, f"{source}:\n" + "\n".join(failures)
