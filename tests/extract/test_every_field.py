"""One bad row is one reject, in every source: each source's recorded good payloads
(tests/fixtures/<source>/contract.toml), one offer row at a time with each of its fields in
turn replaced by null, a number, a string, a list, an object and a 5,000-digit number (as
text in a CSV line or an XML element; an HTML page's text nodes). The source must still load
its other rows, and never end in an exception other than chipcost's own (which the run
reports as "unexpected ... a bug in chipcost" and loses the day's prices). Fields are
sampled, the same every run, to keep the walk within seconds."""

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
from tests.sources import contract, nested_json

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


def _is_object(value: Any) -> bool:
    return isinstance(value, dict) or isinstance(nested_json(value), dict)


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
        inner = nested_json(value)
        yield from _row_lists(inner if inner is not None else value, (*at, key))


def _get(doc: Any, path: Path_) -> Any:
    for key in path:
        inner = nested_json(doc)
        doc = (inner if inner is not None else doc)[key]
    return doc


def _set(doc: Any, path: Path_, value: Any, *, delete: bool = False) -> Any:
    """`doc` with the value at `path` replaced (or its list entry deleted), text-nested JSON
    re-encoded as it was."""
    inner = nested_json(doc)
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
        inner = nested_json(value)
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


# Looked up once: a test parses hundreds of variants of one source's payloads.
SOURCES = registry()


def _parse(source: str, payloads: list[Payload]) -> ParseResult | None:
    """The parse, or None for chipcost's own refusal; anything else fails the test."""
    try:
        return SOURCES[source].parse(payloads)
    except ChipcostError:
        return None


# A JSONP answer (AWS's spot feed): callback({...});
JSONP = re.compile(rb"^(?P<head>\s*[\w.$]+\()(?P<body>.*)(?P<tail>\)\s*;?\s*)$", re.DOTALL)


def _document(found: Payload) -> tuple[Any, tuple[bytes, bytes]] | None:
    """A payload's JSON document and what wraps it (a JSONP callback), or None."""
    data, wrap = found.data, (b"", b"")
    if (jsonp := JSONP.match(data)) is not None:
        data, wrap = jsonp["body"], (jsonp["head"], jsonp["tail"])
    try:
        return json.loads(data), wrap
    except ValueError:
        return None  # an HTML, XML or CSV payload: walked by its text


def _with(
    payloads: list[Payload], index: int, doc: Any, wrap: tuple[bytes, bytes] = (b"", b"")
) -> list[Payload]:
    # The huge number is written into the text: Python cannot write it as an int either.
    text = json.dumps(doc).replace('"HUGE"', HUGE).replace('\\"HUGE\\"', HUGE)
    return _replaced(payloads, index, wrap[0] + text.encode() + wrap[1])


def _replaced(payloads: list[Payload], index: int, data: bytes) -> list[Payload]:
    changed = dataclasses.replace(payloads[index], data=data)
    return [*payloads[:index], changed, *payloads[index + 1 :]]


def _offer_row(source: str, payloads: list[Payload], loaded: tuple):
    """The first row (payload, document, path) whose removal changes the records: one that
    makes offers, so damaging it tests the rest of the source going on."""
    for index, found in enumerate(payloads):
        if (read := _document(found)) is None:
            continue
        doc, wrap = read
        for at, rows in sorted(_row_lists(doc), key=lambda pair: -len(pair[1])):
            for key in rows[:12]:
                gone = _set(doc, (*at, key), None, delete=True)
                without = _parse(source, _with(payloads, index, gone, wrap))
                if without is not None and (without.records, without.facts) != loaded:
                    return index, doc, wrap, (*at, key), without
    return None


def _sources(*, json_rows: bool) -> list[str]:
    """The sources whose good payloads hold JSON rows (or, `json_rows` False, none: HTML,
    XML and CSV)."""
    names = []
    for name in sorted(registry()):
        found = contract(name)
        if found is None or not found.good:
            continue
        has_json = any(_document(p) is not None for p in found.good_payloads())
        if has_json == json_rows:
            names.append(name)
    return names


@pytest.mark.parametrize("source", _sources(json_rows=True))
def test_each_field_of_an_offer_row_replaced_leaves_the_other_rows(source):
    payloads = contract(source).good_payloads()
    whole = _parse(source, payloads)
    assert whole is not None and _loaded(whole), f"{source}: its good fixtures load nothing"
    found = _offer_row(source, payloads, (whole.records, whole.facts))
    assert found is not None, f"{source}: no JSON row of its good fixtures makes an offer"
    index, doc, wrap, row_at, without = found
    failures = []
    row = _get(doc, row_at)
    for field in _sampled(_fields(nested_json(row) or row, row_at)):
        for kind, odd in ODD.items():
            changed = _with(payloads, index, _set(doc, field, odd), wrap)
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


def _is_container(value: Any) -> bool:
    return isinstance(value, dict | list) or nested_json(value) is not None


def _document_paths(node: Any, at: Path_ = (), depth: int = 0) -> list[Path_]:
    """Paths into a document two levels down, a list's first entry only: the page's own
    fields (the rows' list, a group of rows, a count) rather than every row's."""
    inner = nested_json(node)
    node = inner if inner is not None else node
    if isinstance(node, dict):
        items = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))[:1]
    else:
        return []
    found: list[Path_] = []
    for key, value in items:
        found.append((*at, key))
        if depth < 2:
            found.extend(_document_paths(value, (*at, key), depth + 1))
    return found


@pytest.mark.parametrize("source", _sources(json_rows=True))
def test_each_field_of_a_page_replaced_is_a_refusal_or_a_parse(source):
    """A page's own fields (the rows' list, a group of rows, an entry of a lookup it reads
    beside the prices) of the wrong type: chipcost's own refusal of the page, or the rows it
    can still read, never another exception (a number where a group's offers were failed
    Spheron; an entry of AWS's DescribeInstanceTypes, the whole price list)."""
    payloads = contract(source).good_payloads()
    failures = []
    for index, found in enumerate(payloads):
        if (read := _document(found)) is None:
            continue
        doc, wrap = read
        # Lists and objects first: a page is read by its containers' types.
        paths = sorted(_document_paths(doc), key=lambda at: not _is_container(_get(doc, at)))
        for field in paths[:MAX_FIELDS]:
            for kind, odd in ODD.items():
                try:
                    _parse(source, _with(payloads, index, _set(doc, field, odd), wrap))
                except Exception as exc:  # noqa: BLE001 - the failure this test is for
                    failures.append(f"{found.name} {field} = {kind}: {type(exc).__name__}: {exc}")
    assert not failures, f"{source}:\n" + "\n".join(failures)


# The same values as text, where a payload is text: a CSV cell, an XML attribute, an HTML
# text node.
ODD_TEXT = {
    "empty": b"",
    "number": b"7",
    "string": b"odd value",
    "list": b"[1, two, null]",
    "object": b"{odd: [null]}",
    "huge number": HUGE.encode(),
}
# Per kind of text payload: a row, and a field inside it (its value is group 1).
TEXT_ROWS = {
    ".csv": (re.compile(rb"^[^\n]*\n", re.MULTILINE), re.compile(rb'"([^"]*)"')),
    ".xml": (re.compile(rb"<\w+\b[^<>]*/>"), re.compile(rb'="([^"]*)"')),
    # An HTML page's body (a recorded excerpt of a page, with no <body>, is its whole text); its
    # fields are the text between tags, and the strings of table data escaped inside a script
    # (\"$7.85\", as Nebius's page carries its tables).
    ".html": (
        re.compile(rb"<body\b.*</body>|\A(?!.*<body\b).+", re.DOTALL),
        re.compile(rb'(?:>|\\")([^<>"\\]*\S[^<>"\\]*)(?:<|\\")'),
    ),
}


def _text_row(source: str, payloads: list[Payload], loaded: tuple):
    """The first row of a text payload (a CSV line, an XML element; an HTML page's body
    whole) whose removal changes what loads, with its fields' spans."""
    for index, found in enumerate(payloads):
        kind = next((k for k in TEXT_ROWS if found.name.endswith(k)), None)
        if kind is None:
            continue
        rows, fields = TEXT_ROWS[kind]
        for match in list(rows.finditer(found.data))[:400]:
            if kind == ".html":  # no row to take out: the body's text nodes
                return index, match, fields, None
            gone = found.data[: match.start()] + found.data[match.end() :]
            without = _parse(source, _replaced(payloads, index, gone))
            if without is not None and (without.records, without.facts) != loaded:
                return index, match, fields, without
    return None


# Sources whose rows are judged against the rows around them: the ECB's rate of a day against
# the median of the days either side. With the fixture's three days, one wild rate moves its
# neighbours' medians too, so they are refused with it; only a crash fails these.
JUDGED_BY_NEIGHBOURS = frozenset({"ecb-rates"})


@pytest.mark.parametrize("source", _sources(json_rows=False))
def test_each_cell_of_a_text_row_replaced_leaves_the_other_rows(source):
    """CSV (aws-bulk), XML (ecb-rates) and HTML (coreweave, nebius, crusoe) payloads: each
    field of an offer's row replaced in turn; an HTML page's text nodes, where a replaced
    header may refuse the page as a changed layout (chipcost's own error), never crash."""
    payloads = contract(source).good_payloads()
    whole = _parse(source, payloads)
    assert whole is not None and _loaded(whole), f"{source}: its good fixtures load nothing"
    found = _text_row(source, payloads, (whole.records, whole.facts))
    assert found is not None, f"{source}: no text row of its good fixtures makes an offer"
    index, row, fields, without = found
    data = payloads[index].data
    spans = [m.span(1) for m in fields.finditer(data, row.start(), row.end())]
    assert spans, f"{source}: its row has no field to replace"
    failures = []
    for start, end in _sampled(spans):
        for kind, odd in ODD_TEXT.items():
            changed = _replaced(payloads, index, data[:start] + odd + data[end:])
            shown = data[start:end][:30].decode("utf-8", "replace")
            try:
                result = _parse(source, changed)
            except Exception as exc:  # noqa: BLE001 - the failure this test is for
                failures.append(f"{shown!r} = {kind}: {type(exc).__name__}: {exc}")
                continue
            if source in JUDGED_BY_NEIGHBOURS or without is None:
                continue
            if result is None or _loaded(result) < _loaded(without):
                got = "a refusal" if result is None else f"{_loaded(result)} rows"
                failures.append(
                    f"{shown!r} = {kind}: {got}, the other rows alone load {_loaded(without)}"
                )
    assert not failures, f"{source}:\n" + "\n".join(failures)


def test_a_failing_summary_keeps_the_prices_and_says_so():
    """A source's notes over the whole parse (Azure's unmapped sizes) that fail on a value
    they did not expect leave the prices loaded, with a note naming the failure."""
    from chipcost.extract import azure

    def failing(result: ParseResult) -> list[str]:
        return [", ".join([None])]  # type: ignore[list-item] - what Azure's did on a null

    # parse=None: the kit's parse of these rows, offers and (failing) notes
    source = dataclasses.replace(registry()["azure"], notes=failing, parse=None)
    result = source.parse(contract("azure").good_payloads())
    assert result.records and source.rows is azure.rows
    assert any("the parse's notes could not be written (TypeError" in n for n in result.notes)
