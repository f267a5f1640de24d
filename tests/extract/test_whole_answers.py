"""A response is complete or it fails the source, and a redirect stays on the provider's host:
through a real local HTTP server, for an HTTP source (vultr, through extract/_http.py).

On main at 368c4bd a gzip body cut at 80% with a matching Content-Length, an HTML page cut
mid-way, and a body without Content-Length closed early were read without error, so part of a
price list loaded and the rest was closed as withdrawn; redirects were followed to any host,
https to http included; a server sending a byte every few seconds never timed out.
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import struct
import threading
import time
import zlib
from pathlib import Path

import pytest

from chipcost.core.errors import SourceError
from chipcost.extract import _body, _http
from chipcost.extract.aws._files import get_bytes
from tests.fault_server import cut as short_of_length
from tests.fault_server import fault_server, longer, respond
from tests.paths import FIXTURES
from tests.sources import context

METAL = (FIXTURES / "vultr" / "plans-metal.json").read_bytes()
ROWS = b"<tr><td>x</td></tr>" * 200
PAGE = b"<!DOCTYPE html><html><body><table>" + ROWS + b"</table></body></html>"


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)


def served(tmp_path: Path, server, path: str = "/v2/plans-metal"):
    """Fetch vultr's two lists from the local server; the first answer is the one tested."""
    return _http.get(
        context(tmp_path, "vultr", lambda r: None),
        _http.http_client("vultr"),
        f"{server.url}{path}",
    )


def raw(status: int, body: bytes, headers: dict[str, str]):
    """An answer with exactly these headers (no Content-Length unless given), then close."""

    def answer(handler, stop) -> None:
        handler.send_response(status)
        # Said, as well as done: a client that would reuse the connection meets a closed one.
        for name, value in {**headers, "Connection": "close"}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()
        handler.close_connection = True

    return answer


def test_a_whole_gzip_body_is_read():
    packed = gzip.compress(METAL)
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    with fault_server(respond(200, packed, headers)) as server:
        client = _http.http_client("vultr")
        response = _http.send(client, f"{server.url}/v2/plans-metal")
    assert json.loads(response.content) == json.loads(METAL)


def test_a_gzip_body_cut_short_with_a_matching_length_fails_the_source(tmp_path):
    packed = gzip.compress(METAL)[: int(len(gzip.compress(METAL)) * 0.8)]
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    with fault_server(respond(200, packed, headers)) as server:
        with pytest.raises(SourceError, match="incomplete response .*gzip body cut short"):
            served(tmp_path, server)
        assert len(server.requests) == _http.MAX_ATTEMPTS  # retried, then named
    assert not list(tmp_path.rglob("*.json*"))  # nothing of it archived as a payload


def test_an_html_page_closed_early_without_a_length_fails_the_source(tmp_path):
    cut = raw(200, PAGE[: len(PAGE) // 2], {"Content-Type": "text/html"})
    with fault_server(cut) as server:
        with pytest.raises(SourceError, match="HTML page cut short"):
            served(tmp_path, server, "/pricing")


OPENINGS = {
    "a UTF-8 byte order mark": (lambda page: page.encode("utf-8-sig"), "text/html"),
    "a UTF-16 byte order mark": (lambda page: page.encode("utf-16"), "text/html"),
    "UTF-16 named by its charset": (
        lambda page: page.encode("utf-16-le"), "text/html; charset=utf-16"),
    "a comment": (lambda page: ("<!-- generated -->" + page).encode(), "text/html"),
    "an XML declaration": (
        lambda page: ('<?xml version="1.0"?>' + page).encode(), "text/html"),
    "600 spaces": (lambda page: (" " * 600 + page).encode(), "text/html"),
}  # fmt: skip


@pytest.mark.parametrize(("encode", "kind"), OPENINGS.values(), ids=OPENINGS)
def test_a_page_however_it_opens_closed_early_fails_the_source(tmp_path, encode, kind):
    """On 57591a84 a page opening with any of these was taken for a fragment, so a cut one
    was read as whole (modal loaded 9 of its 10 offers)."""
    page = encode(PAGE.decode("utf-8"))
    cut = raw(200, page[: len(page) * 4 // 5 // 2 * 2], {"Content-Type": kind})
    with fault_server(cut) as server:
        with pytest.raises(SourceError, match="HTML page cut short"):
            served(tmp_path, server, "/pricing")
    with fault_server(raw(200, page, {"Content-Type": kind})) as server:
        assert served(tmp_path, server, "/pricing").data == page


def test_a_whole_html_page_without_a_length_is_read(tmp_path):
    with fault_server(raw(200, PAGE, {"Content-Type": "text/html"})) as server:
        payload = served(tmp_path, server, "/pricing")
    assert payload.data == PAGE


def chunked_cut(body: bytes):
    """A chunked answer whose connection closes after its first chunk, never its last."""

    def answer(handler, stop) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(body), body))
        handler.wfile.flush()
        handler.close_connection = True

    return answer


def reset_mid_body(body: bytes, keep: int):
    """Promise the whole body, send `keep` bytes, then reset the connection (TCP RST)."""

    def answer(handler, stop) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body[:keep])
        handler.wfile.flush()
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.connection.close()
        handler.close_connection = True

    return answer


CUTS = {
    "fewer bytes than its Content-Length": (
        lambda: short_of_length(METAL, 500),
        r"body cut short: 500 of 1,049 bytes came \(the server closed the connection\)",
    ),
    "a chunked body without its last chunk": (
        lambda: chunked_cut(METAL[:300]),
        r"body cut short: 300 bytes of a chunked body came, never its last chunk "
        r"\(the server closed the connection\)",
    ),
    "a reset mid-body": (
        lambda: reset_mid_body(METAL, 300),
        r"body cut short: [\d,]+ of 1,049 bytes came \(ReadError",
    ),
}


@pytest.mark.parametrize(("answer", "said"), CUTS.values(), ids=CUTS)
def test_a_body_cut_short_fails_the_source_as_an_incomplete_response(tmp_path, answer, said):
    """On fc78b66b the first two were "answered in a form that is not HTTP" (the server's
    malformed answer) and the reset "could not connect", though the answer had begun: httpx
    raised inside the body's read, before its length was compared."""
    with fault_server(answer()) as server:
        with pytest.raises(SourceError) as failed:
            served(tmp_path, server)
        assert len(server.requests) == _http.MAX_ATTEMPTS  # retried, then named
    message = str(failed.value)
    assert message.startswith(f"vultr: GET {server.url}/v2/plans-metal sent an incomplete ")
    assert re.search(said, message), message
    assert message.endswith(_http.CUT) and "not HTTP" not in message
    assert not list(tmp_path.rglob("*.json*"))  # nothing of it archived as a payload


def test_a_stream_ended_short_of_its_length_is_said_as_every_cut():
    """A body whose stream ends without httpx's error (a transport that does not check the
    Content-Length) is said as a cut connection's: on b4f20479 'body cut short: 21618 of 43237
    bytes', without the thousands separators nor the 'came' of every other count of it."""
    import httpx

    request = httpx.Request("GET", "https://api.vultr.com/v2/plans-metal")
    headers = {"Content-Length": "43237", "Content-Type": "application/json"}
    stream = httpx.ByteStream(b" " * 21_618)
    response = httpx.Response(200, headers=headers, stream=stream, request=request)
    with pytest.raises(_body.CutShort) as cut:
        _body.whole(response, str(request.url), lambda where: None, lambda: 0.0, 0.0)
    assert str(cut.value) == "body cut short: 21,618 of 43,237 bytes came"


LONGER = {
    "plain JSON": (METAL, 500, {}),
    "gzip": (gzip.compress(METAL), 200, {"Content-Encoding": "gzip"}),
    "an HTML page": (PAGE, len(PAGE) // 2, {"Content-Type": "text/html"}),
}


@pytest.mark.parametrize(("body", "said", "headers"), LONGER.values(), ids=LONGER)
def test_a_body_longer_than_its_length_is_said_as_such_not_as_a_cut(tmp_path, body, said, headers):
    """On 7a252c44 httpx read a body to its Content-Length and dropped the rest unseen: plain
    JSON's first 500 bytes were archived as the whole answer, a gzip body and an HTML page so
    cut were 'an incomplete response (gzip body cut short or corrupt ...)', 'HTML page cut
    short', '... the connection was cut mid-answer', the words of a body shorter than said."""
    with fault_server(longer(body, said, headers)) as server:
        with pytest.raises(SourceError) as failed:
            served(tmp_path, server)
        assert len(server.requests) == _http.MAX_ATTEMPTS  # retried as a cut is
    message = str(failed.value)
    assert message.startswith(
        f"vultr: GET {server.url}/v2/plans-metal sent more than it said (body longer than its "
        f"Content-Length: {said:,} bytes said, at least {len(body):,} came); gave up after 5 "
    ), message
    assert message.endswith(_body.LONGER) and "run again later (the source's next run" in message
    assert "incomplete" not in message and "cut" not in message and "not HTTP" not in message
    assert not list(tmp_path.rglob("*.json*")) and not list(tmp_path.rglob("*.gz"))


def test_a_connection_that_sent_past_its_length_is_not_used_again(tmp_path):
    """The retry meets the server's next answer: on 7a252c44 the bytes past the first were
    read, on the connection kept for reuse, as the retry's status line (RemoteProtocolError),
    an attempt spent and, were it the last, said as 'answered in a form that is not HTTP'."""
    with fault_server(longer(METAL, 500), respond(200, METAL)) as server:
        payload = served(tmp_path, server)
        assert len(server.requests) == 2
    assert payload.data == METAL


def test_an_error_answer_cut_short_is_still_its_status(tmp_path):
    """A 503 whose body is cut is a 503 (retried as one), read for its message as far as it
    came: it was "answered in a form that is not HTTP"."""

    def answer(handler, stop) -> None:
        handler.send_response(503)
        handler.send_header("Content-Length", "400")
        handler.end_headers()
        handler.wfile.write(b"busy for a while")
        handler.wfile.flush()
        handler.close_connection = True

    with fault_server(answer) as server:
        with pytest.raises(SourceError, match=r"answered 503 Service Unavailable \(busy for a"):
            served(tmp_path, server)


def test_a_redirect_on_the_same_host_is_followed(tmp_path):
    moved = raw(301, b"", {"Location": "/v2/plans-metal-new", "Content-Length": "0"})
    with fault_server(moved, respond(200, METAL)) as server:
        payload = served(tmp_path, server)
    assert payload.data == METAL
    # The asked path, then the redirect's (a connection the server closed may be retried).
    paths = [path for _, path, _ in server.requests]
    assert paths[0] == "/v2/plans-metal" and paths[-1] == "/v2/plans-metal-new"
    assert set(paths) == {"/v2/plans-metal", "/v2/plans-metal-new"}
    assert payload.request["final_url"] == f"{server.url}/v2/plans-metal-new"  # in the manifest


@pytest.mark.parametrize(
    "target", ["http://evil.test/v2/plans", "http://127.0.0.2:9/x", "http://127.0.0.1:1/x"]
)
def test_a_redirect_off_the_host_is_refused_naming_it(tmp_path, target):
    """The last is the server's own host on another port: on fc78b66b it was followed, as
    only the host was compared (the port is the origin's too)."""
    moved = raw(302, b"", {"Location": target, "Content-Length": "0"})
    with fault_server(moved) as server:
        with pytest.raises(SourceError, match="redirected to .*not followed") as failed:
            served(tmp_path, server)
        assert len(server.requests) == 1
    assert f"redirected to {target}, off {server.url} (its host and port)" in str(failed.value)


def test_a_server_sending_a_byte_at_a_time_meets_the_body_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(_body, "BODY_DEADLINE_SECONDS", 1.0)

    def drip(handler, stop: threading.Event) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(METAL)))
        handler.end_headers()
        for byte in METAL[:40]:
            if stop.wait(0.2):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
        handler.close_connection = True

    started = time.monotonic()
    with fault_server(drip) as server:
        with pytest.raises(SourceError, match="timed out"):
            served(tmp_path, server)
    assert time.monotonic() - started < 10


def test_a_body_over_the_size_cap_is_refused(tmp_path):
    client = _http.http_client("vultr")
    client.bounds = _body.Bounds(1000)
    with fault_server(respond(200, METAL)) as server:
        with pytest.raises(
            SourceError, match=r"as announced \(1,049 bytes\), the limit per answer"
        ):
            _http.get(context(tmp_path, "vultr"), client, f"{server.url}/v2/plans-metal")


def test_the_manifest_keeps_the_final_url_and_replays(tmp_path):
    from chipcost.archive import read_payloads
    from tests.sources import STAMP

    moved = raw(301, b"", {"Location": "/v2/plans-metal-new", "Content-Length": "0"})
    with fault_server(moved, respond(200, METAL)) as server:
        served(tmp_path, server)
        [archived] = read_payloads(tmp_path / STAMP, "vultr")
    assert archived.request["final_url"] == f"{server.url}/v2/plans-metal-new"
    assert archived.url == f"{server.url}/v2/plans-metal" and archived.data == METAL


def test_an_aws_index_cut_short_is_retried_then_named():
    # CutShort is no httpx.TransportError (httpx is imported only when a source fetches):
    # extract/aws/_files.py retries it beside one, and names it as it did.
    packed = gzip.compress(METAL)[: int(len(gzip.compress(METAL)) * 0.8)]
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    with fault_server(respond(200, packed, headers)) as server:
        with pytest.raises(SourceError, match=r"failed after 5 attempt\(s\) \(CutShort: gzip"):
            get_bytes(_http.http_client("aws-bulk"), f"{server.url}/index.json", "aws-bulk")
        assert len(server.requests) == _http.MAX_ATTEMPTS


@pytest.mark.parametrize(
    ("coding", "pack"),
    [("gzip", gzip.compress), ("x-gzip", gzip.compress), ("deflate", zlib.compress)],
)
def test_a_coded_body_is_read_to_its_end_or_refused_as_cut_short(coding, pack):
    packed = pack(METAL)
    assert _body.decoded(packed, coding) == METAL
    for cut in (len(packed) // 2, len(packed) - 1):
        with pytest.raises(_body.CutShort, match=f"{coding} body cut short or corrupt"):
            _body.decoded(packed[:cut], coding)
    assert _body.decoded(METAL, "identity") == METAL
