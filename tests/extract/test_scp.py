"""scp: registered, always skipped with the reason, never sends a request, shows 'not collected'."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.extract import registry
from chipcost.extract.base import FetchContext
from chipcost.extract.scp import OPENAPI, SOURCE, fetch, parse
from chipcost.pipeline.sources import registered_sources
from chipcost.sample.build import scp as sample


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("the scp source must send no request")


def test_it_is_registered_and_says_it_is_not_collected():
    assert registry()["scp"] is SOURCE and SOURCE.provider == "scp" and not SOURCE.collected
    row = registered_sources().filter(source="scp").to_dicts()[0]
    assert row["collected"] is False and "Samsung Cloud Platform" in row["description"]


def test_fetch_is_skipped_with_the_reason_and_sends_nothing(tmp_path):
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, "2026-11-21T060000Z", "scp"),
        transport=httpx.MockTransport(refuse),
    )
    with pytest.raises(SourceSkipped, match="^no price source yet: Samsung Cloud Platform"):
        fetch(ctx)
    assert not (tmp_path / "2026-11-21T060000Z").exists()  # nothing archived


def test_parse_is_skipped_too():
    payload = Payload(b"{}", f"{OPENAPI}/product/v2/product-groups",
                      datetime(2026, 11, 21, tzinfo=UTC), "0001.json.gz")  # fmt: skip
    with pytest.raises(SourceSkipped, match="no price source yet"):
        parse([payload])


def test_the_sample_builder_writes_nothing(tmp_path):
    written = sample.write_run(tmp_path, 1, datetime(2026, 11, 14, 6, tzinfo=UTC))
    assert written.name == "scp" and not written.exists()
