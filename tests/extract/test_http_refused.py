"""An answer refused with a body is archived as a payload of kind "refused" and named in the
error (extract/_http.py's get): a body that arrived whole but is not what its
Content-Encoding says, failed once as the provider's label, not retried as a cut; an error
status's page (a 403 "Just a moment...").

On c96d2408 plain JSON sent with `Content-Encoding: gzip` (or zlib's wrapper labelled gzip, or
`gzip, gzip` over one gzip) was retried 5 times and reported as `the connection was cut
mid-answer: ... run again`, its bytes not archived; a 403 page left 160 characters of itself
in the message and nothing in the archive.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.archive.store import location
from chipcost.core.errors import SourceError
from chipcost.extract import _http
from chipcost.extract._fetch import optional
from tests.fault_server import fault_server, respond
from tests.paths import FIXTURES
from tests.sources import STAMP, context

METAL = (FIXTURES / "vultr" / "plans-metal.json").read_bytes()
# Its trailer says 7 bytes more than it decodes to: whole by its length, no cut.
WRONG_SIZE = gzip.compress(METAL)[:-4] + (len(METAL) + 7).to_bytes(4, "little")
CHALLENGE = (
    b"<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
    + b"<p>Checking your browser</p>" * 40
    + b"</body></html>"
)


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)


def fetched(tmp_path: Path, url: str) -> SourceError:
    ctx = context(tmp_path, "vultr", lambda r: None)
    with pytest.raises(SourceError) as failed:
        _http.get(ctx, _http.http_client("vultr"), url)
    return failed.value


def refused_entries(tmp_path: Path) -> list[dict]:
    manifest = read_manifest(location(tmp_path) / STAMP / "vultr")
    return [e for e in manifest["payloads"] if e["request"].get("kind") == _http.REFUSED]


def archived_bytes(tmp_path: Path, entry: dict) -> bytes:
    return gzip.decompress((tmp_path / STAMP / "vultr" / entry["name"]).read_bytes())


def lengthed(body: bytes, headers: dict[str, str]):
    """A 200 whole by its Content-Length."""
    return respond(200, body, headers)


def chunked(body: bytes, headers: dict[str, str]):
    """A 200 sent in chunks, ending with the last chunk (no Content-Length)."""

    def answer(handler, stop) -> None:
        handler.send_response(200)
        for name, value in {**headers, "Transfer-Encoding": "chunked"}.items():
            handler.send_header(name, value)
        handler.end_headers()
        for start in range(0, len(body), 100):
            piece = body[start : start + 100]
            handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()

    return answer


@pytest.mark.parametrize(
    ("sent", "label", "whole"),
    [
        (METAL, "gzip", lengthed),  # plain JSON labelled gzip
        (zlib.compress(METAL), "gzip", lengthed),  # zlib's wrapper labelled gzip
        (gzip.compress(METAL), "gzip, gzip", lengthed),  # one gzip labelled two
        (METAL, "gzip", chunked),  # whole by its last chunk, not its length
        (WRONG_SIZE, "gzip", lengthed),  # a gzip whose trailer's size is not what it decodes to
    ],
    ids=["plain-as-gzip", "zlib-as-gzip", "gzip-gzip-over-one", "chunked", "gzip-wrong-size"],
)
def test_a_whole_body_its_coding_does_not_describe_fails_once_and_is_archived_raw(
    tmp_path, sent, label, whole
):
    headers = {"Content-Encoding": label, "Content-Type": "application/json"}
    with fault_server(whole(sent, headers)) as server:
        error = fetched(tmp_path, f"{server.url}/v2/plans-metal")
        assert len(server.requests) == 1  # the provider's label: running again does not mend
    message = str(error)
    assert f"labelled Content-Encoding: {label} that is not {label}" in message
    assert "arrived whole" in message and "report it if it lasts" in message
    assert "cut mid-answer" not in message and "incomplete response" not in message
    [entry] = refused_entries(tmp_path)
    assert archived_bytes(tmp_path, entry) == sent  # as received, still (mis)coded
    assert entry["request"]["content_encoding"] == label and entry["request"]["status"] == 200
    assert f"{STAMP}/vultr/{entry['name']}" in message


def test_a_gzip_body_truly_cut_short_stays_a_cut_retried_and_not_archived(tmp_path):
    packed = gzip.compress(METAL)[: len(gzip.compress(METAL)) // 2]
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    with fault_server(respond(200, packed, headers)) as server:
        error = fetched(tmp_path, f"{server.url}/v2/plans-metal")
        assert len(server.requests) == _http.MAX_ATTEMPTS
    assert "incomplete response" in str(error) and "cut mid-answer" in str(error)
    assert not list(tmp_path.rglob("*.gz"))


def test_an_error_page_is_archived_as_refused_and_named(tmp_path):
    with fault_server(respond(403, CHALLENGE, {"Content-Type": "text/html"})) as server:
        error = fetched(tmp_path, f"{server.url}/pricing")
    [entry] = refused_entries(tmp_path)
    assert entry["name"].endswith(".html.gz") and entry["request"]["status"] == 403
    assert archived_bytes(tmp_path, entry) == CHALLENGE
    message = str(error)
    assert "answered 403" in message and f"archived as {STAMP}/vultr/{entry['name']}" in message


def test_an_error_page_is_archived_bounded_as_it_was_read(tmp_path):
    page = b"<html>" + b"x" * (_http.ERROR_BODY_BYTES * 3) + b"</html>"
    with fault_server(respond(503, page, {"Content-Type": "text/html"})) as server:
        error = fetched(tmp_path, f"{server.url}/pricing")
    [entry] = refused_entries(tmp_path)
    assert archived_bytes(tmp_path, entry) == page[: _http.ERROR_BODY_BYTES]
    assert f"its first {_http.ERROR_BODY_BYTES:,} bytes, decoded, are archived" in str(error)


def test_a_key_echoed_in_an_error_page_is_not_archived(tmp_path):
    from chipcost.core.settings import SourceSettings

    key = "rp_live_5ecretK3yThatMustNeverLeak0123456789"
    script = [httpx.Response(401, json={"error": f"key {key} is not valid"})]
    ctx = context(
        tmp_path, "vultr", lambda r: script[0], settings=SourceSettings(runpod_api_key=key)
    )
    with pytest.raises(SourceError):
        _http.get(ctx, _http.http_client("vultr", ctx), "https://api.example.test/v2/plans")
    [entry] = refused_entries(tmp_path)
    kept = archived_bytes(tmp_path, entry)
    assert key.encode() not in kept and json.loads(kept) == {"error": "key <redacted> is not valid"}


def test_an_optional_payload_refused_is_not_archived_as_its_fetch_goes_on(tmp_path):
    import logging

    ctx = context(tmp_path, "vultr", lambda r: httpx.Response(403, text="denied"))
    got = optional(
        ctx,
        _http.http_client("vultr", ctx),
        "https://api.example.test/v2/periods",
        ext="json",
        what="periods",
        lost="nothing",
        log=logging.getLogger("test"),
    )
    assert got == [] and not list(tmp_path.rglob("*.gz"))


def test_410_gone_is_not_archived_a_source_with_a_successor_goes_on(tmp_path):
    ctx = context(tmp_path, "vultr", lambda r: httpx.Response(410, text="retired"))
    with pytest.raises(_http.Gone):
        _http.get(ctx, _http.http_client("vultr", ctx), "https://api.example.test/graphql")
    assert not list(tmp_path.rglob("*.gz"))
