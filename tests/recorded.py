"""Recorded fixture payloads as Payloads, and fetch contexts that fake HTTP at the transport."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx

from chipcost.archive import ArchiveWriter
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.core.settings import SourceSettings
from chipcost.extract.base import FetchContext
from chipcost.transform.validate import validate_records

FIXTURES = Path(__file__).parent / "fixtures"
FETCHED_AT = datetime(2026, 11, 14, 6, 0, 2, tzinfo=UTC)
STAMP = "2026-11-14T060000Z"


def recorded(source: str, name: str, url: str) -> Payload:
    """A fixture file as the Payload its fetch would have archived."""
    data = (FIXTURES / source / name).read_bytes()
    return Payload(data, url, FETCHED_AT, name, f"fixtures/{source}/{name}")


def fake_context(
    tmp_path: Path,
    source: str,
    handler,
    waits: list[float] | None = None,
    settings: SourceSettings | None = None,
):
    """A FetchContext whose HTTP goes to `handler` (httpx.MockTransport) and never sleeps."""
    sleeps = waits if waits is not None else []
    return FetchContext(
        archive=ArchiveWriter(tmp_path, STAMP, source),
        settings=settings or SourceSettings(),
        transport=httpx.MockTransport(handler),
        sleep=sleeps.append,
    )


def assert_loadable(result: ParseResult) -> None:
    """The shared invariants: every record passes validation (price, chips, key, USD)."""
    from chipcost.extract import source_providers

    validated = validate_records(result.records, source_providers())
    assert not validated.rejects, [r.reason for r in validated.rejects]
    for record in result.records:
        assert record.payload_ref and record.source_url and record.observed_at == FETCHED_AT
