"""The user's endpoint as `chipcost measure` reads it: its URL without credentials, the
credentials as a header never shown, and what it serves (`GET /v1/models`, as vLLM, SGLang,
TensorRT-LLM and TGI answer it), asked first so that a refusal, a timeout, a redirect or a model
it does not serve is named in a second, not after AIPerf's start-up. Everything it sends is
input: the list is bounded in size and count and each name checked."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx

from chipcost.core.clean import masked, printable, scrub
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.names import shown
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.vocabulary import API_KEY_VARIABLE

# How long the endpoint may take to say what it serves; a server under load still lists its
# models in well under a second.
MODELS_TIMEOUT = 10.0
T = TypeVar("T")
# A model list is a few KB; a server's answer is read no further than this.
MAX_MODELS_BYTES = 1 << 20
# More models than one server lists: name the one to measure instead.
MAX_MODELS = 1_000
MAX_MODEL_NAME = 256


@dataclass(frozen=True)
class Endpoint:
    """The user's server: its root URL without credentials (what is shown, archived and given
    to AIPerf) and the Authorization header's value, which is never shown."""

    url: str
    authorization: str | None = field(default=None, repr=False)

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""


def endpoint_of(text: str, api_key: str | None = None) -> Endpoint:
    """The server's root (without a trailing /v1 or slash) and its credentials: a password
    in the URL (http://user:password@host) becomes HTTP Basic, an API key a Bearer token."""
    url = text.strip().rstrip("/")
    said = COMMAND_LINE.said("endpoint", shown(masked(text), 80))
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (read to check: a port past 65535 raises)
    except ValueError as exc:  # 'http://[::1', 'http://host:99999'
        raise UsageError(f"{said}: {exc}; give the server's URL, http://HOST:PORT") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{said}: give the server's URL, http://HOST:PORT")
    if not _host_name(parts.hostname):
        raise UsageError(
            f"{said}: {shown(parts.hostname)} is no host name; give the server's URL, http://HOST:PORT"
        )
    if parts.port == 0:  # no server listens on port 0: the system picks one for a client
        raise UsageError(f"{said}: port 0 is no server's; give the port it listens on")
    if parts.query or parts.fragment:  # requests go to the server's routes, without them
        bare = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))  # a key may be in it
        raise UsageError(
            f"{COMMAND_LINE.said('endpoint', shown(masked(bare), 80))} with a query or fragment "
            "(?... or #..., not shown): they would not reach the server: chipcost "
            "asks its OpenAI routes (/v1/models, /v1/chat/completions) alone; give "
            "http://HOST:PORT"
        )
    if "@" in parts.path:  # 'http://user:pa/ss@host': a raw '/' ended the host early
        raise UsageError(
            f"{said}: an '@' after the host; a password with '/', '@' or ':' in it is written "
            "percent-encoded (%2F, %40, %3A), or give the key in an environment variable "
            f"({COMMAND_LINE.name('api_key')})"
        )
    if api_key is not None and not _header_safe(api_key):
        raise UsageError(
            "the API key holds a character an HTTP header cannot carry (a space, a line break "
            "or a letter outside ASCII): export the key alone, as its provider gives it"
        )
    host = parts.netloc.rpartition("@")[2]
    path = parts.path
    for route in _ROUTES:  # the URL of a request, pasted from a client's settings
        path = path.removesuffix(route)
    clean = urlunsplit((parts.scheme, host, path, "", "")).removesuffix("/v1")
    basic = None
    if parts.username is not None or parts.password is not None:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        basic = "Basic " + base64.b64encode(pair.encode()).decode()
    if basic and api_key:
        raise UsageError(
            f"{COMMAND_LINE.said('endpoint', clean)}: give the credentials once, in the URL or "
            f"as {COMMAND_LINE.name('api_key')}"
        )
    return Endpoint(clean, basic or (f"Bearer {api_key}" if api_key else None))


# OpenAI's routes under a server's root: an endpoint given as one of them is its server.
_ROUTES = ("/chat/completions", "/completions", "/models")


def _header_safe(key: str) -> bool:
    """Whether a key can be sent as a Bearer token: visible ASCII only."""
    return all("!" <= c <= "~" for c in key)


def _host_name(host: str) -> bool:
    """Whether `host` can be looked up: printable, no space, labels of 1-63 characters once
    in IDNA ('exa mple.com', a 300-character label, a control character: no)."""
    if not host.isprintable() or any(c.isspace() for c in host):
        return False
    try:
        labels = host.encode("idna").split(b".")
    except UnicodeError:
        return False
    return ":" in host or all(0 < len(label) <= 63 for label in labels if label != b"")


# What the resolver says of a name it cannot find (glibc, macOS, a resolver that is down).
_NO_SUCH_HOST = (
    "Name or service not known",
    "nodename nor servname",
    "No address associated",
    "Temporary failure in name resolution",
)


def _hidden(endpoint: Endpoint, error: Exception) -> str:
    """An HTTP client's error as a message: passwords masked, the credentials sent removed."""
    said = masked(str(error))
    if endpoint.authorization:
        said = scrub(said, [endpoint.authorization, endpoint.authorization.partition(" ")[2]])
    return said


def _headers(endpoint: Endpoint) -> dict[str, str]:
    return {"Authorization": endpoint.authorization} if endpoint.authorization else {}


def served_models(endpoint: Endpoint, timeout: float) -> list[str] | None:
    """The models the endpoint lists; None when it has no model list (a 404 there)."""
    shown = endpoint.url
    wait = min(timeout, MODELS_TIMEOUT)

    def asked() -> tuple[httpx.Response, bytes]:
        with httpx.stream(
            "GET", f"{shown}/v1/models", headers=_headers(endpoint), timeout=wait
        ) as answer:
            if answer.is_redirect:
                raise _redirected(endpoint, answer.headers.get("location", ""))
            return answer, _bounded(answer, shown)

    try:
        answer, body = _whole_within(wait, asked)
    except httpx.ConnectError as exc:
        said = _hidden(endpoint, exc)
        if any(words in said for words in _NO_SUCH_HOST):
            raise ChipcostError(
                f"endpoint {shown}: no address for {endpoint.host} ({said}): nothing recorded; "
                "check the host name, or give the server's address"
            ) from None
        raise ChipcostError(
            f"endpoint {shown} refused the connection ({said}): nothing recorded; "
            "is the server running and listening there?"
        ) from None
    except httpx.TimeoutException:
        raise ChipcostError(
            f"endpoint {shown} timed out: no answer to GET /v1/models within {wait:g} s; "
            "nothing recorded"
        ) from None
    except httpx.HTTPError as exc:
        reason = _hidden(endpoint, exc)
        raise ChipcostError(f"endpoint {shown} failed: {reason}; nothing recorded") from None
    if answer.status_code == 404:
        return None
    return model_list(body, answer.status_code, shown)


def _whole_within(seconds: float, call: Callable[[], T]) -> T:
    """call() when it ends within `seconds`, else httpx's timeout: httpx bounds each read, so a
    server sending a byte a few seconds (its headers or its body) would keep it going for
    days. The call goes on in a daemon thread until its own timeouts end it; nothing waits
    for it."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as exc:  # handed to the caller as it is
            failed.append(exc)

    worker = threading.Thread(target=run, name="chipcost-endpoint-probe", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise httpx.TimeoutException(f"no whole answer within {seconds:g} s")
    if failed:
        raise failed[0]
    return done[0]


def _redirected(endpoint: Endpoint, location: str) -> ChipcostError:
    target = urlsplit(location).hostname or endpoint.host
    where = "another host" if target != endpoint.host else "another address"
    return ChipcostError(
        f"endpoint {endpoint.url} redirects to {where} ({printable(masked(location))[:120]}): "
        "chipcost measures only the server named, not where it sends requests; nothing "
        f"recorded. Give {COMMAND_LINE.name('endpoint')} the server's own URL"
    )


def _bounded(answer: httpx.Response, shown: str) -> bytes:
    """The answer's body, at most MAX_MODELS_BYTES of it."""
    body = bytearray()
    for chunk in answer.iter_bytes():
        body += chunk
        if len(body) > MAX_MODELS_BYTES:
            raise ChipcostError(
                f"endpoint {shown} answered GET /v1/models with more than "
                f"{MAX_MODELS_BYTES >> 10:,} KB: no server lists that many models; nothing "
                "recorded"
            )
    return bytes(body)


def model_list(body: bytes, status: int, shown: str) -> list[str]:
    """The model ids of an OpenAI model list, each a short printable name; the list bounded.
    An answer other than 200 is no list, whatever it holds: a server failing (5xx) or
    refusing the credentials (401, 403) says so."""
    if status in (401, 403):
        raise ChipcostError(
            f"endpoint {shown} refused the credentials (HTTP {status} to GET /v1/models): give "
            f"the server's key in {API_KEY_VARIABLE} (or the URL's user:password); nothing "
            "recorded"
        )
    if status != 200:
        raise ChipcostError(
            f"endpoint {shown} answered GET /v1/models with HTTP {status}"
            + (": the server is failing" if status >= 500 else "")
            + "; nothing recorded. Is it an OpenAI-compatible server, and up?"
        )
    try:
        listed = json.loads(body)["data"]
        names = [m["id"] for m in listed]
    except (ValueError, KeyError, TypeError, RecursionError):
        raise ChipcostError(
            f"endpoint {shown} answered GET /v1/models with HTTP {status} and no "
            "OpenAI model list: is it an OpenAI-compatible server?"
        ) from None
    if len(names) > MAX_MODELS:
        raise ChipcostError(
            f"endpoint {shown} lists {len(names):,} models, more than {MAX_MODELS:,}: name "
            f"the one to measure with {COMMAND_LINE.name('served_model')}"
        )
    bad = [n for n in names if not _model_name(n)]
    if bad:
        raise ChipcostError(
            f"endpoint {shown} lists a model name chipcost will not pass on "
            f"({printable(str(bad[0]))[:60]!r}): names are 1 to {MAX_MODEL_NAME} printable "
            "characters; nothing recorded"
        )
    return names


def _model_name(name: object) -> bool:
    return isinstance(name, str) and 0 < len(name) <= MAX_MODEL_NAME and printable(name) == name
