"""A local HTTP server for recorded price files: Range, If-Range, ETag, and scripted faults."""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOLD_SECONDS = 30.0  # a held request that never sees its release is answered anyway


@dataclass
class Traffic:
    """Requests in flight now, the most ever at once, and the paths served in order."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    now: int = 0
    most: int = 0
    together: int = 0  # requests for paths in Faults.together in flight now
    most_together: int = 0
    served: list[str] = field(default_factory=list)
    released: dict[str, threading.Event] = field(default_factory=dict)
    changed: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.changed.notify_all()

    def wait_for_company(self) -> None:
        """Count this request among those in `Faults.together`, then wait until two of them
        were in flight at once (or HOLD_SECONDS). `most_together` tells how many were."""
        with self.lock:
            self.together += 1
            self.most_together = max(self.most_together, self.together)
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.most_together >= 2, HOLD_SECONDS)

    def part_company(self) -> None:
        with self.lock:
            self.together -= 1

    def leave(self, path: str) -> None:
        with self.lock:
            self.now -= 1
            self.served.append(path)
            self.event(path).set()

    def event(self, path: str) -> threading.Event:
        return self.released.setdefault(path, threading.Event())  # atomic: one event per path


@dataclass
class Faults:
    """What the server does wrong, per URL path; each list entry is used up by one request."""

    cut_at: dict[str, list[int]] = field(default_factory=dict)  # close after this many bytes
    status: dict[str, list[int]] = field(default_factory=dict)  # answer this status instead
    ignore_range: set[str] = field(default_factory=set)  # always send the whole file
    multipart_etag: set[str] = field(default_factory=set)  # an ETag that is not an MD5
    wrong_etag: set[str] = field(default_factory=set)  # the MD5 of other bytes (corruption)
    # Answer this path only once that one was served (or after HOLD_SECONDS): a forced order.
    hold_until: dict[str, str] = field(default_factory=dict)
    # Answer these paths only once two requests were in flight at once (or after HOLD_SECONDS):
    # a client that downloads concurrently passes at once, in whatever order it sends them.
    together: set[str] = field(default_factory=set)
    pace: float = 0.0  # bytes a second per request (a slow link; benchmarks), 0: as fast as can be
    # This path at this many bytes a second, 1 KiB at a time (a slow download to stop mid-way).
    trickle: dict[str, float] = field(default_factory=dict)


@dataclass
class Served:
    root: Path
    url: str
    faults: Faults
    requests: list[tuple[str, str]]  # (path, Range header or "")
    traffic: Traffic

    def hits(self, suffix: str) -> list[str]:
        return [rng for path, rng in self.requests if path.endswith(suffix)]


def _handler(root: Path, faults: Faults, log: list[tuple[str, str]], traffic: Traffic) -> type:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output quiet
            return None

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            path = self.path.split("?", 1)[0]
            log.append((path, self.headers.get("Range", "")))
            traffic.enter()
            try:
                self._answer(path)
            finally:
                traffic.leave(path)

        def _answer(self, path: str) -> None:
            if path in faults.together:
                traffic.wait_for_company()
                try:
                    self._answer_now(path)
                finally:
                    traffic.part_company()
                return
            self._answer_now(path)

        def _answer_now(self, path: str) -> None:
            if path in faults.hold_until:
                traffic.event(faults.hold_until[path]).wait(HOLD_SECONDS)
            statuses = faults.status.get(path)
            if statuses:
                self.send_error(statuses.pop(0))
                return
            file = (root / path.lstrip("/")).resolve()
            if root not in file.parents or not file.is_file():
                self.send_error(404)
                return
            self._send(path, file.read_bytes())

        def _send(self, path: str, data: bytes) -> None:
            etag = f'"{hashlib.md5(data).hexdigest()}"'  # noqa: S324 - S3's plain ETag
            if path in faults.multipart_etag:
                etag = f'"{hashlib.sha1(data).hexdigest()[:32]}-3"'  # noqa: S324
            if path in faults.wrong_etag:
                etag = f'"{hashlib.md5(b"other bytes").hexdigest()}"'  # noqa: S324
            start = self._range_start(path, etag)
            if start is not None and start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.end_headers()
                return
            body = data[start or 0 :]
            self.send_response(206 if start is not None else 200)
            if start is not None:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", "Mon, 01 Dec 2025 19:06:23 GMT")
            self.end_headers()
            cuts = faults.cut_at.get(path)
            if cuts:
                self.wfile.write(body[: cuts.pop(0)])
                self.wfile.flush()
                self.close_connection = True
                return
            if path in faults.trickle:
                self._paced(body, faults.trickle[path], 1024)
                return
            if faults.pace:
                self._paced(body, faults.pace, 64 * 1024)
                return
            self.wfile.write(body)

        def _paced(self, body: bytes, pace: float, step: int) -> None:
            for start in range(0, len(body), step):
                time.sleep(step / pace)  # before, so the answer ends with its last byte
                self.wfile.write(body[start : start + step])
                self.wfile.flush()

        def _range_start(self, path: str, etag: str) -> int | None:
            match = re.match(r"bytes=(\d+)-$", self.headers.get("Range", ""))
            if not match or path in faults.ignore_range:
                return None
            if_range = self.headers.get("If-Range")
            if if_range and if_range != etag:
                return None
            return int(match.group(1))

    return Handler


@contextmanager
def serve(root: Path, faults: Faults | None = None) -> Iterator[Served]:
    """Serve root on 127.0.0.1 (a free port) in a thread for the duration of the block."""
    faults = faults or Faults()
    log: list[tuple[str, str]] = []
    traffic = Traffic()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(root.resolve(), faults, log, traffic))
    # A short poll interval: shutdown() waits for one, and tests start many servers.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield Served(root, f"http://127.0.0.1:{server.server_address[1]}", faults, log, traffic)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
