"""extract._fetch.ApiKey: a source's key declared once, its settings, headers and message."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract import source_env
from chipcost.extract._fetch import ApiKey
from chipcost.extract.base import FetchContext

ACME = ApiKey("acme_api_key", "ACME_API_KEY", "Acme", "its console (API keys)")


def context(tmp_path: Path, **settings: str) -> FetchContext:
    archive = ArchiveWriter(tmp_path, "2026-11-26T060000Z", "acme")
    return FetchContext(archive=archive, settings=SourceSettings(**settings))


def test_its_settings_are_what_the_source_declares():
    assert ACME.settings == {"acme_api_key": "ACME_API_KEY"}
    assert source_env()["fluidstack_api_key"] == "FLUIDSTACK_API_KEY"  # a source's, from it


def test_the_key_is_read_from_the_run_and_sent_in_its_header(tmp_path):
    key = ACME.required(context(tmp_path, acme_api_key="k-123"))
    assert ACME.headers(key) == {"Authorization": "Bearer k-123"}
    bare = ApiKey("x_api_key", "X_API_KEY", header="api-key", scheme="", accept_json=True)
    assert bare.headers("k") == {"api-key": "k", "Accept": "application/json"}


def test_no_key_sends_nothing_or_skips_the_source_naming_the_variable(tmp_path):
    ctx = context(tmp_path)
    assert ACME.of(ctx) == "" and ACME.headers(ACME.of(ctx)) == {}
    with pytest.raises(SourceSkipped, match=r"^ACME_API_KEY is not set: Acme's .* its console"):
        ACME.required(ctx)
