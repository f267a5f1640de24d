"""A local HTTP server on 127.0.0.1 that misbehaves on cue: resets, stalls, errors, bad bodies.

Each request takes the next answer of the script; the last answer repeats. The server stops
answering after MAX_REQUESTS (410 Gone) so a runaway client loop ends by itself, and every
stall wakes up when the server stops.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_REQUESTS = 60
Answer = Callable[[BaseHTTPRequestHandler, threading.Event], None]


def respond(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Answer:
    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.send_response(status)
        kind = {"Content-Type": "application/json"} if body[:1] in (b"{", b"[") else {}
        for name, value in {**kind, **(headers or {})}.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


def reset() -> Answer:
    """Close the connection with a TCP RST before any byte of the answer."""

    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.connection.close()  # linger 0: the peer gets RST, not a polite FIN
        handler.close_connection = True

    return answer


def stall(seconds: float) -> Answer:
    """Accept the request and say nothing for `seconds` (or until the server stops)."""

    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        stop.wait(seconds)
        handler.close_connection = True

    return answer


def cut(body: bytes, keep: int) -> Answer:
    """Promise the whole body (Content-Length), send `keep` bytes, hang up."""

    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body[:keep])
        handler.wfile.flush()
        handler.close_connection = True

    return answer


def longer(body: bytes, said: int, headers: dict[str, str] | None = None) -> Answer:
    """Say a Content-Length of `said` bytes and send all of `body`, more, in one write; the
    connection kept open, as a server's that would answer again on it."""

    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.send_response(200)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(said))
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()

    return answer


def drip(body: bytes, every: float, length: int | None = None) -> Answer:
    """Promise `length` bytes (the body's, or None: no Content-Length) and send one byte every
    `every` seconds: never a read timeout, never a whole body in reasonable time."""

    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if length is not None or body:
            handler.send_header("Content-Length", str(len(body) if length is None else length))
        handler.end_headers()
        for byte in body:
            if stop.wait(every):
                return
            try:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
            except OSError:  # the client gave up, as it should
                return
        handler.close_connection = True

    return answer


@dataclass
class FaultServer:
    url: str
    script: list[Answer]
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)


def _handler(server: FaultServer, stop: threading.Event) -> type:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output quiet
            return None

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            with lock:
                server.requests.append((self.command, self.path, dict(self.headers)))
                count = len(server.requests)
                answer = server.script[min(count, len(server.script)) - 1]
            if count > MAX_REQUESTS:
                answer = respond(410, b"too many requests for one test")
            del body
            answer(self, stop)

        do_GET = do_POST = _answer  # noqa: N815 - the http.server API

    return Handler


@contextmanager
def fault_server(*script: Answer) -> Iterator[FaultServer]:
    """Serve `script` on 127.0.0.1 (a free port) for the duration of the block."""
    stop = threading.Event()
    served = FaultServer("", list(script))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(served, stop))
    httpd.daemon_threads = True
    served.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield served
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
