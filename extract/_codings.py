"""An answer's content codings undone as its bytes arrive, in steps of at most STEP bytes, so
what it inflates to is counted before it is held (199 KB of gzip inflated to 200 MB whole)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from chipcost.core.errors import SourceError

# Bytes of output one step of a decoder gives at most: a chunk of 64 KB of gzip can hold
# 64 MB of zeros, never inflated in one call.
STEP = 1 << 16
# The codings chipcost asks for (Accept-Encoding) and undoes, read to their end (httpx's own
# decoder takes a gzip stream cut short for a whole one).
ENCODINGS = "gzip, deflate"
GZIP = ("gzip", "x-gzip")


class CutShort(Exception):
    """A response whose body did not arrive whole: retried, then named as such.

    Not an httpx.TransportError (httpx is imported only when a source fetches): every
    `except httpx.TransportError` around a read names CutShort beside it."""


class Inflater:
    """One gzip stream (its members one after another, as gzip.decompress reads them) or one
    deflate stream (zlib's wrapper, or the bare deflate some servers send, as httpx reads it)."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.gzip = coding in GZIP
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS) if self.gzip else None
        self.head = b""  # deflate: its first two bytes, which tell the wrapper from bare
        self.between = True  # gzip: no member begun, or the last one ended

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The output of `data`, in pieces of at most STEP bytes."""
        if self.inflater is None:  # deflate, until its first two bytes are in
            self.head += data
            if len(self.head) < 2:
                return
            wrapped = (self.head[0] & 0x0F) == 8 and int.from_bytes(self.head[:2], "big") % 31 == 0
            self.inflater = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
            data, self.head = self.head, b""
        yield from self._inflate(data)

    def _inflate(self, data: bytes) -> Iterator[bytes]:
        assert self.inflater is not None
        while data:
            if self.gzip and self.between:
                data = data.lstrip(b"\0")  # the padding gzip.decompress allows between members
                if not data:
                    return
                self.between = False
            try:
                out = self.inflater.decompress(data, STEP)
                while True:
                    if out:
                        yield out
                    tail = self.inflater.unconsumed_tail
                    if self.inflater.eof or (not tail and len(out) < STEP):
                        break
                    out = self.inflater.decompress(tail, STEP)
            except zlib.error as exc:
                raise CutShort(f"{self.coding} body cut short or corrupt ({exc})") from None
            if not self.inflater.eof:
                return
            data = self.inflater.unused_data
            if not self.gzip:
                return  # bytes after a deflate stream's end: ignored, as zlib.decompress does
            self.inflater, self.between = zlib.decompressobj(16 + zlib.MAX_WBITS), True

    def end(self) -> None:
        """CutShort unless the stream ended (a gzip answer of no bytes at all is empty)."""
        if self.gzip and self.between:
            return
        if self.inflater is None or not self.inflater.eof:
            raise CutShort(f"{self.coding} body cut short or corrupt (its stream does not end)")


class Decoder:
    """An answer's codings, undone from the last applied (RFC 9110: listed in the order they
    were applied); 'identity' or none is the body as sent."""

    def __init__(self, codings: str, where: str) -> None:
        names = [c.strip().lower() for c in codings.split(",") if c.strip()]
        unknown = [n for n in names if n not in (*GZIP, "deflate", "identity")]
        if unknown:
            # Never asked for (br, zstd, compress): refused, not kept still coded nor decoded
            # unbounded.
            raise SourceError(
                f"{where} answered in {', '.join(unknown)} coding, which chipcost does not ask "
                f"for (it asks for {ENCODINGS}): not read; report it"
            )
        self.steps = [Inflater(n) for n in reversed(names) if n != "identity"]

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of `data`, in pieces of at most STEP bytes."""
        yield from self._through(0, data)

    def end(self) -> None:
        """CutShort unless every coding's stream ended (each gave its output as it came)."""
        for step in self.steps:
            step.end()

    def _through(self, i: int, data: bytes) -> Iterator[bytes]:
        if i == len(self.steps):
            if data:
                yield data
            return
        for piece in self.steps[i].feed(data):
            yield from self._through(i + 1, piece)


def decoded(raw: bytes, coding: str) -> bytes:
    """The whole of `raw` without its codings; CutShort when a stream does not end."""
    decoder = Decoder(coding, "an answer")
    body = b"".join(decoder.feed(raw))
    decoder.end()
    return body
