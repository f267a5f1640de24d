"""A streamed HTTP response read whole within its limits, or refused: its size, its own deadline,
the fetch's stop and deadline at every chunk, its Content-Length, and the end of its gzip or
deflate stream and of its HTML page (a body cut short must never load as a whole price list)."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from chipcost.core.errors import SourceError

if TYPE_CHECKING:  # imported where a request is made: a replay only parses, never fetches
    import httpx

# A price API answers in kilobytes to a few megabytes; a body past this is not a price list
# (AWS's price files, hundreds of megabytes, stream to disk through extract/aws/_files.py).
MAX_BODY_BYTES = 64 << 20
BIG = "not a price list; report it"
# One response, connect to last byte: a server sending a byte every few seconds never trips
# the per-read timeout, so the whole body has a deadline of its own.
BODY_DEADLINE_SECONDS = 120.0
# The codings to ask for: those decoded() reads to their end (httpx's own decoder takes a
# gzip stream cut short for a whole one).
ENCODINGS = "gzip, deflate"


class CutShort(Exception):
    """A response whose body did not arrive whole: retried, then named as such.

    Not an httpx.TransportError (httpx is imported only when a source fetches): every
    `except httpx.TransportError` around a read names CutShort beside it."""


def whole(
    response: httpx.Response,
    where: str,
    check: Callable[[str], None],
    clock: Callable[[], float],
    started: float,
) -> httpx.Response:
    """`response` (streamed, sent at `started`) rebuilt on its whole, decoded body; `check`
    raises when the fetch must stop. SourceError past the size cap, httpx.ReadTimeout past
    the body's deadline, CutShort when it did not arrive whole."""
    import httpx  # imported when a source fetches: a replay only parses

    length = response.headers.get("Content-Length", "")
    raw = bytearray()
    try:
        if length.isdigit() and int(length) > MAX_BODY_BYTES:
            raise SourceError(
                f"{where} announced {int(length):,} bytes, more than {MAX_BODY_BYTES >> 20} MB: "
                f"{BIG}"
            )
        # The body as sent (still encoded), from a network stream or one held in memory alike.
        for chunk in response.stream:  # type: ignore[union-attr]
            raw += chunk
            if len(raw) > MAX_BODY_BYTES:
                raise SourceError(f"{where} sent more than {MAX_BODY_BYTES >> 20} MB: {BIG}")
            if clock() - started > BODY_DEADLINE_SECONDS:
                raise httpx.ReadTimeout(f"body not received within {BODY_DEADLINE_SECONDS:.0f} s")
            check(where)
    finally:
        response.close()
    if length.isdigit() and int(length) != len(raw):
        raise CutShort(f"body cut short: {len(raw)} of {length} bytes")
    coding = response.headers.get("Content-Encoding", "").strip().lower()
    body = decoded(bytes(raw), coding) if response.is_success else bytes(raw)
    kind = response.headers.get("Content-Type", "").lower()
    if response.is_success and "html" in kind and not ends_html(body):
        raise CutShort("HTML page cut short: it never closes </html>")
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-encoding"]
    return httpx.Response(
        response.status_code, headers=headers, content=body, request=response.request
    )


def decoded(raw: bytes, coding: str) -> bytes:
    """The body without its gzip or deflate coding; a stream that does not end is cut short."""
    try:
        if coding in ("gzip", "x-gzip"):
            return gzip.decompress(raw)
        return zlib.decompress(raw) if coding == "deflate" else raw
    except (OSError, EOFError, zlib.error) as exc:
        raise CutShort(f"{coding} body cut short or corrupt ({exc})") from None


def ends_html(body: bytes) -> bool:
    """Whether an HTML document that opens as one also closes (a page cut mid-way does not)."""
    head = body[:512].lstrip().lower()
    if not head.startswith((b"<!doctype html", b"<html")):
        return True  # a fragment: nothing to compare
    return b"</html>" in body[-4096:].lower()
