"""Response headers are bytes: one byte past 127 in any header, of an answer or of a 429, is
kept as it came and never fails the source; through a real local HTTP server, for an HTTP
source run as the daily flow runs it (collect_source).

On main at 697f5e5 `X-Served-By: cache-caf\\xe9` (or such a byte in a 429's Retry-After) failed
the source as "unexpected UnicodeEncodeError ... This is a bug in chipcost": the rebuilt
response encoded the decoded headers again as ASCII.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import httpx
import pytest

from chipcost.core.runs import OK
from chipcost.core.settings import Settings
from chipcost.extract import _http, registry, runpod
from chipcost.pipeline.collect import collect_source
from tests.fault_server import fault_server, respond
from tests.fault_support import load_day, preloaded_warehouse
from tests.paths import FIXTURES

STAMP = "2026-11-16T060000Z"
BODY = (FIXTURES / "runpod" / "gpu-types.json").read_bytes()
# http.server sends a header's text as latin-1: each of these characters is one byte.
LATIN1 = "cache-caf\xe9"
UTF8 = "caf\u00e9 \u2603".encode().decode("latin-1")  # the UTF-8 bytes of "café ☃"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return preloaded_warehouse(tmp_path_factory.mktemp("headers"))


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)
    monkeypatch.setattr(_http, "default_timeout", lambda: httpx.Timeout(5.0))


@pytest.mark.parametrize(
    ("script", "asked"),
    [
        ([respond(200, BODY, {"X-Served-By": LATIN1})], 1),
        ([respond(200, BODY, {"X-Served-By": UTF8, "Via": "1.1 \xff\xfe"})], 1),
        ([respond(200, gzip.compress(BODY), {"Content-Encoding": "gzip", "X-Cache": LATIN1})], 1),
        ([respond(200, BODY, {"Content-Type": "application/json; charset=caf\xe9"})], 1),
        ([respond(429, b"slow down", {"Retry-After": "1\xe9"}), respond(200, BODY)], 2),
        (
            [respond(429, b"", {"Retry-After": "\xb2", "X-Served-By": LATIN1}), respond(200, BODY)],
            2,
        ),
        ([respond(503, b"busy", {"Retry-After": "Fri, 31 D\xe9c"}), respond(200, BODY)], 2),
        ([respond(302, b"", {"Location": "/graphql-new", "X": LATIN1}), respond(200, BODY)], 2),
    ],
    ids=[
        "200-latin1",
        "200-utf8-and-undecodable",
        "200-gzip",
        "200-charset",
        "429-retry-after",
        "429-superscript-digit",
        "503-retry-after-date",
        "302",
    ],
)
def test_header_bytes_never_fail_the_source(tmp_path, warehouse, monkeypatch, script, asked):
    db = tmp_path / "w.duckdb"
    shutil.copy(warehouse, db)
    settings = Settings(data_dir=tmp_path, db_path=db)
    with fault_server(*script) as server:
        monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
        result = collect_source(registry()["runpod"], settings=settings, stamp=STAMP)
        assert len(server.requests) == asked
    assert result.status == OK, result.message
    assert result.records
    assert load_day(settings, result).status == OK


@pytest.mark.parametrize(
    ("script", "words"),
    [
        (
            [respond(302, b"", {"Location": "/a\x01b"}), respond(200, BODY)],
            "redirected to a Location that is no URL (Invalid non-printable ASCII character",
        ),
        (
            [respond(302, b"", {"Location": "http://127.0.0.1:1 x/"}), respond(200, BODY)],
            "redirected to a Location that is no URL (Invalid port: '1 x'): not followed",
        ),
        (
            [respond(429, b"", {"Retry-After": "9" * 400}), respond(200, BODY)],
            "answered 429 Too Many Requests; gave up after 1 attempt(s) in 0 s, as a further "
            "1000000000000000 s wait would pass the retry budget",
        ),
        (
            [respond(200, BODY, {"X-Caf\xe9": "1"})] * 5,
            "answered in a form that is not HTTP (illegal header line",
        ),
    ],
    ids=["location-control-byte", "location-bad-port", "retry-after-400-digits", "header-name"],
)
def test_headers_no_url_or_http_allows_fail_the_source_in_one_line(
    tmp_path, warehouse, monkeypatch, script, words
):
    """On 57591a84 the two Locations and the 400 digits failed the source as "unexpected
    InvalidURL / OverflowError ... This is a bug in chipcost", and a header name HTTP forbids
    was "could not connect ... check the network, DNS or proxy"."""
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    shutil.copy(warehouse, settings.db_path)
    with fault_server(*script) as server:
        monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
        result = collect_source(registry()["runpod"], settings=settings, stamp=STAMP)
    assert result.status != OK and words in result.message, result.message
    assert result.message.startswith("runpod: ") and "\n" not in result.message
    assert "bug in chipcost" not in result.message and "check the network" not in result.message
