"""Shared HTTP for web sources: an httpx client retried by tenacity, and what is chipcost's
own: each body archived as it arrives, the fetch's deadline, body bounds (extract/_body.py),
secrets kept out of archives and messages, errors naming the URL and what to do."""

from __future__ import annotations

import email.utils
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from chipcost.core.clean import REDACTED, public_url, redact, scrub
from chipcost.core.errors import ChipcostError, SourceError
from chipcost.core.network import Network
from chipcost.core.payload import Payload
from chipcost.core.stopping import Deadline, pause
from chipcost.core.stopping import check as on_time
from chipcost.core.version import __version__
from chipcost.extract._body import (
    ENCODINGS,
    ERROR_BODY_BYTES,
    LONGER,
    Bounds,
    CutShort,
    Longer,
    Refused,
    digits,
    whole,
)
from chipcost.extract.base import FetchContext

if TYPE_CHECKING:  # imported where a request is made: a replay only parses, never fetches
    import ssl

    import httpx
    import tenacity

USER_AGENT = f"chipcost/{__version__} (+price collector)"
# Requests in flight per host, across every source and thread of a process: a polite collector.
PER_HOST = 2
# Retries on 429, 5xx and transport errors, bounded in count and in time so a 429 storm or a
# dead endpoint fails the source within minutes. tenacity runs them (docs/sources.md says
# why it, not stamina or httpx-retries): its sleep is ours, which a stop ends and tests
# record, and its stop sees the coming wait, so a Retry-After too long fails at once.
MAX_ATTEMPTS = 5
MAX_RETRY_SECONDS = 120.0
BACKOFF_BASE = 1.0  # doubling, without jitter: one collector per host, no herd to spread
BACKOFF_CAP = 30.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
GONE = 410  # what a provider answers for an endpoint it retired (RFC 9110: permanently gone)
# Redirects httpx follows per request, each to the same origin (scheme, host and port), or
# from http up to https on the same host (its default ports); never elsewhere or down to http.
MAX_REDIRECTS = 5
# The port a URL without one reaches: a same-origin check compares effective ports.
DEFAULT_PORTS = {"http": 80, "https": 443}
# What a user can do about a final answer ({key}: the variable holding the API key), or none.
ADVICE = {
    401: "check the API key{key}: it is missing, wrong or expired",
    403: "access refused: check the API key{key} and its permissions; if the page is public, "
    "the provider may be blocking automated clients",
    404: "the endpoint moved or was removed: report a layout change for this provider",
    GONE: "the provider has retired this endpoint: the prices already collected are kept; "
    "chipcost must read its successor (docs/sources.md names it): report it",
    429: "the provider kept rate-limiting us: run again later",
    500: "the provider's server kept failing: run again later",
    0: "the provider refused the request: report it with the archived run",
}
SLOW = "the provider is slow or unreachable: check the network or proxy, run again"
CUT = "the connection was cut mid-answer: nothing of it is loaded; run again"
UNREACHED = "check the network, DNS or proxy, then run again"
NOT_HTTP = (
    "the provider's server (or a proxy before it) sent a malformed answer: run again later; "
    "report it if it lasts"
)
# The kind of payload an answer refused is archived as (its request's "kind"), to look at what
# came: a parse never reads it, as its fetch failed (an unfinished fetch is never replayed).
REFUSED = "refused"
# The longest Retry-After taken as asked (longer is past every budget anyway): 400 digits are
# no float.
MAX_RETRY_AFTER = 10**15


@cache
def default_timeout() -> httpx.Timeout:
    """Every phase bounded: Prefect's task timeouts cannot interrupt a blocking read."""
    import httpx  # imported when a source fetches: a replay only parses

    return httpx.Timeout(connect=10.0, read=60.0, write=30.0, pool=30.0)


_host_lock = threading.Lock()
_host_slots: dict[str, threading.BoundedSemaphore] = {}


def _slot(host: str) -> threading.BoundedSemaphore:
    with _host_lock:
        return _host_slots.setdefault(host, threading.BoundedSemaphore(PER_HOST))


@dataclass
class HttpClient(AbstractContextManager["HttpClient"]):
    """An httpx client for one provider, with the retry policy and the provider's name."""

    provider: str
    client: httpx.Client
    sleep: Callable[[float], None] = pause
    clock: Callable[[], float] = time.monotonic
    key_hint: str = ""  # the env var holding this provider's key, named in 401/403 advice
    # The key values of the settings: scrubbed from what is archived and from error messages,
    # whatever the parameter or field that carried them (or a provider echoing them back).
    secrets: tuple[str, ...] = field(default=(), repr=False)
    stop: threading.Event | None = None  # FetchContext.stop
    deadline: Deadline | None = None  # FetchContext.deadline: the whole fetch's budget
    network: Network | None = None  # FetchContext.network: what the run's requests met
    bounds: Bounds = field(default_factory=Bounds)  # FetchContext.bounds: bytes it may take

    def left(self) -> float:
        """Seconds left before the fetch's deadline; infinity without one."""
        return self.deadline.left() if self.deadline is not None else math.inf

    def check(self, where: str) -> None:
        """SourceError when the run is stopping, the deadline has passed or the network is down."""
        on_time(where, self.deadline, self.stop)
        if self.network is not None:
            self.network.check(where)

    @contextmanager
    def reaching(self, host: str) -> Iterator[None]:
        """Around a request: a failed lookup or connect noted for the Network."""
        import httpx  # imported when a source fetches: a replay only parses

        try:
            yield
        except httpx.ConnectError as exc:
            if self.network is not None:
                self.network.unreachable(host, str(exc) or type(exc).__name__)
            raise

    def timeout(self) -> httpx.Timeout:
        """The request's timeouts, none past what is left of the deadline."""
        import httpx  # imported when a source fetches: a replay only parses

        s, default = max(self.left(), 0.5), default_timeout()
        if s >= default.read:  # type: ignore[operator]
            return default
        return httpx.Timeout(connect=min(10.0, s), read=s, write=min(30.0, s), pool=min(30.0, s))

    def close(self) -> None:
        self.client.close()

    def __exit__(self, *exc: object) -> None:
        self.close()


@cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every client of the process (25 ms of CPU each, built per client)."""
    import httpx

    return httpx.create_ssl_context()


def http_client(
    provider: str,
    ctx: FetchContext | None = None,
    *,
    transport: httpx.BaseTransport | None = None,
    sleep: Callable[[float], None] | None = None,
    key_hint: str = "",
    headers: Mapping[str, str] | None = None,
) -> HttpClient:
    """A client for one provider; tests inject a transport and sleep (or via the ctx fields)."""
    import httpx  # imported when a source fetches: a replay only parses

    if ctx is not None:
        transport, sleep = transport or ctx.transport, sleep or ctx.sleep
    network = ctx.network if ctx is not None else None
    # Any answer, a redirect refused too, proves the network is there (core/network.py).
    answered = [lambda response: network.answered()] if network is not None else []
    client = httpx.Client(
        transport=transport,
        verify=True if transport is not None else _tls(),
        timeout=default_timeout(),
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": ENCODINGS, **(headers or {})},
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        event_hooks={"response": [*answered, _on_host(provider)]},
        limits=httpx.Limits(max_connections=PER_HOST * 4, max_keepalive_connections=PER_HOST),
    )
    run: dict[str, Any] = {} if ctx is None else {"secrets": ctx.settings.secrets()}
    if ctx is not None:
        run.update(stop=ctx.stop, deadline=ctx.deadline, network=network, bounds=ctx.bounds)
    return HttpClient(provider, client, sleep=sleep or pause, key_hint=key_hint, **run)


def _on_host(provider: str) -> Callable[[httpx.Response], None]:
    """httpx's response hook: a redirect off the origin (another host, or another port of
    it: http://127.0.0.1:1/ was followed), or from https to http, is refused; one from http
    up to https on the same host is followed."""

    def check(response: httpx.Response) -> None:
        asked = response.request.url
        target = asked.join(response.headers.get("Location", ""))
        if response.has_redirect_location and not _same_origin(asked, target):
            raise SourceError(
                f"{provider}: {response.request.method} {public_url(str(asked))} redirected to "
                f"{public_url(str(target))}, off {_origin(asked)} (its host and port) or down "
                "to http: not followed, as prices come from their provider over https; if it "
                "moved, report it"
            )

    return check


def _origin(url: httpx.URL) -> str:
    return f"{url.scheme}://{url.host}:{_port(url)}"


def _port(url: httpx.URL) -> int | None:
    """The port `url` reaches: its own, else its scheme's default (httpx drops a default)."""
    return url.port if url.port is not None else DEFAULT_PORTS.get(url.scheme)


def _same_origin(asked: httpx.URL, target: httpx.URL) -> bool:
    """Whether a redirect stays on the provider: the same scheme, host and port, or the same
    host from http on its default port up to https on its own."""
    if target.host != asked.host:
        return False
    if target.scheme == asked.scheme:
        return _port(target) == _port(asked)
    upgrade = (asked.scheme, target.scheme) == ("http", "https")
    return upgrade and (_port(asked), _port(target)) == (80, 443)


def get(
    ctx: FetchContext,
    client: HttpClient,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    json: Any = None,
    ext: str = "",
    keep_refused: bool = True,
) -> Payload:
    """One request with retries, its body archived as it arrives: with the method, the public
    URL, the parameters and any JSON body; never headers (they carry API keys), secret-named
    parameters nor the settings' key values.

    An answer refused with a body (an error status's page, a body its Content-Encoding does
    not describe) is archived too, as a payload of kind REFUSED, and the error names it; a
    caller that goes on past the refusal passes `keep_refused=False`, since a finished
    fetch's payloads are all read by its parse."""
    request: dict[str, Any] = {"method": method}
    if params:
        request["params"] = redact(params)
    if json is not None:
        request["json"] = json
    refused: Refused | None = None
    try:
        response = send(client, url, params=params, headers=headers, method=method, json=json)
    except Refused as exc:
        if not keep_refused or not exc.body:
            raise
        refused = exc
    if refused is not None:  # raised outside the handler: nothing chained to it
        raise _archived(ctx, client, url, request, refused)
    final = str(response.request.url)
    if final.split("?")[0] != url.split("?")[0]:
        request["final_url"] = public_url(final)  # where a redirect (same host) led
    return ctx.archive.write(
        response.content,
        scrub(public_url(url), client.secrets),
        ext=ext or extension(response),
        request=scrub(request, client.secrets),
        charset=response.charset_encoding or "",  # a web page is read by it (_html_encoding)
    )


def _archived(
    ctx: FetchContext, client: HttpClient, url: str, request: dict[str, Any], refused: Refused
) -> SourceError:
    """The refusal, its body archived as a payload of kind REFUSED and named at its end (as
    aws-bulk names a file it refused)."""
    asked = {**request, "kind": REFUSED, "why": str(refused), **refused.said}
    try:
        kept = ctx.archive.write(
            refused.body,
            scrub(public_url(url), client.secrets),
            ext=_extension_of(refused.said.get("content_type", "")),
            request=scrub(asked, client.secrets),
        )
    except (ChipcostError, OSError) as failed:
        return SourceError(f"{refused} (it could not be archived: {failed})")
    return SourceError(f"{refused} ({refused.kept} archived as {kept.ref})")


def send(client: HttpClient, url: str, method: str = "GET", **sent: Any) -> httpx.Response:
    """The final 2xx response, after retries on 429/5xx/transport errors; else SourceError.
    `sent`: what httpx sends besides (params, headers, json)."""
    import httpx  # imported when a source fetches: a replay only parses
    import tenacity

    where, started = f"{client.provider}: {method} {public_url(url)}", client.clock()

    def give_up(state: tenacity.RetryCallState) -> None:
        met = state.outcome.exception() or state.outcome.result()  # type: ignore[union-attr]
        failure, advice = _failed(client, met)
        failure = (
            f"{where} {failure}; gave up after {state.attempt_number} attempt(s) in "
            f"{client.clock() - started:.0f} s{_no_wait(client, started, state.upcoming_sleep)}"
        )
        if isinstance(met, httpx.Response):
            raise _refused(client, met, f"{failure}: {advice}")
        raise SourceError(f"{failure}: {advice}")

    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type((httpx.TransportError, CutShort))
        | tenacity.retry_if_result(lambda response: response.status_code in RETRY_STATUSES),
        wait=_wait,
        stop=tenacity.stop_after_attempt(MAX_ATTEMPTS)
        | (lambda state: bool(_no_wait(client, started, state.upcoming_sleep))),
        sleep=client.sleep,
        before=lambda state: client.check(where),
        retry_error_callback=give_up,
    )
    request = client.client.build_request(method, url, **sent)
    try:
        response = retrying(complete, client, where, request)
        if response.is_success:
            return response
        failure, advice = _failed(client, response)
        if response.status_code == GONE:  # a source with a successor goes on: not archived
            raise Gone(f"{where} {failure}: {advice}")
        raise _refused(client, response, f"{where} {failure}: {advice}")
    except httpx.TooManyRedirects:
        said = f"{where} redirected more than {MAX_REDIRECTS} times: report it"
    except SourceError as exc:
        if (said := scrub(str(exc), client.secrets)) == str(exc):
            raise
        if isinstance(exc, Refused):  # a key echoed in the message: its body keeps it too
            body = _scrubbed(exc.body, client.secrets)
            raise Refused(said, body, exc.kept, **scrub(exc.said, client.secrets)) from None
    # Raised outside the handler so the original, whose message holds a key, is not chained.
    raise SourceError(scrub(said, client.secrets))


def complete(client: HttpClient, where: str, request: httpx.Request) -> httpx.Response:
    """One attempt: the response, its body read whole within its limits (extract/_body.py).

    Redirects are followed here, not by httpx, which reads and decodes a redirect's body whole
    before it follows it: a 302 may carry a gzip bomb. Its body is not read at all."""
    import httpx  # imported when a source fetches: a replay only parses

    request.extensions["timeout"] = client.timeout().as_dict()  # none past the deadline
    for _ in range(MAX_REDIRECTS + 1):
        started = client.clock()
        with _slot(request.url.host):
            with client.reaching(request.url.host):
                try:
                    response = client.client.send(request, stream=True, follow_redirects=False)
                except httpx.InvalidURL as exc:  # a redirect's Location that is no URL
                    raise SourceError(
                        f"{where} redirected to a Location that is no URL ({exc}): not "
                        "followed; if it lasts, report it"
                    ) from None
            if response.next_request is None:  # the redirect's target passed _on_host
                return whole(response, where, client.check, client.clock, started, client.bounds)
        response.close()
        request = response.next_request
    raise httpx.TooManyRedirects("Exceeded maximum allowed redirects.", request=request)


def _refused(client: HttpClient, response: httpx.Response, message: str) -> Refused:
    """A final answer that is not a success, with what was read of its body (its first
    ERROR_BODY_BYTES, decoded: extract/_body.py), every secret value taken out of it."""
    body, read = _scrubbed(response.content, client.secrets), len(response.content)
    kept = (
        f"its first {read:,} bytes, decoded, are"
        if read >= ERROR_BODY_BYTES
        else f"its body as read, {read:,} bytes decoded, is"
    )
    content_type = response.headers.get("Content-Type", "")
    return Refused(message, body, kept, status=response.status_code, content_type=content_type)


def _scrubbed(body: bytes, secrets: Sequence[str]) -> bytes:
    """`body` with each secret value (as UTF-8) replaced: a 401 echoing the key is archived
    without it."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            body = body.replace(secret.encode("utf-8"), REDACTED.encode("ascii"))
    return body


def backoff(attempt: int) -> float:
    return min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))


def _wait(state: tenacity.RetryCallState) -> float:
    """The wait the server asked for in its answer (Retry-After), else the backoff's."""
    answered = state.outcome is not None and not state.outcome.failed
    return (answered and retry_after(state.outcome.result())) or backoff(state.attempt_number)


def _no_wait(client: HttpClient, started: float, wait: float) -> str:
    """Why a further wait is not taken ('' when it may be)."""
    if client.clock() - started + wait > MAX_RETRY_SECONDS:
        return f", as a further {wait:.0f} s wait would pass the retry budget"
    if wait >= client.left():
        return f", as a further {wait:.0f} s wait would pass the source's deadline"
    return ""


def _failed(client: HttpClient, met: BaseException | httpx.Response) -> tuple[str, str]:
    """What an attempt met (an answer or a transport error), and what a user can do."""
    import httpx  # imported when a source fetches: a replay only parses

    if isinstance(met, httpx.Response):
        return f"answered {status_text(met, client.secrets)}", advice_for(client, met)
    if isinstance(met, httpx.TimeoutException):
        return f"timed out ({type(met).__name__})", SLOW
    if isinstance(met, Longer):  # no cut: more came than the answer said
        return f"sent more than it said ({met})", LONGER
    if isinstance(met, CutShort):
        return f"sent an incomplete response ({met})", CUT
    if isinstance(met, httpx.RemoteProtocolError):  # a status or header line HTTP forbids
        return f"answered in a form that is not HTTP ({met})", NOT_HTTP
    return f"could not connect ({type(met).__name__}: {met})", UNREACHED


class Gone(SourceError):
    """410 Gone: the provider retired the endpoint (a source with a successor catches it)."""


def retry_after(response: httpx.Response, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait (Retry-After as seconds or an HTTP date), if any."""
    value = response.headers.get("Retry-After", "").strip()
    if (seconds := digits(value)) is not None:
        return float(min(seconds, MAX_RETRY_AFTER))  # 400 digits are no float
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
    except (TypeError, ValueError):  # not a date, or one without its zone
        return None


def status_text(response: httpx.Response, secrets: Sequence[str] = ()) -> str:
    # Scrubbed before it is cut: a key straddling the cut would otherwise leave its start.
    body = scrub(response.text, secrets) if response.content else ""
    snippet = " ".join(body[:160].split())
    if snippet and not _text(snippet):  # a charset it is not in, or bytes that are no text
        snippet = f"{len(response.content):,} bytes that are not text"
    text = f"{response.status_code} {response.reason_phrase}".strip()
    return f"{text} ({snippet})" if snippet else text


def _text(snippet: str) -> bool:
    """Whether a body's start reads as text: at most one character in ten a control or an
    undecodable byte."""
    odd = sum(1 for c in snippet if c == "\ufffd" or (c < " " and c not in "\t\n\r"))
    return odd * 10 <= len(snippet)


def advice_for(client: HttpClient, response: httpx.Response) -> str:
    """What a user can do about one final HTTP status."""
    code = 500 if response.status_code >= 500 else response.status_code
    key = f" ({client.key_hint})" if client.key_hint else ""
    return ADVICE.get(code, ADVICE[0]).format(key=key)


def extension(response: httpx.Response) -> str:
    """The archive file extension from the Content-Type: json, html, xml or txt."""
    return _extension_of(response.headers.get("Content-Type", ""))


def _extension_of(content_type: str) -> str:
    kind = content_type.split(";")[0].strip().lower()
    return next((name for name in ("json", "html", "xml") if kind.endswith(name)), "txt")
