"""A real HTTP server that receives webhooks (apprise json:// and form:// targets) for tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


@dataclass
class Hook:
    path: str
    content_type: str
    body: bytes

    def fields(self) -> dict[str, str]:
        """The posted fields: a JSON object (json://) or form fields (form://)."""
        if self.content_type.startswith("application/json"):
            return json.loads(self.body)
        return {k: v[0] for k, v in parse_qs(self.body.decode()).items()}


@dataclass
class Received:
    hooks: list[Hook] = field(default_factory=list)
    status: int = 200  # what the server answers; 500 to play a failing target
    delay: float = 0.0  # seconds before the answer: a slow target
    # Called with each hook as it arrives, before the answer (what else is true meanwhile).
    on_hook: Callable[[Hook], None] | None = None


@contextmanager
def serving(port: int = 0, status: int = 200, delay: float = 0.0) -> Iterator[tuple[int, Received]]:
    """A webhook receiver on 127.0.0.1 (port 0: any free one); yields its port and inbox."""
    received = Received(status=status, delay=delay)
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server hook
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            hook = Hook(self.path, self.headers.get("Content-Type", ""), body)
            received.hooks.append(hook)
            if received.on_hook is not None:
                received.on_hook(hook)
            if stop.wait(received.delay):
                return
            self.send_response(received.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
