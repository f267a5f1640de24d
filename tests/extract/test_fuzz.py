"""Every registered source's parser, fed damaged versions of its recorded payloads.

A parser either returns a ParseResult whose records can go through validation, or raises
chipcost's own error (ParseError, or another ChipcostError): never anything else, since an
unexpected exception is reported as a bug in chipcost and fails the source.

Seeds are the newest sample-archive run of the source (payloads with their real URLs and
requests) and every recorded fixture under tests/fixtures/<source>/ except bad-* and
*malformed* files, so a source registered later is fuzzed without editing this file.
Each run draws fresh examples, a few per source (FUZZ_EXAMPLES); CHIPCOST_FUZZ_EXAMPLES=2000
searches longer. A failure prints the example and the blob that replays it
(`@reproduce_failure`): no example database is kept.
"""

from __future__ import annotations

import dataclasses
import os
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chipcost.archive import archived_sources, read_payloads, run_directories
from chipcost.core.errors import ChipcostError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord, Reject
from chipcost.extract import registry, source_providers
from chipcost.transform.validate import validate_records
from tests.mutations import finite_or_none, mutated_bytes
from tests.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE = ROOT / "sample" / "archive"
FETCHED_AT = datetime(2026, 11, 14, 6, 0, 2, tzinfo=UTC)
# Damaged payloads per source and run: new ones each run, so the suite's runs together search
# far more than one fixed set would; more on request.
FUZZ_EXAMPLES = 15
FUZZ = settings(
    max_examples=int(os.environ.get("CHIPCOST_FUZZ_EXAMPLES") or FUZZ_EXAMPLES),
    deadline=None,
    derandomize=False,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _is_recorded_good(path: Path, folder: Path) -> bool:
    parts = path.relative_to(folder).parts
    if path.suffix == ".md":
        return False  # ORIGIN.md says where the fixtures came from: not a payload
    return path.is_file() and not any(
        p.startswith("bad") or "malformed" in p.lower() for p in parts
    )


def _sample_payloads(source: str) -> list[Payload]:
    if not SAMPLE.is_dir():
        return []
    for run in reversed(run_directories(SAMPLE)):
        if source in archived_sources(run):
            return read_payloads(run, source)
    return []


@cache
def seeds(source: str) -> tuple[tuple[Payload, ...], ...]:
    """Payload lists to damage: a whole sample run, then each recorded fixture alone."""
    found: list[tuple[Payload, ...]] = []
    sample = _sample_payloads(source)
    if sample:
        found.append(tuple(sample))
    url = sample[0].url if sample else ""
    folder = FIXTURES / source
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if _is_recorded_good(path, folder):
            name = str(path.relative_to(folder))
            found.append((Payload(path.read_bytes(), url, FETCHED_AT, name, f"fixtures/{name}"),))
    return tuple(found)


def check_outcome(source_name: str, payloads: list[Payload]) -> ParseResult | None:
    """The property: a loadable ParseResult, or chipcost's own error."""
    source = registry()[source_name]
    try:
        result = source.parse(payloads)
    except ChipcostError as exc:
        assert str(exc), "a ChipcostError must say what went wrong"
        return None
    assert isinstance(result, ParseResult), type(result)
    for record in result.records:
        assert isinstance(record, PriceRecord), type(record)
        assert isinstance(record.price_per_hour, float | int), record
        assert finite_or_none(record.upfront) or record.upfront is not None, record
    for reject in result.rejects:
        assert isinstance(reject, Reject), type(reject)
        assert isinstance(reject.reason, str) and reject.reason
        reject.row_json()  # stored as JSON text: must serialise
    assert all(isinstance(note, str) for note in result.notes)
    # Records must survive the validation step that follows every parse.
    validate_records(result.records, source_providers())
    return result


# Registered only to say why nothing is collected (docs/sources.md): nothing to parse.
SOURCES = sorted(name for name, source in registry().items() if source.collected)


@pytest.mark.parametrize("source_name", SOURCES)
def test_every_source_has_seeds_that_parse(source_name):
    found = seeds(source_name)
    assert found, f"no recorded payloads for {source_name} in {FIXTURES / source_name}"
    parsed = [check_outcome(source_name, list(payloads)) for payloads in found]
    reference = registry()[source_name].reference  # facts, not prices (ecb-rates)
    assert any(r is not None and (r.records or (reference and r.facts)) for r in parsed), (
        f"{source_name}: no recorded payload parses into records"
    )


@pytest.mark.parametrize("source_name", SOURCES)
@FUZZ
@given(data=st.data())
def test_damaged_payloads_give_records_or_a_parse_error(source_name, data):
    found = seeds(source_name)
    payloads = list(found[data.draw(st.integers(0, len(found) - 1), label="seed")])
    index = data.draw(st.integers(0, len(payloads) - 1), label="payload")
    action = data.draw(st.sampled_from(("damage", "damage", "damage", "drop", "repeat")))
    if action == "drop" and len(payloads) > 1:
        del payloads[index]  # a page lost in transit
    elif action == "repeat":
        payloads.insert(index, payloads[index])  # a page served twice
    else:
        damaged = data.draw(mutated_bytes(payloads[index].data), label="damaged")
        payloads[index] = dataclasses.replace(payloads[index], data=bytes(damaged))
    check_outcome(source_name, payloads)
