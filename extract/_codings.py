"""An answer's content codings undone as its bytes arrive, in steps of at most STEP bytes, so
what it inflates to is counted before it is held (199 KB of gzip inflated to 200 MB whole):
gzip and deflate with zlib, brotli with Google's bindings (`brotli`), zstd with the backport
of Python 3.14's compression.zstd (`backports.zstd`, the standard library's from 3.14), each
given an output bound per step."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from chipcost.core.errors import SourceError

# Bytes of output one step of a decoder gives at most: a chunk of 64 KB of gzip can hold
# 64 MB of zeros, never inflated in one call.
STEP = 1 << 16
# The codings chipcost asks for (Accept-Encoding) and undoes, read to their end (httpx's own
# decoder takes a gzip stream cut short for a whole one).
ENCODINGS = "gzip, deflate, br, zstd"
GZIP = ("gzip", "x-gzip")
# The most codings one answer may have applied one after another (a server applies one; a
# proxy may add a second): 1,500 nested gzip streams were taken for a payload nested too deep.
MAX_CODINGS = 4
# The most gzip members or zstd frames one answer may hold one after another: a server sends
# one (a few where it flushes); 60 MB of empty zstd frames cost 85 s of CPU, one decoder each.
MAX_FRAMES = 1_000
# A zstd frame's window is at most 8 MB in HTTP (RFC 9659): a frame asking more memory of the
# decoder is refused, not given it.
ZSTD_WINDOW_LOG_MAX = 23


class CutShort(Exception):
    """A response whose body did not arrive whole: retried, then named as such.

    Not an httpx.TransportError (httpx is imported only when a source fetches): every
    `except httpx.TransportError` around a read names CutShort beside it."""


class Corrupt(CutShort):
    """Bytes a coding's decoder refuses (plain JSON labelled gzip, zlib's wrapper labelled
    gzip): not a stream that stops short. extract/_body.py tells the two apart by whether the
    body arrived whole; read alone (`decoded`), it is refused as a CutShort is."""

    def __init__(self, coding: str, error: object) -> None:
        super().__init__(f"{coding} body cut short or corrupt ({error})")
        self.coding, self.error = coding, str(error)


class Inflater:
    """One gzip stream (its members one after another, as gzip.decompress reads them) or one
    deflate stream (zlib's wrapper, or the bare deflate some servers send, as httpx reads it)."""

    def __init__(self, coding: str, where: str = "an answer") -> None:
        self.coding, self.where, self.frames = coding, where, 0
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
                raise Corrupt(self.coding, exc) from None
            if not self.inflater.eof:
                return
            data = self.inflater.unused_data
            if not self.gzip:
                return  # bytes after a deflate stream's end: ignored, as zlib.decompress does
            self.frames = _one_more(self.frames, self.coding, self.where)
            self.inflater, self.between = zlib.decompressobj(16 + zlib.MAX_WBITS), True

    def end(self) -> None:
        """CutShort unless the stream ended (a gzip answer of no bytes at all is empty)."""
        if self.gzip and self.between:
            return
        if self.inflater is None or not self.inflater.eof:
            raise CutShort(f"{self.coding} body cut short or corrupt (its stream does not end)")


class Unbrotli:
    """One brotli stream ('br'), its output taken STEP bytes at a time."""

    def __init__(self, coding: str, where: str = "an answer") -> None:
        import brotli

        self.coding = coding
        self.error = brotli.error
        self.decompressor = brotli.Decompressor()
        self.begun = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not data:
            return
        self.begun = True
        try:
            out = self.decompressor.process(data, output_buffer_limit=STEP)
            # until a step gives nothing: the input is used up (or the stream ended)
            while out:
                yield out
                if self.decompressor.is_finished():
                    return
                out = self.decompressor.process(b"", output_buffer_limit=STEP)
        except self.error as exc:
            raise Corrupt(self.coding, exc) from None

    def end(self) -> None:
        if self.begun and not self.decompressor.is_finished():
            raise CutShort(f"{self.coding} body cut short or corrupt (its stream does not end)")


class Unzstd:
    """One zstd stream (its frames one after another), its output taken STEP bytes at a time,
    a frame's window bounded (ZSTD_WINDOW_LOG_MAX)."""

    def __init__(self, coding: str, where: str = "an answer") -> None:
        try:
            from compression import zstd  # type: ignore[import-not-found]  # Python 3.14
        except ImportError:
            from backports import zstd

        self.coding, self.where, self.frames = coding, where, 0
        self.zstd = zstd
        self.decompressor: zstd.ZstdDecompressor | None = None

    def _new(self) -> object:
        zstd = self.zstd
        return zstd.ZstdDecompressor(
            options={zstd.DecompressionParameter.window_log_max: ZSTD_WINDOW_LOG_MAX}
        )

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            while data:
                if self.decompressor is None:
                    self.decompressor = self._new()  # type: ignore[assignment]
                decompressor = self.decompressor
                assert decompressor is not None
                out = decompressor.decompress(data, max_length=STEP)
                data = b""
                while True:
                    if out:
                        yield out
                    if decompressor.eof or decompressor.needs_input:
                        break
                    out = decompressor.decompress(b"", max_length=STEP)
                if decompressor.eof:  # another frame may follow
                    self.frames = _one_more(self.frames, self.coding, self.where)
                    data, self.decompressor = decompressor.unused_data, None
        except self.zstd.ZstdError as exc:
            if "too much memory" in str(exc):
                raise SourceError(
                    f"{self.where} answered a zstd frame whose window passes "
                    f"{1 << ZSTD_WINDOW_LOG_MAX >> 20} MB, the bound for HTTP (RFC 9659): "
                    "not read; report it"
                ) from None
            raise Corrupt(self.coding, exc) from None

    def end(self) -> None:
        if self.decompressor is not None and not self.decompressor.eof:
            raise CutShort(f"{self.coding} body cut short or corrupt (its stream does not end)")


def _one_more(frames: int, coding: str, where: str) -> int:
    """`frames` + 1, or SourceError past MAX_FRAMES."""
    if frames + 1 > MAX_FRAMES:
        raise SourceError(
            f"{where} answered a {coding} body of more than {MAX_FRAMES:,} streams one after "
            "another, which no server sends: not read; report it"
        )
    return frames + 1


# Each coding's decoder, by the name an answer gives it.
_STEPS = {**dict.fromkeys(GZIP, Inflater), "deflate": Inflater, "br": Unbrotli, "zstd": Unzstd}


class Decoder:
    """An answer's codings, undone from the last applied (RFC 9110: listed in the order they
    were applied); 'identity' or none is the body as sent."""

    def __init__(self, codings: str, where: str) -> None:
        names = [c.strip().lower() for c in codings.split(",") if c.strip()]
        unknown = [n for n in names if n not in (*_STEPS, "identity")]
        if unknown:
            # Never asked for (compress, or a name no one registered): refused, not kept still
            # coded nor decoded unbounded.
            raise SourceError(
                f"{where} answered in {', '.join(unknown)} coding, which chipcost does not ask "
                f"for (it asks for {ENCODINGS}): not read; report it"
            )
        applied = [n for n in reversed(names) if n != "identity"]
        if len(applied) > MAX_CODINGS:
            raise SourceError(
                f"{where} answered in {len(applied):,} content codings one inside another, "
                f"more than any server applies (chipcost undoes at most {MAX_CODINGS}): not "
                "read; report it"
            )
        self.steps = [_STEPS[n](n, where) for n in applied]

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of `data`, in pieces of at most STEP bytes."""
        for start in range(0, len(data), STEP):  # a frame's rest is then copied 64 KB at most
            yield from self._through(0, data[start : start + STEP])

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
    decoder = Decoder(coding, "a payload")
    body = b"".join(decoder.feed(raw))
    decoder.end()
    return body
