"""One contract for every source: the registry x tests/fixtures/<source>/contract.toml.

Good fixtures parse to records that validate and carry their provenance; a renamed field fails
the parse naming it; bad rows become rejects with reasons, never exceptions; no provider row
is dropped without a word; a listing with no offers is refused; fetch through a mock transport
archives every payload and never a key; a 5xx is retried, then named.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import registry, source_providers
from chipcost.extract._formats import DRIFT, format_of, walk
from chipcost.extract.base import NOTHING_MADE, Page, Skip, each_row
from chipcost.transform.validate import validate_records
from tests.sources import (
    FETCHED_AT,
    SECRET,
    STAMP,
    Contract,
    context,
    contract,
    emptied,
    keyed_settings,
)

SOURCES = registry()
DECLARED = {name: found for name in SOURCES if (found := contract(name)) is not None}
COLLECTED = [name for name, source in SOURCES.items() if source.collected]


def contracts(*, fetch: bool = False, renamed: bool = False, bad_rows: bool = False) -> list:
    chosen = [
        c
        for c in DECLARED.values()
        if (not fetch or c.fetch == "http")
        and (not renamed or c.renamed)
        and (not bad_rows or c.bad_rows)
    ]
    return [pytest.param(c, id=c.source) for c in chosen]


@pytest.mark.parametrize("name", COLLECTED)
def test_every_collected_source_declares_its_contract_cases(name):
    found = DECLARED.get(name)
    assert found is not None, f"write tests/fixtures/{name}/contract.toml"
    assert found.good, f"tests/fixtures/{name}/contract.toml declares no [[good]] file"


def _facts_of(result) -> list[dict]:
    return [row for rows in result.facts.values() for row in rows]


@pytest.mark.parametrize("case", contracts())
def test_good_fixtures_parse_to_records_that_validate(case: Contract):
    source = SOURCES[case.source]
    result = source.parse(case.good_payloads())
    refs = {p.ref for p in case.good_payloads()}
    if source.reference:  # facts, not prices: each with its provenance, no price record
        assert _facts_of(result) and not result.records, case.source
        for row in _facts_of(result):
            assert row["source"] == source.name and row["observed_at"] == FETCHED_AT
            assert row["payload_ref"] in refs
        return
    assert result.records, f"{case.source}: the good fixtures gave no record"
    validated = validate_records(result.records, source_providers())
    assert not validated.rejects, [r.reason for r in validated.rejects]
    for record in result.records:
        assert (record.source, record.provider) == (source.name, source.provider)
        assert record.observed_at == FETCHED_AT and record.source_url
        assert record.payload_ref in refs
    assert not [r for r in result.rejects if r.reason == NOTHING_MADE]


def _recorded() -> list:
    return [
        pytest.param(c, found, id=f"{c.source}:{found.file}")
        for c in DECLARED.values()
        for found in c.recorded
    ]


@pytest.mark.parametrize(("case", "found"), _recorded())
def test_each_recorded_payload_parses_alone_to_records_that_validate(case: Contract, found):
    """A real answer (tests/fixtures/<source>/ORIGIN.md) the good files cannot share a run with."""
    source = SOURCES[case.source]
    result = source.parse([found.payload(case.source)])
    ref = found.payload(case.source).ref
    made = _facts_of(result) if source.reference else result.records
    assert made, f"{case.source}: {found.file} gave nothing"
    if not source.reference:
        validated = validate_records(result.records, source_providers())
        assert not validated.rejects, [r.reason for r in validated.rejects]
    assert all((r["payload_ref"] if source.reference else r.payload_ref) == ref for r in made)
    assert not [r for r in result.rejects if r.reason == NOTHING_MADE]


def _every_case(case: Contract) -> list:
    return [*case.good, *case.recorded, *case.retired]


def _retired() -> list:
    return [
        pytest.param(c, found, id=f"{c.source}:{found.file}")
        for c in DECLARED.values()
        for found in c.retired
    ]


@pytest.mark.parametrize(("case", "found"), _retired())
def test_an_answer_of_a_retired_format_still_parses(case: Contract, found):
    """An archived answer of an API the source moved on from is read by that format's parser,
    chosen by the URL the archive keeps, to records that validate."""
    source = SOURCES[case.source]
    known = format_of(source.formats, found.payload(case.source))
    assert known is not None and known.retired, (
        f"{case.source}: {found.url} is declared retired in contract.toml but matches no "
        "retired format the source declares (Source.formats)"
    )
    result = source.parse([found.payload(case.source)])
    assert result.records, f"{case.source}: {found.file} ({known.name}) gave no record"
    validated = validate_records(result.records, source_providers())
    assert not validated.rejects, [r.reason for r in validated.rejects]
    assert all(r.source_url == found.url for r in result.records)


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.source) for c in DECLARED.values() if SOURCES[c.source].formats]
)
def test_every_format_a_source_has_known_is_run_by_its_contract(case: Contract):
    """Each declared format, current or retired, has a fixture of its own in contract.toml,
    and the fixtures show no drift from what the source declares of them."""
    source = SOURCES[case.source]
    cases = _every_case(case)
    for known in source.formats:
        assert any(known.matches(c.url) for c in cases), (
            f"{case.source}: no fixture of its format {known.name!r} ({known.path}) in "
            f"tests/fixtures/{case.source}/contract.toml"
        )
    assert source.drift([c.payload(case.source) for c in cases]) == []


def _is_json(found: Payload) -> bool:
    try:
        json.loads(found.data)
    except ValueError:
        return False
    return True


# Sources some of whose answers are JSON: each declares its formats. The others read HTML,
# CSV or XML, whose layout the parser checks by the headers it needs (docs/sources.md).
JSON_SOURCES = [
    pytest.param(c, id=c.source)
    for c in DECLARED.values()
    if any(_is_json(found.payload(c.source)) for found in _every_case(c))
]


@pytest.mark.parametrize("case", JSON_SOURCES)
def test_every_source_answering_json_declares_its_formats(case: Contract):
    assert SOURCES[case.source].formats, (
        f"{case.source}: its answers are JSON but it declares no format: declare "
        "Source.formats beside its parser (extract/_formats.py, docs/layout.md)"
    )


PROBE = "chipcostProbeField"


def _decoded(source, found: Payload):
    known = format_of(source.formats, found)
    if known is None or not known.rows:
        return None, None
    try:
        return known, known.decode(found.data)
    except ValueError:
        return None, None


def _droppable(source, payloads: list[Payload]):
    """A place of a declared format the good run has rows at, and the last field it declares
    there that every row carries and the parser does not require: the first place that has
    one, else the first with rows and None (the parser requires every field declared there)."""
    places = []
    for found in payloads:
        known, document = _decoded(source, found)
        for rows in known.rows if known else ():
            got = [r for r in walk(document, rows.at) or [] if isinstance(r, dict)]
            if not got:
                continue
            carried = set.intersection(*(set(r) for r in got))
            spare = set(rows.required) | set(rows.optional)
            fields = [f for f in rows.fields if f in carried and f not in spare]
            places.append((known, rows, (fields or [None])[-1]))
    return next((p for p in places if p[2]), places[0] if places else None)


FORMATTED = [pytest.param(c, id=c.source) for c in DECLARED.values() if SOURCES[c.source].formats]


@pytest.mark.parametrize("case", FORMATTED)
def test_a_field_added_and_one_dropped_are_named_and_the_prices_still_load(case: Contract):
    """In every row at one place of the good run: a field the declaration does not know added
    and a declared field the parser does not require removed."""
    source = SOURCES[case.source]
    good = case.good_payloads()
    target = _droppable(source, good)
    assert target, f"{case.source}: no declared place of its good fixtures has rows to change"
    known, rows, dropped = target
    edited = []
    for found in good:
        format_, document = _decoded(source, found)
        if format_ is known:
            for row in walk(document, rows.at) or []:
                if isinstance(row, dict):
                    row[PROBE] = "x"
                    row.pop(dropped, None)
            found = replace(found, data=json.dumps(document).encode())
        edited.append(found)
    where = f"{DRIFT} ({case.source}, {known.name}, {rows.at}): new {PROBE}"
    said = [n for n in source.drift(edited) if n.startswith(where)]
    assert len(said) == 1, source.drift(edited)
    assert dropped is None or f"; missing {dropped}" in said[0], said[0]
    result = source.parse(edited)
    assert result.records or _facts_of(result), f"{case.source}: nothing loads without {dropped}"


@pytest.mark.parametrize("case", contracts(renamed=True))
def test_a_renamed_field_fails_the_parse_naming_it(case: Contract):
    assert case.renamed is not None
    with pytest.raises(ParseError) as error:
        SOURCES[case.source].parse([case.renamed.payload(case.source)])
    message = str(error.value)
    assert case.renamed.field in message and SOURCES[case.source].provider in message


@pytest.mark.parametrize("case", contracts(bad_rows=True))
def test_bad_rows_become_rejects_with_reasons_never_exceptions(case: Contract):
    source = SOURCES[case.source]
    for bad in case.bad_rows:
        result = source.parse([*case.good_payloads(), bad.payload(case.source)])
        ref = bad.payload(case.source).ref
        refused = [r for r in result.rejects if r.payload_ref == ref]
        assert refused, f"{case.source}: {bad.file} gave no reject"
        assert all(r.reason.strip() and r.source == source.name for r in refused)
        assert not [r for r in result.rejects if r.reason == NOTHING_MADE], bad.file


@pytest.mark.parametrize("case", contracts())
def test_a_listing_with_no_offers_is_refused(case: Contract):
    source = SOURCES[case.source]
    empty, listings = [], 0
    if case.empty:  # the provider's own empty answer, as it is
        empty, listings = [case.empty.payload(case.source)], 1
    for found in [] if case.empty else case.good_payloads():
        try:
            empty.append(emptied(found))
            listings += 1
        except ValueError:  # not JSON (an exchange-rate file beside the listing): kept whole
            empty.append(found)
    assert listings, f"{case.source}: not JSON: declare its own empty answer, [empty]"
    if source.may_be_empty:  # nothing on offer today is news for it (Capacity Blocks)
        assert source.parse(empty).records == []
        return
    with pytest.raises(SourceError) as error:
        source.parse(empty)
    assert source.provider in str(error.value)


@pytest.mark.parametrize("case", contracts(fetch=True))
def test_fetch_archives_every_payload_and_never_a_key(tmp_path: Path, case: Contract):
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return case.answer(request)

    ctx = context(tmp_path, case.source, answer, settings=keyed_settings())
    fetched = SOURCES[case.source].fetch(ctx)
    assert fetched and seen
    archived = read_payloads(tmp_path / STAMP, case.source)
    assert sorted(p.data for p in archived) == sorted(p.data for p in fetched)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path.name
    parsed = SOURCES[case.source].parse(archived)
    assert parsed.records or (SOURCES[case.source].reference and _facts_of(parsed))


@pytest.mark.parametrize("case", contracts(fetch=True))
def test_a_5xx_is_retried_then_named(tmp_path: Path, case: Contract):
    seen: list[httpx.URL] = []

    def unavailable(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return httpx.Response(503, text="Service Unavailable")

    ctx = context(tmp_path, case.source, unavailable, settings=keyed_settings())
    with pytest.raises(SourceError) as error:
        SOURCES[case.source].fetch(ctx)
    assert len(seen) > 1, "a 503 was not retried"
    message = str(error.value)
    assert "503" in message and seen[0].host in message and SECRET not in message


# --- the kit's own rules, on a source made up for them --------------------------------------


def _page_of(rows: list) -> list[Payload]:
    import json

    return [Payload(json.dumps(rows).encode(), "https://example.test/list", FETCHED_AT, "p", "r")]


def _offer(row: dict, page: Page):
    if row.get("cpu"):
        return [Skip("a CPU plan", row["id"])]
    if row.get("silent"):
        return []
    return [
        page.record(
            region="global",
            instance_type=row["id"],
            chip="H100-SXM",
            chip_count=1.0,
            pricing_model="on_demand",
            price_per_hour=2.0,
        )
    ]


def _parse(rows: list):
    return each_row(_page_of(rows), "demo", "demo", rows=lambda page: page.json(), offers=_offer)


def test_the_kit_stamps_provenance_and_counts_skipped_rows_in_a_note():
    result = _parse([{"id": "a"}, {"id": "b", "cpu": True}, {"id": "c", "cpu": True}])
    [record] = result.records
    assert isinstance(record, PriceRecord)
    assert (record.source, record.provider, record.payload_ref) == ("demo", "demo", "r")
    assert record.observed_at == FETCHED_AT and record.source_url == "https://example.test/list"
    assert "2 row(s) not loaded: a CPU plan (b, c)" in result.notes


def test_a_row_the_mapping_makes_nothing_of_becomes_a_reject_saying_so():
    result = _parse([{"id": "a"}, {"id": "quiet", "silent": True}])
    [reject] = result.rejects
    assert reject.reason == NOTHING_MADE and reject.row == {"id": "quiet", "silent": True}


@pytest.mark.parametrize("rows", [[], [{"id": "b", "cpu": True}]])
def test_a_listing_with_no_offer_is_refused_naming_the_url(rows):
    with pytest.raises(ParseError, match="demo: the listing at https://example.test/list"):
        _parse(rows)
