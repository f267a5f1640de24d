"""crusoe: registered, always skipped with the reason, and never sends a request."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.extract import registry
from chipcost.extract.base import FetchContext
from chipcost.extract.crusoe import PRICING_PAGE, SOURCE, fetch, parse
from chipcost.sample.build import crusoe as sample


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("the crusoe source must send no request")


def test_it_is_registered_and_says_it_is_not_collected():
    assert registry()["crusoe"] is SOURCE and SOURCE.provider == "crusoe"
    assert "not collected" in SOURCE.description


def test_fetch_is_skipped_with_the_reason_and_sends_nothing(tmp_path):
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, "2026-11-21T060000Z", "crusoe"),
        transport=httpx.MockTransport(refuse),
    )
    with pytest.raises(SourceSkipped) as skipped:
        fetch(ctx)
    message = str(skipped.value)
    assert message.startswith("no price source:") and PRICING_PAGE in message
    assert not (tmp_path / "2026-11-21T060000Z").exists()  # nothing archived


def test_parse_is_skipped_too():
    payload = Payload(b"{}", "https://api.crusoecloud.com/v1alpha5/capacities",
                      datetime(2026, 11, 21, tzinfo=UTC), "0001.json.gz")  # fmt: skip
    with pytest.raises(SourceSkipped, match="no price source"):
        parse([payload])


def test_the_sample_builder_writes_nothing(tmp_path):
    written = sample.write_run(tmp_path, 1, datetime(2026, 11, 14, 6, tzinfo=UTC))
    assert written.name == "crusoe" and not written.exists()
