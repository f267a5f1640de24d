"""Shared HTTP for web sources: one httpx client with timeouts, per-host limits and retries."""

from __future__ import annotations

import email.utils
import logging
import math
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from chipcost.core.clean import REDACTED, scrub
from chipcost.core.errors import SourceError
from chipcost.core.network import Network
from chipcost.core.payload import Payload
from chipcost.core.stopping import Deadline, pause, stopping
from chipcost.core.stopping import check as on_time
from chipcost.core.version import __version__
from chipcost.extract._kit import load_json, missing_key
from chipcost.extract.base import FetchContext

if TYPE_CHECKING:  # imported where a request is made: a replay only parses, never fetches
    import ssl

    import httpx

USER_AGENT = f"chipcost/{__version__} (+price collector)"
# Requests in flight per host, across every source and thread of one process: pricing pages
# are few, and a polite collector should never look like a burst.
PER_HOST = 2
# Retries on 429, 5xx and transport errors: bounded in count and in total waiting time so a
# 429 storm or a dead endpoint fails the source within minutes, not hours.
MAX_ATTEMPTS = 5
MAX_RETRY_SECONDS = 120.0
BACKOFF_BASE = 1.0
BACKOFF_CAP = 30.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# What a provider answers for an endpoint it has retired (RFC 9110: permanently gone).
GONE = 410
# Query parameters whose values are credentials: never archived, logged or put in messages.
SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token", "secret"})
# A price API answers in kilobytes to a few megabytes; a body past this is not a price list
# (AWS's price files, hundreds of megabytes, stream to disk through extract/aws/_files.py).
MAX_BODY_BYTES = 64 << 20
# One response, connect to last byte: a server sending a byte every few seconds never trips
# the per-read timeout, so the whole body has a deadline of its own.
BODY_DEADLINE_SECONDS = 120.0
# Redirects followed per request, each on the same host and never from https to http.
MAX_REDIRECTS = 5

Sleep = Callable[[float], None]


@cache
def default_timeout() -> httpx.Timeout:
    """Every phase bounded: a provider that accepts the connection and then stalls must not
    hang the daily run (Prefect's task timeouts cannot interrupt a blocking read)."""
    import httpx  # imported when a source fetches: a replay only parses

    return httpx.Timeout(connect=10.0, read=60.0, write=30.0, pool=30.0)


_host_lock = threading.Lock()
_host_slots: dict[str, threading.BoundedSemaphore] = {}


def _slot(host: str) -> threading.BoundedSemaphore:
    with _host_lock:
        return _host_slots.setdefault(host, threading.BoundedSemaphore(PER_HOST))


@dataclass
class HttpClient:
    """An httpx client for one provider, with the retry policy and the provider's name."""

    provider: str
    client: httpx.Client
    sleep: Sleep = pause
    clock: Callable[[], float] = time.monotonic
    max_attempts: int = MAX_ATTEMPTS
    max_retry_seconds: float = MAX_RETRY_SECONDS
    key_hint: str = ""  # the env var holding this provider's key, named in 401/403 advice
    waits: list[float] = field(default_factory=list)  # the backoff waits taken, for the summary
    # The key values of the settings: scrubbed from what is archived and from error messages,
    # whatever the parameter or field that carried them (or a provider echoing them back).
    secrets: tuple[str, ...] = field(default=(), repr=False)
    stop: threading.Event | None = None  # FetchContext.stop
    deadline: Deadline | None = None  # FetchContext.deadline: the whole fetch's budget
    network: Network | None = None  # FetchContext.network: what the run's requests met

    def stopped(self) -> bool:
        """The process was asked to stop (SIGTERM, Ctrl-C), or whoever runs the fetch was."""
        return stopping() or (self.stop is not None and self.stop.is_set())

    def left(self) -> float:
        """Seconds left before the fetch's deadline; infinity without one."""
        return self.deadline.left() if self.deadline is not None else math.inf

    def check(self, where: str) -> None:
        """SourceError when the run is stopping, the fetch's deadline has passed, or the
        network is down (no retry can succeed: said at once, not after every wait)."""
        on_time(where, self.deadline, self.stop)
        if self.network is not None and self.network.down():
            raise SourceError(
                f"{where}: not tried again, the network is unreachable ({self.network.said()})"
            )

    @contextmanager
    def reaching(self, host: str) -> Iterator[None]:
        """Around a request: a connection that fails (name lookup or connect) or an answer
        is noted for the run's Network."""
        import httpx  # imported when a source fetches: a replay only parses

        try:
            yield
        except httpx.ConnectError as exc:
            if self.network is not None:
                self.network.unreachable(host, _reason(exc))
            raise
        if self.network is not None:
            self.network.answered()

    def timeout(self) -> httpx.Timeout:
        """The request's timeouts, none past what is left of the deadline."""
        import httpx  # imported when a source fetches: a replay only parses

        left, default = self.left(), default_timeout()
        if left >= default.read:  # type: ignore[operator]
            return default
        s = max(left, 0.5)
        return httpx.Timeout(connect=min(10.0, s), read=s, write=min(30.0, s), pool=min(30.0, s))

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every source's client in this process: httpx otherwise builds one
    per client, loading the CA bundle each time (25 ms of CPU a source). Built as httpx
    builds it (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set)."""
    import httpx

    return httpx.create_ssl_context()


def http_client(
    provider: str,
    ctx: FetchContext | None = None,
    *,
    transport: httpx.BaseTransport | None = None,
    sleep: Sleep | None = None,
    key_hint: str = "",
    headers: Mapping[str, str] | None = None,
) -> HttpClient:
    """A client for one provider; tests inject a transport and sleep (or via the ctx fields)."""
    import httpx  # imported when a source fetches: a replay only parses

    if ctx is not None:
        transport = transport or ctx.transport
        sleep = sleep or ctx.sleep
    client = httpx.Client(
        transport=transport,
        verify=True if transport is not None else _tls(),
        timeout=default_timeout(),
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        follow_redirects=False,  # followed by _request: same host, never down to http
        limits=httpx.Limits(max_connections=PER_HOST * 4, max_keepalive_connections=PER_HOST),
    )
    secrets = ctx.settings.secrets() if ctx is not None else ()
    return HttpClient(
        provider,
        client,
        sleep=sleep or pause,
        key_hint=key_hint,
        secrets=secrets,
        stop=ctx.stop if ctx is not None else None,
        deadline=ctx.deadline if ctx is not None else None,
        network=ctx.network if ctx is not None else None,
    )


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
) -> Payload:
    """One request with retries; its body archived as it arrives and returned as a Payload.

    The archive records the method, the public URL, the parameters and any JSON body, never
    headers (they carry API keys), secret-named parameters nor the settings' key values.
    """
    response = send(client, url, params=params, headers=headers, method=method, json=json)
    request: dict[str, Any] = {"method": method}
    if params:
        request["params"] = redact(params)
    if json is not None:
        request["json"] = json
    final = str(response.request.url) if response.request is not None else url
    if final.split("?")[0] != url.split("?")[0]:
        request["final_url"] = public_url(final)  # where a redirect (same host) led
    return ctx.archive.write(
        response.content,
        scrub(public_url(url), client.secrets),
        ext=ext or extension(response),
        request=scrub(request, client.secrets),
    )


@dataclass(frozen=True)
class ApiKey:
    """How a source sends its API key: the variable holding it, the provider and the place in
    its console a user makes one (for the message when it is missing), and the header."""

    env: str
    named: str
    where: str
    header: str = "Authorization"
    scheme: str = "Bearer"  # "" sends the key bare
    accept_json: bool = False


def keyed_get(
    ctx: FetchContext, provider: str, urls: Mapping[str, str], api: ApiKey, key: str
) -> list[Payload]:
    """GET each of `urls` (progress label -> URL) in order with the key in its header, each
    archived as it arrives (the key never); no key: the source is skipped, saying where to
    make one."""
    if not key:
        raise missing_key(api.env, api.named, api.where)
    headers = {api.header: f"{api.scheme} {key}" if api.scheme else key}
    if api.accept_json:
        headers["Accept"] = "application/json"
    payloads = []
    with http_client(provider, ctx, key_hint=api.env) as client:
        for label, url in urls.items():
            payloads.append(get(ctx, client, url, headers=headers, ext="json"))
            ctx.progress(label)
    return payloads


def one_page(
    ctx: FetchContext, provider: str, url: str, *, label: str, ext: str = ""
) -> list[Payload]:
    """A listing one GET returns whole (a pricing page), archived as it arrives."""
    with http_client(provider, ctx) as client:
        page = get(ctx, client, url, ext=ext)
    ctx.progress(f"{label}, {len(page.data)} bytes")
    return [page]


def optional(
    ctx: FetchContext,
    client: HttpClient,
    url: str,
    *,
    ext: str,
    what: str,
    lost: str,
    log: logging.Logger,
) -> list[Payload]:
    """A payload the source can do without: [it], or [] with a warning saying what is `lost`
    this run (the rest of the source still loads)."""
    try:
        return [get(ctx, client, url, ext=ext)]
    except SourceError as exc:
        log.warning("%s (%s)", exc, lost)
        ctx.progress(f"{what} unavailable: {exc}")
        return []


def linked_pages(
    ctx: FetchContext,
    client: HttpClient,
    url: str,
    params: Mapping[str, Any],
    *,
    token: str,
    token_param: str = "",
    max_pages: int,
    label: str,
    where: str,
    too_many: str,
) -> list[Payload]:
    """Every page of a JSON listing whose body names the next page: `token` is the field that
    holds the next page's URL or, with `token_param`, a token sent back under that name.

    A chain that repeats itself or runs past `max_pages` fails the source (`too_many` says
    what to raise), so a looping API cannot keep a run fetching for ever.
    """
    pages = [get(ctx, client, url, params=params)]
    seen: set[str] = set()
    while True:
        body = load_json(pages[-1], client.provider)
        link = body.get(token) if isinstance(body, dict) else None
        ctx.progress(f"{label} page {len(pages)}")
        if not link:
            return pages
        if link in seen or len(pages) >= max_pages:
            raise SourceError(
                f"{client.provider}: {where} still had a {token} after {len(pages)} pages or "
                f"repeated one: the API is looping; run again later, or {too_many}"
            )
        seen.add(link)
        if token_param:
            params = {**params, token_param: link}
            pages.append(get(ctx, client, url, params=params))
        else:
            pages.append(get(ctx, client, link))


def send(
    client: HttpClient,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    json: Any = None,
) -> httpx.Response:
    """The final 2xx response, after retries on 429/5xx/transport errors; else SourceError."""
    try:
        return _send(client, url, params=params, headers=headers, method=method, json=json)
    except SourceError as exc:
        safe = scrub(str(exc), client.secrets)
        if safe == str(exc):
            raise
    # Raised outside the handler so the original, whose message holds a key, is not chained.
    raise SourceError(safe)


def _send(
    client: HttpClient,
    url: str,
    *,
    params: Mapping[str, Any] | None,
    headers: Mapping[str, str] | None,
    method: str,
    json: Any,
) -> httpx.Response:
    import httpx  # imported when a source fetches: a replay only parses

    where = f"{client.provider}: {method} {public_url(url)}"
    started = client.clock()
    for attempt in range(1, client.max_attempts + 1):
        client.check(where)
        try:
            with _slot(httpx.URL(url).host):
                response = _request(client, where, method, url, params, headers, json)
        except httpx.TimeoutException as exc:
            failure, wait = f"timed out ({type(exc).__name__})", backoff(attempt)
            advice = "the provider is slow or unreachable: check the network or proxy, run again"
        except CutShort as exc:
            failure, wait = f"sent an incomplete response ({exc})", backoff(attempt)
            advice = "the connection was cut mid-answer: nothing of it is loaded; run again"
        except httpx.TransportError as exc:
            failure, wait = f"could not connect ({type(exc).__name__}: {exc})", backoff(attempt)
            advice = "check the network, DNS or proxy, then run again"
        else:
            if response.is_success:
                return response
            failure = f"answered {status_text(response, client.secrets)}"
            advice = advice_for(client, response)
            if response.status_code == GONE:
                raise Gone(f"{where} {failure}: {advice}")
            if response.status_code not in RETRY_STATUSES:
                raise SourceError(f"{where} {failure}: {advice}")
            wait = retry_after(response) or backoff(attempt)
        elapsed = client.clock() - started
        over_budget = elapsed + wait > client.max_retry_seconds
        past_deadline = wait >= client.left()
        if attempt == client.max_attempts or over_budget or past_deadline:
            why = (
                f", as a further {wait:.0f} s wait would pass the retry budget"
                if over_budget
                else f", as a further {wait:.0f} s wait would pass the source's deadline"
                if past_deadline
                else ""
            )
            raise SourceError(
                f"{where} {failure}; gave up after {attempt} attempt(s) in {elapsed:.0f} s{why}: "
                f"{advice}"
            )
        client.waits.append(wait)
        client.sleep(wait)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def _request(
    client: HttpClient,
    where: str,
    method: str,
    url: str,
    params: Mapping[str, Any] | None,
    headers: Mapping[str, str] | None,
    json: Any,
) -> httpx.Response:
    """One request, its redirects followed on the same host and scheme, its body read whole
    and checked complete; a transport error or timeout is the caller's to retry."""
    request = client.client.build_request(
        method, url, params=params, headers=headers, json=json, timeout=client.timeout()
    )
    for _ in range(MAX_REDIRECTS + 1):
        response = complete(client, where, request)
        if not response.is_redirect:
            return response
        request = _redirected(where, request, response)
    raise SourceError(f"{where} redirected more than {MAX_REDIRECTS} times: report it")


def _redirected(where: str, request: httpx.Request, response: httpx.Response) -> httpx.Request:
    """The request a redirect asks for, when it stays on the host and on https."""
    import httpx  # imported when a source fetches: a replay only parses

    target = request.url.join(response.headers.get("Location", ""))
    if target.host != request.url.host or (request.url.scheme, target.scheme) == ("https", "http"):
        raise SourceError(
            f"{where} redirected to {public_url(str(target))}, off {request.url.host} or down to "
            "http: not followed, as a price list comes from its provider over https. If the "
            "provider moved, report it so the source's URL is changed"
        )
    method = "GET" if response.status_code == 303 else request.method
    body = None if method == "GET" and request.method != "GET" else request.content
    return httpx.Request(method, target, headers=request.headers, content=body)


def complete(client: HttpClient, where: str, request: httpx.Request) -> httpx.Response:
    """The response with its body read and checked: within the size cap and the deadlines
    (the body's own, the fetch's), stopped when the run is, as long as its Content-Length
    says, and a gzip stream that ends; else SourceError (or a transport error or CutShort to
    retry)."""
    import httpx  # imported when a source fetches: a replay only parses

    started = client.clock()
    with client.reaching(request.url.host):
        response = client.client.send(request, stream=True)
    try:
        length = response.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > MAX_BODY_BYTES:
            raise SourceError(
                f"{where} announced {int(length):,} bytes, more than {MAX_BODY_BYTES >> 20} MB: "
                f"{BIG}"
            )
        raw = bytearray()
        # The body as sent (still encoded), from a network stream or one held in memory alike.
        for chunk in response.stream:  # type: ignore[union-attr]
            raw += chunk
            if len(raw) > MAX_BODY_BYTES:
                raise SourceError(f"{where} sent more than {MAX_BODY_BYTES >> 20} MB: {BIG}")
            if client.clock() - started > BODY_DEADLINE_SECONDS:
                raise httpx.ReadTimeout(f"body not received within {BODY_DEADLINE_SECONDS:.0f} s")
            client.check(where)
    finally:
        response.close()
    return _whole(response, bytes(raw))


BIG = "not a price list; report it"


class Gone(SourceError):
    """An endpoint that answered 410 Gone: its provider retired it. A source with a successor
    endpoint catches it; for the others it fails the source like any refusal, in one line."""


class CutShort(Exception):
    """A response whose body did not arrive whole: retried, then named as such.

    Not an httpx.TransportError (httpx is imported only when a source fetches): every
    `except httpx.TransportError` around complete() names CutShort beside it."""


def _whole(response: httpx.Response, raw: bytes) -> httpx.Response:
    """The response rebuilt on its decoded body, once the body is known to be complete."""
    import httpx  # imported when a source fetches: a replay only parses

    length = response.headers.get("Content-Length", "")
    if length.isdigit() and int(length) != len(raw):
        raise CutShort(f"body cut short: {len(raw)} of {length} bytes")
    encoding = response.headers.get("Content-Encoding", "").strip().lower()
    body = _decoded(raw, encoding) if response.is_success else raw
    kind = response.headers.get("Content-Type", "").lower()
    if response.is_success and "html" in kind and not _ends_html(body):
        raise CutShort("HTML page cut short: it never closes </html>")
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-encoding"]
    return httpx.Response(
        response.status_code, headers=headers, content=body, request=response.request
    )


def _decoded(raw: bytes, encoding: str) -> bytes:
    """The body without its gzip or deflate coding; a stream that does not end is cut short."""
    if encoding not in ("gzip", "x-gzip", "deflate"):
        return raw
    inflater = zlib.decompressobj(31 if "gzip" in encoding else 15)
    try:
        body = inflater.decompress(raw) + inflater.flush()
    except zlib.error as exc:
        raise CutShort(f"{encoding} body is corrupt or cut short ({exc})") from exc
    if not inflater.eof:
        raise CutShort(f"{encoding} body cut short: its stream never ends")
    return body


def _ends_html(body: bytes) -> bool:
    """Whether an HTML document that opens as one also closes (a page cut mid-way does not)."""
    head = body[:512].lstrip().lower()
    if not head.startswith((b"<!doctype html", b"<html")):
        return True  # a fragment: nothing to compare
    return b"</html>" in body[-4096:].lower()


def _reason(exc: Exception) -> str:
    """'Temporary failure in name resolution' from '[Errno -3] Temporary failure in ...'."""
    text = str(exc).strip().splitlines()
    return re.sub(r"^\[Errno -?\d+\] ", "", text[0] if text else type(exc).__name__)[:120]


def backoff(attempt: int) -> float:
    """Exponential backoff without jitter: one collector per host, so no herd to spread."""
    return min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))


def retry_after(response: httpx.Response, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait (Retry-After as seconds or an HTTP date), if any."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def status_text(response: httpx.Response, secrets: Sequence[str] = ()) -> str:
    # Scrubbed before it is cut: a key straddling the cut would otherwise leave its start.
    body = scrub(response.text, secrets) if response.content else ""
    snippet = " ".join(body[:160].split())
    text = f"{response.status_code} {response.reason_phrase}".strip()
    return f"{text} ({snippet})" if snippet else text


def advice_for(client: HttpClient, response: httpx.Response) -> str:
    """What a user can do about one HTTP status."""
    code = response.status_code
    key = f" ({client.key_hint})" if client.key_hint else ""
    if code == 401:
        return f"check the API key{key}: it is missing, wrong or expired"
    if code == 403:
        return (
            f"access refused: check the API key{key} and its permissions; if the page is "
            "public, the provider may be blocking automated clients"
        )
    if code == GONE:
        return (
            "the provider has retired this endpoint: the prices already collected are kept; "
            "chipcost must read its successor (docs/sources.md names it): report it"
        )
    if code == 404:
        return "the endpoint moved or was removed: report a layout change for this provider"
    if code == 429:
        return "the provider kept rate-limiting us: run again later"
    if code >= 500:
        return "the provider's server kept failing: run again later"
    return "the provider refused the request: report it with the archived run"


def redact(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (REDACTED if k.lower() in SECRET_PARAMS else v) for k, v in params.items()}


def public_url(url: str) -> str:
    """The URL with any secret-named query parameter redacted (safe to archive and print)."""
    import httpx  # imported when a source fetches: a replay only parses

    parsed = httpx.URL(url)
    pairs = parsed.params.multi_items()
    if not any(key.lower() in SECRET_PARAMS for key, _ in pairs):
        return url  # untouched: re-encoding would change a provider's own next-page link
    safe = [(k, REDACTED if k.lower() in SECRET_PARAMS else v) for k, v in pairs]
    return str(parsed.copy_with(params=safe))


def extension(response: httpx.Response) -> str:
    """The archive file extension from the Content-Type: json, html, xml or txt."""
    kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    for name in ("json", "html", "xml"):
        if kind.endswith(name) or kind.endswith(f"+{name}"):
            return name
    return "txt"
