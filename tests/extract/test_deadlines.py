"""Every fetch ends on time: a source's whole deadline, the size cap on AWS's small files, and
the process-wide stop (SIGTERM, Ctrl-C), through a real local HTTP server.

On main at 368c4bd a server sending a byte every 2 s held a collection for as long as it
liked (the per-read timeout never tripped), AWS's small files were read whole whatever their
size (600 MB in memory), and a stop had to wait for every read and retry wait to end.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from chipcost.core import stopping
from chipcost.core.errors import SourceError
from chipcost.extract import _body, _http
from chipcost.extract.aws import _files
from tests.fault_server import drip, fault_server, respond, stall
from tests.paths import FIXTURES
from tests.sources import context

METAL = (FIXTURES / "vultr" / "plans-metal.json").read_bytes()


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)
    yield
    stopping.STOP.clear()


def fetch(tmp_path: Path, server, seconds: float | None = None) -> None:
    ctx = context(tmp_path, "vultr", deadline=seconds, real_waits=True)
    with _http.http_client("vultr", ctx) as client:
        _http.get(ctx, client, f"{server.url}/v2/plans-metal")


def timed(call) -> tuple[SourceError, float]:
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        call()
    return caught.value, time.monotonic() - started


def test_a_trickling_provider_fails_its_source_at_the_deadline(tmp_path):
    with fault_server(drip(METAL, 0.1)) as server:
        error, took = timed(lambda: fetch(tmp_path, server, seconds=2))
    assert "not done within the source's 2 s deadline (CHIPCOST_SOURCE_DEADLINE)" in str(error)
    assert took < 6


def test_a_silent_provider_fails_at_the_deadline_not_after_the_read_timeout(tmp_path):
    with fault_server(stall(60)) as server:
        error, took = timed(lambda: fetch(tmp_path, server, seconds=2))
    assert "deadline" in str(error) and "vultr: GET" in str(error)
    assert took < 8  # the read timeout alone is 60 s


def test_a_retry_after_longer_than_what_is_left_fails_at_once(tmp_path):
    busy = respond(503, b"busy", {"Retry-After": "40"})
    with fault_server(busy) as server:
        error, took = timed(lambda: fetch(tmp_path, server, seconds=30))
        asked = len(server.requests)
    assert "a further 40 s wait would pass the source's deadline" in str(error)
    assert asked == 1 and took < 5


def test_a_stop_ends_a_body_being_read(tmp_path):
    threading.Timer(0.5, stopping.STOP.set).start()
    with fault_server(drip(METAL, 0.1)) as server:
        error, took = timed(lambda: fetch(tmp_path, server))
    assert "stopped, as the run was asked to stop" in str(error)
    assert took < 4


def test_a_stop_ends_a_retry_wait_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 20.0)  # a real 20 s wait, unless stopped
    threading.Timer(0.5, stopping.STOP.set).start()
    with fault_server(respond(503, b"busy")) as server:
        error, took = timed(lambda: fetch(tmp_path, server))
    assert "stopped" in str(error) and took < 4


def small_file(tmp_path: Path, server, seconds: float | None = None, answer: int = 0) -> bytes:
    ctx = context(tmp_path, "vultr", deadline=seconds, real_waits=True)
    ctx.bounds = _body.Bounds(answer) if answer else ctx.bounds
    with _http.http_client("aws", ctx) as client:
        return _files.get_bytes(client, f"{server.url}/spot.js", "aws-spot-feed")


def test_an_aws_small_file_announcing_600_mb_is_refused_unread(tmp_path):
    big = drip(b"x" * 10, 1.0, length=600 << 20)
    with fault_server(big) as server:
        error, took = timed(lambda: small_file(tmp_path, server))
    assert "the answer passed 64 MiB as announced (629,145,600 bytes)" in str(error)
    assert "the limit per answer (CHIPCOST_ANSWER_MAX_MB)" in str(error)
    assert took < 3


def test_an_aws_small_file_streaming_past_the_cap_is_refused(tmp_path):

    def endless(handler, stop) -> None:  # no Content-Length: the body ends when the server closes
        handler.send_response(200)
        handler.end_headers()
        while not stop.is_set():
            try:
                handler.wfile.write(b"x" * 512)
            except OSError:
                return

    with fault_server(endless) as server:
        error, _ = timed(lambda: small_file(tmp_path, server, answer=1000))
    assert "aws-spot-feed: GET" in str(error) and "the answer passed" in str(error)


def test_an_aws_small_file_trickling_meets_the_deadline(tmp_path):
    with fault_server(drip(b"callback(" + b" " * 200 + b")", 0.1)) as server:
        error, took = timed(lambda: small_file(tmp_path, server, seconds=2))
    assert "aws-spot-feed: GET" in str(error) and "2 s deadline" in str(error)
    assert took < 6


def test_a_price_file_download_meets_the_deadline_and_keeps_its_part(tmp_path):
    ctx = context(tmp_path, "vultr", deadline=2, real_waits=True)
    target = tmp_path / "downloads" / "us-east-1.csv"
    with fault_server(drip(b"x" * 400, 0.05)) as server:
        with _http.http_client("aws", ctx) as client:
            error, took = timed(
                lambda: _files.download(
                    client, f"{server.url}/us-east-1.csv", target, source="aws-bulk"
                )
            )
    assert "aws-bulk: download of" in str(error) and "2 s deadline" in str(error)
    assert took < 6
    part = target.with_name(target.name + ".part")
    assert 0 < part.stat().st_size < 400 and not target.exists()  # resumed by the next run


def test_a_price_file_announcing_more_than_the_cap_is_not_downloaded(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "MAX_DOWNLOAD_BYTES", 1 << 20)
    ctx = context(tmp_path, "vultr", real_waits=True)
    target = tmp_path / "downloads" / "us-east-1.csv"
    with fault_server(drip(b"x", 1.0, length=2 << 20)) as server:
        with _http.http_client("aws", ctx) as client:
            error, took = timed(
                lambda: _files.download(
                    client, f"{server.url}/us-east-1.csv", target, source="aws-bulk"
                )
            )
    assert "announced 2,097,152 bytes, past the 0 GB a price file may have" in str(error)
    assert took < 3


def test_the_deadline_setting_is_checked():
    from chipcost.core.errors import ChipcostError
    from chipcost.core.settings import DEFAULT_SOURCE_DEADLINE, source_deadline

    assert source_deadline(None) == DEFAULT_SOURCE_DEADLINE == 3600
    assert source_deadline("90") == 90
    for bad in ("0", "-5", "soon", "100000"):
        with pytest.raises(ChipcostError, match=f"CHIPCOST_SOURCE_DEADLINE='{bad}'"):
            source_deadline(bad)
