"""ibm: registered, always skipped with the reason, never sends a request, shows 'not collected'."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.extract import registry
from chipcost.extract.base import FetchContext
from chipcost.extract.ibm import SOURCE, fetch, parse
from chipcost.pipeline.sources import registered_sources
from chipcost.sample.build import ibm as sample


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("the ibm source must send no request")


def test_it_is_registered_and_says_it_is_not_collected():
    assert registry()["ibm"] is SOURCE and SOURCE.provider == "ibm" and not SOURCE.collected
    row = registered_sources().filter(source="ibm").to_dicts()[0]
    assert row["collected"] is False and "Gaudi 3" in row["description"]


def test_fetch_is_skipped_with_the_reason_and_sends_nothing(tmp_path):
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, "2026-11-21T060000Z", "ibm"),
        transport=httpx.MockTransport(refuse),
    )
    with pytest.raises(SourceSkipped, match="^no price source yet: IBM's VPC API"):
        fetch(ctx)
    assert not (tmp_path / "2026-11-21T060000Z").exists()  # nothing archived


def test_parse_is_skipped_too():
    payload = Payload(b"{}", "https://globalcatalog.cloud.ibm.com/api/v1/x/pricing",
                      datetime(2026, 11, 21, tzinfo=UTC), "0001.json.gz")  # fmt: skip
    with pytest.raises(SourceSkipped, match="no price source yet"):
        parse([payload])


def test_the_sample_builder_writes_nothing(tmp_path):
    written = sample.write_run(tmp_path, 1, datetime(2026, 11, 14, 6, tzinfo=UTC))
    assert written.name == "ibm" and not written.exists()
