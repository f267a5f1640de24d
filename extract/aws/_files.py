"""AWS's public price files over HTTP: small ones in memory, big ones streamed to disk."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chipcost.core.disk import NO_ROOM
from chipcost.core.errors import SourceError
from chipcost.core.stopping import stopping
from chipcost.extract._body import LONGER, CutShort, Longer
from chipcost.extract._http import (
    MAX_ATTEMPTS,
    MAX_REDIRECTS,
    MAX_RETRY_SECONDS,
    RETRY_STATUSES,
    HttpClient,
    backoff,
    complete,
    retry_after,
    status_text,
)
from chipcost.extract._kit import json_of

if TYPE_CHECKING:  # imported where a file is fetched: a replay only parses the archive
    import httpx

# Bytes per read when hashing a finished download: flat memory whatever the file size.
CHUNK = 1 << 20
# A plain S3 ETag is the MD5 of the file; a multipart one ("<md5>-<parts>") is not, so then
# only the size can be checked.
PLAIN_ETAG = re.compile(r'^"?([0-9a-f]{32})"?$')
# Identity encoding: byte offsets for Range must be offsets in the file itself, not in a
# gzip stream the server might choose to send.
IDENTITY = {"Accept-Encoding": "identity"}
# AWS answers 404, or 403 with S3's AccessDenied (its bucket lets no one list it, so a key
# it does not hold is refused, not "not found"), for a file it does not publish.
MISSING = (403, 404)
# S3's error document, as CloudFront passes it on: the one 403 that says a file is not there.
# Any other 403 (a proxy's or a bot check's page, "Just a moment...") is a refusal, not AWS's
# word on the file: taken as none published, the backfill skipped a version whose file
# older and newer versions loaded from.
S3_NOT_HELD = re.compile(rb"<Error>\s*<Code>\s*(?:AccessDenied|NoSuchKey)\s*</Code>")
# A region's price file is up to a few GB (EC2 in us-east-1); one past this is not a price
# file, and streaming it would fill the disk. Small files (indexes, the spot feed) are read
# in memory within extract/_body.py's cap.
MAX_DOWNLOAD_BYTES = 16 << 30

Progress = Callable[[int, int | None], None]


class NotPublished(SourceError):
    """AWS publishes no file at this URL: 404, or 403 with S3's error document."""


class _Retry(Exception):
    """Internal: a failed attempt worth retrying; the message says what happened."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


@dataclass(frozen=True)
class Downloaded:
    """A complete, verified download: what the manifest records about the original file."""

    url: str
    path: str
    bytes: int
    sha256: str
    etag: str
    last_modified: str
    downloaded_at: str
    verified: str  # what was checked: "size, md5 (ETag)" or "size"

    def describe(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "path"}


def get_bytes(client: HttpClient, url: str, source: str) -> bytes:
    """A small file (an index, the spot feed) with retries, read whole within the size cap and
    the deadlines; SourceError says what to do."""
    import httpx  # imported when a source fetches: a replay only parses

    where = f"{source}: GET {url}"
    for attempt in range(1, MAX_ATTEMPTS + 1):
        client.check(where)
        longer = False
        try:
            request = client.client.build_request("GET", url, timeout=client.timeout())
            response = complete(client, where, request)
            _raise_for(response, url, source)
            return response.content
        except _Retry as exc:
            failure, asked = str(exc), exc.wait
        except Longer as exc:  # retried as a cut is, but no cut: more came than it said
            failure, asked, longer = f"sent more than it said ({exc})", None, True
        except (httpx.TransportError, CutShort) as exc:  # CutShort: a body cut short, retried
            failure, asked = f"{type(exc).__name__}: {exc}", None
        except httpx.TooManyRedirects:  # no TransportError: it was "a bug in chipcost"
            raise _loop(url, source) from None
        if attempt == MAX_ATTEMPTS and longer:  # in the words of every web source's (_http)
            raise SourceError(f"{where} {failure}; gave up after {attempt} attempt(s): {LONGER}")
        if attempt == MAX_ATTEMPTS:
            raise SourceError(
                f"{source}: GET {url} failed after {attempt} attempt(s) ({failure}): check the "
                "network or proxy, then run again"
            )
        wait = _bounded(client, asked, url, source) if asked else backoff(attempt)
        client.sleep(min(wait, max(client.left(), 0.0)))  # the next check names the deadline
    raise AssertionError("unreachable")  # pragma: no cover


def get_json(client: HttpClient, url: str, source: str) -> tuple[bytes, Any]:
    data = get_bytes(client, url, source)
    try:
        return data, json_of(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SourceError(
            f"{source}: {url} is not JSON ({exc}): AWS may have changed the file; report it"
        ) from exc


def _loop(url: str, source: str) -> SourceError:
    """A redirect loop (or a chain past MAX_REDIRECTS), said as a web source says it: not
    retried, as the same URL redirects the same way again."""
    return SourceError(f"{source}: GET {url} redirected more than {MAX_REDIRECTS} times: report it")


def _raise_for(response: httpx.Response, url: str, source: str) -> None:
    if response.is_success:
        return
    if response.status_code == 403 and not S3_NOT_HELD.search(response.content[:4096]):
        raise SourceError(
            f"{source}: GET {url} answered {status_text(response)}: refused, and not as AWS "
            "refuses a file it does not publish (S3's <Error> document): a proxy or a bot "
            "check stood in the way; run again, and check the network's proxy if it lasts"
        )
    if response.status_code in MISSING:
        raise NotPublished(f"{source}: AWS publishes no file at {url} ({status_text(response)})")
    if response.status_code in RETRY_STATUSES:
        raise _Retry(f"answered {status_text(response)}", retry_after(response))
    raise SourceError(
        f"{source}: GET {url} answered {status_text(response)}: AWS refused the request; "
        "report it with the archived run"
    )


def download(
    client: HttpClient, url: str, target: Path, *, source: str, progress: Progress | None = None
) -> Downloaded:
    """Stream url to target through target.part, resuming with Range, then verify it.

    An attempt that moved the file forward does not count against the retries, so a flaky
    connection still finishes a 300 MB file; only attempts that gain nothing do.
    """
    import httpx  # imported when a source fetches: a replay only parses

    part = target.with_name(target.name + ".part")
    state = _PartState.load(part, url)
    stalled = 0
    while True:
        before = state.size()
        client.check(f"{source}: download of {url}")
        try:
            if _stream_once(client, url, state, progress or _quiet, source):
                break
            failure, wait = f"the connection closed at {state.size():,} bytes", None
        except _Retry as exc:
            failure, wait = str(exc), exc.wait
        except httpx.TransportError as exc:
            failure, wait = f"{type(exc).__name__}: {exc}", None
        except httpx.TooManyRedirects:
            raise _loop(url, source) from None
        except OSError as exc:
            raise state.refused(exc) from exc
        stalled = 0 if state.size() > before else stalled + 1
        if stalled >= MAX_ATTEMPTS:
            raise SourceError(
                f"{source}: download of {url} stopped at {state.size():,} of "
                f"{state.total or '?'} bytes after {stalled} attempt(s) without progress "
                f"({failure}): run again; it resumes from {part}"
            )
        if wait is not None:
            wait = _bounded(client, wait, url, source)
        wait = wait if wait is not None else backoff(max(stalled, 1))
        client.sleep(min(wait, max(client.left(), 0.0)))  # the next check names the deadline
    return _finish(state, target, url, source)


def _bounded(client: HttpClient, wait: float, url: str, source: str) -> float:
    """A wait the server asked for (Retry-After), when it fits the retry budget and what is
    left of the deadline; a longer one (999999 s, a date in 2100) fails the source at once
    instead of hanging the run."""
    if wait >= client.left():
        raise SourceError(
            f"{source}: {url} asked to wait {wait:,.0f} s before trying again (Retry-After), "
            f"past what is left of the source's deadline ({client.left():,.0f} s): run again "
            "later"
        )
    if wait > MAX_RETRY_SECONDS:
        raise SourceError(
            f"{source}: {url} asked to wait {wait:,.0f} s before trying again (Retry-After), "
            f"past the {MAX_RETRY_SECONDS:.0f} s a fetch may wait: run again later"
        )
    return wait


def _quiet(done: int, total: int | None) -> None:
    return None


@dataclass
class _PartState:
    """The .part file and what the server said about it, kept beside it across runs."""

    part: Path
    url: str
    etag: str = ""
    last_modified: str = ""
    total: int | None = None

    @property
    def meta(self) -> Path:
        return self.part.with_name(self.part.name + ".json")

    @classmethod
    def load(cls, part: Path, url: str) -> _PartState:
        state = cls(part, url)
        try:
            saved = json.loads(state.meta.read_text("utf-8"))
        except (OSError, ValueError):
            saved = {}
        if not isinstance(saved, dict):  # not what save() writes: know nothing of the part
            saved = {}
        total = saved.get("total")
        if saved.get("url") == url and part.exists():
            state.etag = str(saved.get("etag") or "")
            state.total = total if isinstance(total, int) and not isinstance(total, bool) else None
            state.last_modified = str(saved.get("last_modified") or "")
        else:  # a .part of another file, or one we know nothing about: start again
            part.unlink(missing_ok=True)
        return state

    def size(self) -> int:
        return self.part.stat().st_size if self.part.exists() else 0

    def save(self) -> None:
        fields = {"url": self.url, "etag": self.etag, "last_modified": self.last_modified}
        self.meta.write_text(json.dumps({**fields, "total": self.total}), "utf-8")

    def restart(self) -> None:
        self.part.unlink(missing_ok=True)
        self.etag, self.last_modified, self.total = "", "", None

    def refused(self, exc: OSError) -> OSError:
        """A write of the download the disk refused, naming the .part (a failed write() names
        no file); with no room left the .part goes, and what it says of itself: a full disk
        keeps no part of a payload, and the next run downloads the file again."""
        if exc.errno in NO_ROOM:
            self.part.unlink(missing_ok=True)
            self.meta.unlink(missing_ok=True)
        if exc.filename:
            return exc
        return OSError(exc.errno, exc.strerror, str(self.part))


def _stream_once(
    client: HttpClient, url: str, state: _PartState, progress: Progress, source: str
) -> bool:
    """One request: True when the .part now holds the whole file."""
    import httpx  # imported when a source fetches: a replay only parses

    offset = state.size()
    headers = dict(IDENTITY)
    if offset:
        headers["Range"] = f"bytes={offset}-"
        if state.etag:  # the server sends the whole (new) file if it changed meanwhile
            headers["If-Range"] = state.etag
    state.part.parent.mkdir(parents=True, exist_ok=True)
    with (
        client.reaching(httpx.URL(url).host),
        client.client.stream("GET", url, headers=headers, timeout=client.timeout()) as response,
    ):
        if response.status_code == 416:
            return _range_not_satisfiable(response, state)
        if not response.is_success:
            response.read()  # an error body is small, and its text goes in the message
        _raise_for(response, url, source)
        mode = _resume_mode(response, state, offset)
        if mode is None:
            return False
        if (state.total or 0) > MAX_DOWNLOAD_BYTES:
            raise SourceError(
                f"{source}: {url} announced {state.total:,} bytes, past the "
                f"{MAX_DOWNLOAD_BYTES >> 30} GB a price file may have: not downloaded; report it"
            )
        with state.part.open(mode) as out:
            done = state.size()
            # As received, not re-chunked: a chunker would lose its buffer when the
            # connection drops, and the .part must hold every byte that arrived.
            for chunk in response.iter_raw():
                out.write(chunk)
                done += len(chunk)
                progress(done, state.total)
                if done > MAX_DOWNLOAD_BYTES:
                    raise SourceError(
                        f"{source}: {url} sent more than {MAX_DOWNLOAD_BYTES >> 30} GB, past "
                        "what a price file may have: stopped; report it"
                    )
                if stopping() or (client.stop is not None and client.stop.is_set()):
                    raise SourceError(
                        f"{source}: download of {url} stopped at {done:,} of "
                        f"{state.total or '?'} bytes: the run was stopped; the next one resumes "
                        f"from {state.part}"
                    )
                client.check(f"{source}: download of {url} at {done:,} bytes")
    return state.total is None or state.size() == state.total


def _resume_mode(response: httpx.Response, state: _PartState, offset: int) -> str | None:
    """'ab' to append a 206 at our offset, 'wb' for a whole 200; None to start over."""
    if response.status_code == 206:
        match = re.match(r"bytes (\d+)-\d+/(\d+|\*)", response.headers.get("Content-Range", ""))
        if not match or int(match.group(1)) != offset:
            state.restart()
            return None
        state.total = int(match.group(2)) if match.group(2) != "*" else state.total
        return "ab"
    length = response.headers.get("Content-Length")
    state.total = int(length) if length and length.isascii() and length.isdigit() else None
    state.etag = response.headers.get("ETag", "")
    state.last_modified = response.headers.get("Last-Modified", "")
    state.part.unlink(missing_ok=True)
    state.save()
    return "wb"


def _range_not_satisfiable(response: httpx.Response, state: _PartState) -> bool:
    match = re.match(r"bytes \*/(\d+)", response.headers.get("Content-Range", ""))
    if match and int(match.group(1)) == state.size():
        state.total = state.size()
        return True
    state.restart()
    return False


def _finish(state: _PartState, target: Path, url: str, source: str) -> Downloaded:
    sha, md5 = hashlib.sha256(), hashlib.md5()  # noqa: S324 - md5 only to check S3's ETag
    with state.part.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            sha.update(chunk)
            md5.update(chunk)
    checks = ["size"] if state.total is not None else []
    plain = PLAIN_ETAG.match(state.etag)
    if plain:
        if plain.group(1) != md5.hexdigest():
            state.restart()
            state.meta.unlink(missing_ok=True)
            raise SourceError(
                f"{source}: the file downloaded from {url} does not match its ETag (MD5 "
                f"{plain.group(1)}): it was corrupted on the way and was deleted; run again"
            )
        checks.append("md5 (ETag)")
    os.replace(state.part, target)
    state.meta.unlink(missing_ok=True)
    return Downloaded(
        url=url,
        path=str(target),
        bytes=target.stat().st_size,
        sha256=sha.hexdigest(),
        etag=state.etag,
        last_modified=state.last_modified,
        downloaded_at=datetime.now(UTC).isoformat(),
        verified=", ".join(checks) or "nothing (no Content-Length or ETag)",
    )
