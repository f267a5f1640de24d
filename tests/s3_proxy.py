"""A TCP proxy in front of the S3 test double that stalls or refuses from the Nth PUT on.

Requests pass through untouched until `fail_after` PUT requests went by; from the next one
on, `how` = "stall" holds every request unanswered (an endpoint timing out) and "refuse"
cuts the connection (an endpoint refusing), until `heal()`. It works on the bytes each
request starts with, so connections kept alive by the client are caught too; `requests`
lists the request line ("GET /bucket/key?query") of each request that went through, and
`answered_bytes` counts what the endpoint sent back.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

BLOCK = 64 * 1024
# How a chunk that starts a request begins (a body's chunks do not).
METHODS = (b"GET /", b"PUT /", b"HEAD ", b"POST ", b"DELET")


class Proxy:
    def __init__(self, upstream: str, fail_after: int, how: str) -> None:
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.fail_after, self.how = fail_after, how
        self.puts = 0
        self.requests: list[str] = []
        self.answered_bytes = 0  # all the endpoint sent back, headers included
        self.failing = threading.Event()  # set once the Nth PUT went by; clear: healed
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.closed = threading.Event()

    def heal(self) -> None:
        self.fail_after = 10**9
        self.failing.clear()

    def serve(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.closed.is_set():  # the wake-up connection from close()
                _close(client)
                return
            threading.Thread(target=self._pipe_client, args=(client,), daemon=True).start()

    def _pipe_client(self, client: socket.socket) -> None:
        upstream = socket.create_connection(self.upstream)
        threading.Thread(target=self._answer, args=(upstream, client), daemon=True).start()
        try:
            while data := client.recv(BLOCK):
                if self._fails(data):
                    if self.how == "stall":  # hold: nothing is forwarded or answered
                        while self.failing.is_set() and not self.closed.is_set():
                            self.closed.wait(0.05)
                        break
                    break  # refuse: the connection is cut
                upstream.sendall(data)
        except OSError:
            pass
        finally:
            _close(client)
            _close(upstream)

    def _answer(self, upstream: socket.socket, client: socket.socket) -> None:
        try:
            while data := upstream.recv(BLOCK):
                with self.lock:
                    self.answered_bytes += len(data)
                client.sendall(data)
        except OSError:
            pass
        finally:
            _close(client)

    def _fails(self, data: bytes) -> bool:
        with self.lock:
            starts = data[:5] in METHODS
            if data.startswith(b"PUT "):
                self.puts += 1
                if self.puts > self.fail_after:
                    self.failing.set()
            failing = self.failing.is_set() and starts
            if starts and not failing:
                line = data.split(b"\r\n", 1)[0].rsplit(b" ", 1)[0]  # no " HTTP/1.1"
                self.requests.append(line.decode("latin-1"))
            return failing


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


@contextmanager
def proxying(upstream: str, fail_after: int, how: str) -> Iterator[Proxy]:
    proxy = Proxy(upstream, fail_after, how)
    thread = threading.Thread(target=proxy.serve, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.closed.set()
        # Closing a listening socket does not wake a thread blocked in accept(): connect once.
        with contextlib.suppress(OSError):
            socket.create_connection(proxy.listener.getsockname(), timeout=1).close()
        thread.join(5)
        proxy.listener.close()
