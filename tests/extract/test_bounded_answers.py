"""An answer is bounded as it inflates, a source's answers and a run's together too: through a
real local HTTP server, for HTTP sources run as the daily flow runs them (collect_source).

On main at 697f5e5 the size cap was checked on the bytes as sent, before they were unpacked:
a 199 KB gzip answer inflating to 200 MB was taken whole (529 MB resident), and the cap was
per answer, so 20 answers each within it held 1.2 GB in one source.
"""

from __future__ import annotations

import gzip
import json
import shutil
import tracemalloc
import zlib
from pathlib import Path

import httpx
import pytest

from chipcost.core.network import Network
from chipcost.core.runs import FAILED, OK
from chipcost.core.settings import Settings
from chipcost.extract import _http, registry, runpod, vultr
from chipcost.pipeline.collect import collect_source
from tests.fault_server import fault_server, respond
from tests.fault_support import contained, load_day, preloaded_warehouse
from tests.paths import FIXTURES

MiB = 1 << 20
STAMP = "2026-11-16T060000Z"
RUNPOD_BODY = (FIXTURES / "runpod" / "gpu-types.json").read_bytes()
PLANS = (FIXTURES / "vultr" / "plans.json").read_bytes()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return preloaded_warehouse(tmp_path_factory.mktemp("bounded"))


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)
    monkeypatch.setattr(_http, "default_timeout", lambda: httpx.Timeout(5.0))


def settings_for(tmp_path: Path, warehouse: Path, **limits: int) -> Settings:
    db = tmp_path / "w.duckdb"
    shutil.copy(warehouse, db)
    return Settings(data_dir=tmp_path, db_path=db, **limits)


def bomb(coding: str, size: int) -> bytes:
    """`size` bytes of spaces inside a JSON string, coded, built a MiB at a time (the test
    never holds them decoded)."""
    wbits = {"gzip": 31, "deflate": 15, "raw-deflate": -15}[coding]
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    parts = [packer.compress(b'{"data": {"gpuTypes": [], "pad": "')]
    parts += [packer.compress(b" " * MiB) for _ in range(size // MiB)]
    return b"".join([*parts, packer.compress(b'"}}'), packer.flush()])


def coded(body: bytes, coding: str) -> bytes:
    import brotli
    from backports import zstd

    if coding == "gzip, gzip":
        return gzip.compress(gzip.compress(body))
    if coding == "br, gzip":
        return gzip.compress(brotli.compress(body))
    return {"gzip": gzip.compress, "deflate": zlib.compress, "br": brotli.compress,
            "zstd": zstd.compress}[coding](body)  # fmt: skip


def spaces(size: int) -> bytes:
    """`size` bytes of spaces inside a JSON string Runpod's parser would read."""
    return b'{"data": {"gpuTypes": [], "pad": "' + b" " * size + b'"}}'


def brotli_bomb(size: int) -> bytes:
    import brotli

    return brotli.compress(spaces(size), quality=5)


def zstd_bomb(size: int) -> bytes:
    from backports import zstd

    return zstd.compress(spaces(size))


def page(cursor: str, pad: int) -> bytes:
    """A page of Vultr's bare-metal plans, `pad` bytes of it a field nobody reads."""
    body = {"plans_metal": [], "pad": " " * pad, "meta": {"links": {"next": cursor}}}
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    "case",
    [
        "gzip-bomb",
        "deflate-bomb",
        "raw-deflate-bomb",
        "gzip-in-gzip",
        "br-bomb",
        "zstd-bomb",
        "zstd-in-gzip",
        "zstd-window",
        "compress",
        "source-bound",
        "run-bound",
    ],
)
def test_answers_are_bounded_as_they_inflate(tmp_path, warehouse, monkeypatch, case):
    settings = settings_for(tmp_path, warehouse, answer_max_bytes=MiB)
    network = None
    gz = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    if case in ("br-bomb", "zstd-bomb"):
        coding = case.removesuffix("-bomb")
        body = (brotli_bomb if coding == "br" else zstd_bomb)(64 * MiB)
        script, source = [respond(200, body, {"Content-Encoding": coding})], "runpod"
        words = "the answer passed 1 MiB decoded, the limit per answer (CHIPCOST_ANSWER_MAX_MB)"
    elif case == "zstd-in-gzip":  # listed in the order applied: zstd first, then gzip
        body = gzip.compress(zstd_bomb(64 * MiB))
        script, source = [respond(200, body, {"Content-Encoding": "zstd, gzip"})], "runpod"
        words = "the answer passed 1 MiB decoded, the limit per answer (CHIPCOST_ANSWER_MAX_MB)"
    elif case == "zstd-window":  # a frame asking the decoder for a 64 MB window
        from backports import zstd

        # streamed, its size unsaid, so the frame declares the window
        window = {zstd.CompressionParameter.window_log: 26}
        window[zstd.CompressionParameter.content_size_flag] = 0
        packer = zstd.ZstdCompressor(options=window)
        body = packer.compress(RUNPOD_BODY) + packer.flush()
        script, source = [respond(200, body, {"Content-Encoding": "zstd"})], "runpod"
        words = "answered a zstd frame whose window passes 8 MB, the bound for HTTP (RFC 9659)"
    elif case == "compress":  # never asked for: refused, not kept still coded
        body = b"\x1f\x9d\x90" + RUNPOD_BODY[:64]
        script, source = [respond(200, body, {"Content-Encoding": "compress"})], "runpod"
        words = "answered in compress coding, which chipcost does not ask for (it asks for "
        words += "gzip, deflate, br, zstd): not read"
    elif case.endswith("-bomb"):
        coding = case.removesuffix("-bomb")
        body = bomb(coding, 64 * MiB)  # 64 MiB decoded, a few dozen KB as sent
        sent = {"Content-Encoding": "deflate" if "deflate" in coding else coding}
        script, source = [respond(200, body, sent)], "runpod"
        words = "the answer passed 1 MiB decoded, the limit per answer (CHIPCOST_ANSWER_MAX_MB)"
    elif case == "gzip-in-gzip":
        body = coded(b'{"data": {"gpuTypes": [], "pad": "' + b" " * 3 * MiB + b'"}}', "gzip, gzip")
        script, source = [respond(200, body, {"Content-Encoding": "gzip, gzip"})], "runpod"
        words = "the answer passed 1 MiB decoded, the limit per answer (CHIPCOST_ANSWER_MAX_MB)"
    else:  # 20 pages of 400 KB each (1 KB as sent), every one within the answer's bound
        pages = [page(f"c{i + 1}", 400 << 10) for i in range(19)] + [page("", 400 << 10)]
        script, source = [respond(200, gzip.compress(p), gz) for p in pages], "vultr"
        if case == "source-bound":
            settings = settings_for(tmp_path, warehouse, source_payloads_max_bytes=MiB)
            words = "the source's answers this run passed 1 MiB decoded, the limit per source"
            words += " (CHIPCOST_SOURCE_PAYLOADS_MAX_MB)"
        else:
            network = Network(run_bytes=MiB)
            words = "the run's answers, every source's together, passed 1 MiB decoded, the "
            words += "limit per run (CHIPCOST_RUN_PAYLOADS_MAX_MB)"
    # Only while fetching: the sample's runs replayed for the load need Vultr's own URLs.
    with fault_server(*script) as server, monkeypatch.context() as patched:
        patched.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
        patched.setattr(vultr, "LISTS", {f"{server.url}/v2/plans-metal": ("plans_metal", {})})
        tracemalloc.start()
        try:
            result = collect_source(
                registry()[source], settings=settings, stamp=STAMP, network=network
            )
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        asked = len(server.requests)
    assert result.status == FAILED, result.message
    assert words in result.message, result.message
    assert result.message.startswith(f"{source}: ") and "\n" not in result.message
    assert "Traceback" not in result.message and "bug in chipcost" not in result.message
    assert asked == (3 if case.endswith("-bound") else 1)  # never retried
    # Counted as it inflated: nothing near 64 MiB was ever held.
    assert peak < 16 * MiB, peak
    contained(settings, result)  # the source's history untouched, the other source loads
    if network is not None:  # and a later source of the same run still fits in what is left
        with fault_server(respond(200, RUNPOD_BODY)) as server:
            monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
            later = collect_source(
                registry()["runpod"], settings=settings, stamp=STAMP, network=network
            )
        assert later.status == OK, later.message


@pytest.mark.parametrize("coding", ["gzip", "deflate", "gzip, gzip", "br", "zstd", "br, gzip"])
def test_a_coded_answer_within_its_bounds_loads(tmp_path, warehouse, monkeypatch, coding):
    settings = settings_for(tmp_path, warehouse, answer_max_bytes=MiB)
    answer = respond(200, coded(RUNPOD_BODY, coding), {"Content-Encoding": coding})
    with fault_server(answer) as server:
        monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
        result = collect_source(registry()["runpod"], settings=settings, stamp=STAMP)
    assert result.status == OK, result.message
    assert load_day(settings, result).status == OK


def test_an_error_answer_is_quoted_decoded_and_read_no_further(tmp_path, warehouse, monkeypatch):
    """An error's body is decoded for its message (an API's refusal in gzip quoted as its
    words), at most 16 KiB of it read, so a gzip bomb as an error's body is never held (and
    one of zeros is said as bytes that are not text); 1,500 codings one inside another are
    refused as such. On 57591a84 the message quoted the gzip bytes as sent."""
    settings = settings_for(tmp_path, warehouse)
    refusal = gzip.compress(b'{"message": "invalid api key"}')
    cases = [
        ([respond(403, refusal, {"Content-Encoding": "gzip"})],
         'answered 403 Forbidden ({"message": "invalid api key"})'),
        ([respond(500, bomb("gzip", 64 * MiB), {"Content-Encoding": "gzip"})] * 5,
         'answered 500 Internal Server Error ({"data": {"gpuTypes": [], "pad": ");'),
        ([respond(500, gzip.compress(bytes(64 * MiB)), {"Content-Encoding": "gzip"})] * 5,
         "answered 500 Internal Server Error (16,384 bytes that are not text)"),
        ([respond(200, RUNPOD_BODY, {"Content-Encoding": ", ".join(["gzip"] * 1500)})],
         "answered in 1,500 content codings one inside another, more than any server applies"),
    ]  # fmt: skip
    for script, words in cases:
        with fault_server(*script) as server, monkeypatch.context() as patched:
            patched.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
            tracemalloc.start()
            try:
                result = collect_source(registry()["runpod"], settings=settings, stamp=STAMP)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
        assert result.status == FAILED and words in result.message, result.message
        assert "\n" not in result.message and "bug in chipcost" not in result.message
        assert peak < 8 * MiB, peak


@pytest.mark.parametrize("coding", ["zstd", "gzip"])
def test_an_answer_of_thousands_of_streams_is_refused_at_once(
    tmp_path, warehouse, monkeypatch, coding
):
    """Runpod's answer, then 2 MB of empty zstd frames (gzip members): on 9165155e 60 MB of
    empty frames took 85 s of CPU, one decoder each, and loaded."""
    from backports import zstd

    empty = zstd.compress(b"") if coding == "zstd" else gzip.compress(b"", mtime=0)
    packed = zstd.compress if coding == "zstd" else gzip.compress
    body = packed(RUNPOD_BODY) + empty * ((2 * MiB) // len(empty))
    settings = settings_for(tmp_path, warehouse)
    with fault_server(respond(200, body, {"Content-Encoding": coding})) as server:
        monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
        result = collect_source(registry()["runpod"], settings=settings, stamp=STAMP)
        asked = len(server.requests)
    assert result.status == FAILED and asked == 1, result.message
    assert f"answered a {coding} body of more than 1,000 streams one after another" in (
        result.message
    )
