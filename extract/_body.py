"""A streamed HTTP response read whole within its limits, or refused: its size as sent and as
decoded (one answer's, the source's and the run's, extract/_codings.py undoing the codings as
bytes arrive), its own deadline, the fetch's stop and deadline at every chunk, its
Content-Length, and the end of its coded stream and of its HTML page (a body cut
short must never load as a whole price list). Its headers are kept as the bytes they came in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chipcost.core.budget import ByteBudget, OverLimit
from chipcost.core.errors import SourceError
from chipcost.core.settings import ANSWER_MAX_ENV, DEFAULT_ANSWER_MAX_MB
from chipcost.extract._codings import ENCODINGS, Corrupt, CutShort, Decoder, decoded

if TYPE_CHECKING:  # imported where a request is made: a replay only parses, never fetches
    import httpx

__all__ = [
    "ENCODINGS",
    "LONGER",
    "Bounds",
    "CutShort",
    "Longer",
    "Refused",
    "decoded",
    "ends_html",
    "whole",
]

# One response, connect to last byte: a server sending a byte every few seconds never trips
# the per-read timeout, so the whole body has a deadline of its own.
BODY_DEADLINE_SECONDS = 120.0


class Refused(SourceError):
    """An answer refused that came with a body: an error status's page (a 403 "Just a
    moment..."), or a body that arrived whole but is not what its Content-Encoding says.
    `body` as it is kept (`kept` says how: "as received", its first bytes decoded), for
    extract/_http.py's get to archive as a payload of kind "refused" and name; `said`: what
    the manifest records of it besides."""

    def __init__(self, message: str, body: bytes, kept: str, **said: Any) -> None:
        super().__init__(message)
        self.body, self.kept, self.said = body, kept, said


# What to do about a body that arrived whole but that its Content-Encoding does not describe.
MISLABELLED = (
    "the provider's server labelled its answer wrong, which running again does not mend: "
    "report it if it lasts"
)


class Longer(CutShort):
    """A body that came longer than its Content-Length said: httpx reads a body to its length
    and drops the rest unseen, so its first bytes would load as the whole price list (a gzip
    one's were said as a body cut short). Retried and failed as a cut is, nothing of it
    archived (extract/_http.py), and said as what it is."""


# What to do about an answer longer than its Content-Length.
LONGER = (
    "the provider's server (or a proxy before it) sent a malformed answer: nothing of it is "
    "loaded; run again later (the source's next run retries it); report it if it lasts"
)


@dataclass(frozen=True)
class Bounds:
    """What a fetch's answers may come to, decoded: one answer (CHIPCOST_ANSWER_MAX_MB), and
    the budgets its answers share: the source's in this run and the run's."""

    answer: int = DEFAULT_ANSWER_MAX_MB << 20
    shared: tuple[ByteBudget, ...] = ()

    def one_answer(self) -> ByteBudget:
        return ByteBudget(self.answer, ANSWER_MAX_ENV, "the answer", "per answer")


def whole(
    response: httpx.Response,
    where: str,
    check: Callable[[str], None],
    clock: Callable[[], float],
    started: float,
    bounds: Bounds = Bounds(),
) -> httpx.Response:
    """`response` (streamed, sent at `started`) rebuilt on its whole, decoded body; `check`
    raises when the fetch must stop. OverLimit past a bound, httpx.ReadTimeout past the
    body's deadline, CutShort when it did not arrive whole (Longer when more came than its
    Content-Length said), Refused when it did but is not what its Content-Encoding says. A
    success's decoded bytes stay counted in the shared budgets; anything else's are given
    back."""
    import httpx  # imported when a source fetches: a replay only parses

    answer = bounds.one_answer()
    # An error's body is read for its message only (_error_body): counted in no budget.
    budgets = [answer, *bounds.shared] if response.is_success else [answer]
    try:
        body = _read(response, where, check, clock, started, answer, budgets)
        kind = response.headers.get("Content-Type", "").lower()
        whole_page = ends_html(body, response.charset_encoding)
        if response.is_success and "html" in kind and not whole_page:
            raise CutShort("HTML page cut short: it never closes </html>")
    except BaseException:
        for budget in budgets[1:]:
            budget.give(answer.used)  # not kept, so no longer held
        raise
    finally:
        response.close()
    # The headers as the bytes they came in: decoded and encoded again as ASCII, one byte
    # past 127 (X-Served-By: cache-caf\xe9) failed the source.
    headers = [(k, v) for k, v in response.headers.raw if k.lower() != b"content-encoding"]
    return httpx.Response(
        response.status_code, headers=headers, content=body, request=response.request
    )


def _read(
    response: httpx.Response,
    where: str,
    check: Callable[[str], None],
    clock: Callable[[], float],
    started: float,
    answer: ByteBudget,
    budgets: list[ByteBudget],
) -> bytes:
    """The body decoded as it arrives, each piece counted in `budgets` before it is held; a
    connection that fails once the answer began is CutShort, saying how much came; bytes past
    its Content-Length are Longer."""
    import httpx  # imported when a source fetches: a replay only parses

    length = digits(response.headers.get("Content-Length", ""))
    if length is not None and length > answer.limit:
        raise OverLimit(answer.passed(where, f"as announced ({length:,} bytes)"))
    coding = response.headers.get("Content-Encoding", "")
    if not response.is_success:
        return _error_body(response, coding, where, lambda: _on_time(clock, started, check, where))
    decoder, body, sent = Decoder(coding, where), bytearray(), 0
    # A coded body's bytes as sent, kept until it is decoded whole: one its coding refuses is
    # archived as it came (bounded as sent, by the answer's limit).
    raw: list[bytes] = []
    corrupt: Corrupt | None = None
    # The body as sent (still coded), from a network stream or one held in memory alike.
    try:
        for chunk in response.stream:  # type: ignore[union-attr]
            sent += len(chunk)
            if sent > answer.limit:  # codings that give little from much: bounded as sent too
                raise OverLimit(answer.passed(where, "as sent"))
            if decoder.steps:
                raw.append(chunk)
            if corrupt is None:
                try:
                    for piece in decoder.feed(chunk):
                        _take(budgets, len(piece), where)
                        body += piece
                except Corrupt as exc:
                    corrupt = exc  # the rest is read: cut short, or whole and labelled wrong
            _on_time(clock, started, check, where)
    except (httpx.RemoteProtocolError, httpx.NetworkError) as exc:
        # The answer began and its body did not end: the peer closed before its Content-Length
        # or its last chunk (httpx's RemoteProtocolError), or reset the connection mid-body
        # (ReadError). A cut, retried and said as one: it was "a form that is not HTTP" and
        # "could not connect", though the status and headers had come.
        raise _cut(response, sent, length, exc) from exc
    if length is not None and length != sent:  # a stream that ended without httpx's word
        raise _cut(response, sent, length)
    if length is not None and (past := _past_length(response)) is not None:
        raise _longer(response, length, *past)
    if corrupt is not None:
        raise _mislabelled(response, where, coding, corrupt, b"".join(raw))
    decoder.end()
    return bytes(body)


def _cut(
    response: httpx.Response, sent: int, length: int | None, exc: BaseException | None = None
) -> CutShort:
    """A body that did not arrive whole, in one wording however it was found: 'body cut
    short: 21,618 of 43,237 bytes came (the server closed the connection)', what ended it
    said where an error did."""
    ended = f" ({_said(exc)})" if exc is not None else ""
    return CutShort(f"body cut short: {_received(response, sent, length)}{ended}")


def _received(response: httpx.Response, sent: int, length: int | None) -> str:
    """How much of a body came before its connection failed, of how much where it is known."""
    if length is not None:
        return f"{sent:,} of {length:,} bytes came"
    if "chunked" in response.headers.get("Transfer-Encoding", "").lower():
        return f"{sent:,} bytes of a chunked body came, never its last chunk"
    return f"{sent:,} bytes came (no Content-Length said how many to expect)"


def _longer(response: httpx.Response, length: int, past: int, closed: bool) -> Longer:
    """A body that came with `past` bytes more than its Content-Length said: 'body longer than
    its Content-Length: 500 bytes said, at least 1,049 came' ('1,049 came' where the server
    had closed the connection after them, so no more came)."""
    # Its connection is not used again: the bytes past the answer, still held, would be read
    # as the next answer's status line, the retry's said as 'a form that is not HTTP'.
    network = response.extensions.get("network_stream")
    if network is not None:
        network.close()
    came = f"{length + past:,} came" if closed else f"at least {length + past:,} came"
    return Longer(f"body longer than its Content-Length: {length:,} bytes said, {came}")


def _past_length(response: httpx.Response) -> tuple[int, bool] | None:
    """How many bytes came past a body's Content-Length, and whether the server had closed
    the connection after them; None when none had. They are what the answer's HTTP/1.1
    connection (h11's, under httpcore) holds received past it; a transport without one (HTTP/2,
    a test's in memory) shows none, nor are bytes seen that reach the socket after its last
    read of the body."""
    stream: Any = response.stream
    # httpx's stream, its transport's, the connection pool's, the connection's own
    for _ in range(8):
        state = getattr(getattr(stream, "_connection", None), "_h11_state", None)
        held = getattr(state, "trailing_data", None)
        if held is not None:
            data, closed = held
            return (len(data), bool(closed)) if data else None
        stream = getattr(stream, "_stream", None) or getattr(stream, "_httpcore_stream", None)
        if stream is None:
            return None
    return None


def _said(exc: BaseException) -> str:
    """What ended a body: the server's close in words (h11's own repeats the counts said
    before it), else the error as httpx names it."""
    text = str(exc)
    if text.startswith("peer closed connection"):
        return "the server closed the connection"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _mislabelled(
    response: httpx.Response, where: str, coding: str, corrupt: Corrupt, raw: bytes
) -> Refused:
    """A body that arrived whole (its Content-Length met, its chunks ended) whose coding its
    decoder refuses: the provider's label, not a cut; not retried, kept as it came."""
    said = coding.strip()
    return Refused(
        f"{where} sent a body labelled Content-Encoding: {said} that is not {said} (its "
        f"{corrupt.coding} does not decode: {corrupt.error}); it arrived whole ({len(raw):,} "
        f"bytes), so it is no cut connection and is not retried; nothing of it is loaded: "
        f"{MISLABELLED}",
        raw,
        f"its {len(raw):,} bytes as received are",
        status=response.status_code,
        content_type=response.headers.get("Content-Type", ""),
        content_encoding=said,
    )


# What is read of an answer that is not a success: enough for its message, decoded (an API's
# error in gzip is quoted as its words, not its gzip bytes), the rest not read.
ERROR_BODY_BYTES = 16 << 10


def _error_body(
    response: httpx.Response, coding: str, where: str, on_time: Callable[[], None]
) -> bytes:
    """The first ERROR_BODY_BYTES of an error answer's body, decoded, of at most 64 times
    that as sent; what cannot be decoded (a coding never asked for, a stream cut short) or
    read (a connection closed or reset mid-body) ends it where it is, never the answer."""
    import httpx  # imported when a source fetches: a replay only parses

    from chipcost.core.errors import SourceError

    body, sent = bytearray(), 0
    try:
        decoder = Decoder(coding, where)
        for chunk in response.stream:  # type: ignore[union-attr]
            sent += len(chunk)
            for piece in decoder.feed(chunk):
                body += piece[: ERROR_BODY_BYTES - len(body)]
                if len(body) >= ERROR_BODY_BYTES:
                    return bytes(body)
            if sent > ERROR_BODY_BYTES << 6:  # a coding giving little from much
                break
            on_time()
    except (SourceError, CutShort, httpx.RemoteProtocolError, httpx.NetworkError):
        pass
    return bytes(body)


def _on_time(
    clock: Callable[[], float], started: float, check: Callable[[str], None], where: str
) -> None:
    """httpx.ReadTimeout past the body's deadline; `check` raises when the fetch must stop."""
    import httpx  # imported when a source fetches: a replay only parses

    if clock() - started > BODY_DEADLINE_SECONDS:
        raise httpx.ReadTimeout(f"body not received within {BODY_DEADLINE_SECONDS:.0f} s")
    check(where)


def _take(budgets: list[ByteBudget], size: int, where: str) -> None:
    """`size` bytes taken from every budget, or from none of them when one is passed."""
    for i, budget in enumerate(budgets):
        try:
            budget.take(size, where)
        except OverLimit:
            for earlier in budgets[:i]:
                earlier.give(size)
            raise


def digits(text: str) -> int | None:
    """A header's whole number, ASCII digits only (str.isdigit() takes '²', which int() does
    not), or None."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None


def ends_html(body: bytes, charset: str | None = None) -> bool:
    """Whether an HTML document that opens as one also closes (a page cut mid-way does not):
    one whose first 4 KB hold `<html` (behind a comment, an XML declaration, white space) must
    end with `</html>`. A page in UTF-16 (its byte order mark or its answer's charset says so)
    is read in it; any other, byte for byte."""
    codec = _utf16(body, charset)
    if codec:
        mark = 2 if body[:2] in (b"\xff\xfe", b"\xfe\xff") else 0
        head = body[mark : mark + 8192].decode(codec, "replace").lower()
        tail = body[-8192 - len(body) % 2 :].decode(codec, "replace").lower()
    else:
        head, tail = body[:4096].decode("latin-1").lower(), body[-4096:].decode("latin-1").lower()
    if "<html" not in head:
        return True  # a fragment: nothing to compare
    return "</html>" in tail


def _utf16(body: bytes, charset: str | None) -> str:
    """The UTF-16 codec a page is in, by its byte order mark or else its answer's charset
    (WHATWG's labels: utf-16 is little-endian); "" for any other."""
    if body[:2] == b"\xff\xfe":
        return "utf-16-le"
    if body[:2] == b"\xfe\xff":
        return "utf-16-be"
    label = (charset or "").strip().lower()
    return {"utf-16": "utf-16-le", "utf-16le": "utf-16-le", "utf-16be": "utf-16-be"}.get(label, "")
