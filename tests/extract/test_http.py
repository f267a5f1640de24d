"""The shared HTTP client (retries, Retry-After, errors, archiving) and the scrape helpers."""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from chipcost.archive import ArchiveWriter, read_manifest, read_payloads
from chipcost.core.errors import ParseError, SourceError
from chipcost.core.network import Network
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, Reject
from chipcost.core.settings import SourceSettings
from chipcost.extract import _http
from chipcost.extract._http import MAX_ATTEMPTS, USER_AGENT, get, http_client, retry_after
from chipcost.extract._kit import (
    PER_GPU,
    PER_INSTANCE,
    PriceError,
    parse_count,
    parse_price,
    require_columns,
    require_offers,
)
from chipcost.extract.base import FetchContext
from tests.helpers import record

URL = "https://api.example.test/v1/prices"
STAMP = "2026-11-14T060000Z"


class Script:
    """A fake server: answers requests from a list of responses (or exceptions) in order."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def ok(body: dict | None = None) -> httpx.Response:
    return httpx.Response(200, json=body or {"prices": [1]})


@pytest.fixture
def ctx(tmp_path) -> FetchContext:
    return FetchContext(archive=ArchiveWriter(tmp_path, STAMP, "demo"))


def client_for(script: Script, ctx: FetchContext, **kw) -> tuple[_http.HttpClient, list[float]]:
    """A client answered by `script`, and the retry waits it takes (recorded, not slept)."""
    waits: list[float] = []
    client = http_client("demo", ctx, transport=httpx.MockTransport(script), sleep=waits.append)
    for name, value in kw.items():
        setattr(client, name, value)
    return client, waits


def test_a_network_down_stops_the_retries_after_one_wait(ctx):
    """Two other hosts of the run failed to connect; this third one's failure makes the
    network down, so the source fails after its first wait instead of its whole budget."""
    network = Network()
    for host in ("a.example.test", "b.example.test"):
        network.unreachable(host, "Name or service not known")
    ctx.network = network
    script = Script(httpx.ConnectError("[Errno -2] Name or service not known"))
    client, waits = client_for(script, ctx)
    with pytest.raises(SourceError, match=r"not tried again, the network is unreachable \(3 hosts"):
        get(ctx, client, URL)
    assert len(script.requests) == 1 and waits == [1.0]
    assert network.down() and "Name or service not known" in network.said()


def test_a_redirect_refused_is_still_an_answer_for_the_network(ctx):
    """The host answered (with a redirect off it): the network is there, whatever others met."""
    network = Network()
    for host in ("a.example.test", "b.example.test"):
        network.unreachable(host, "Connection refused")
    ctx.network = network
    script = Script(httpx.Response(302, headers={"Location": "https://elsewhere.test/x"}))
    client, _ = client_for(script, ctx)
    with pytest.raises(SourceError, match="redirected to https://elsewhere.test/x"):
        get(ctx, client, URL)
    network.unreachable("c.example.test", "Connection refused")
    assert not network.down()  # three hosts failed, but one answered


def test_one_answer_keeps_the_network_up_and_the_retries_as_they_were(ctx):
    network = Network()
    network.answered()
    for host in ("a.example.test", "b.example.test", "c.example.test"):
        network.unreachable(host, "Connection refused")
    ctx.network = network
    script = Script(httpx.ConnectError("connection refused"), ok())
    client, _ = client_for(script, ctx)
    assert json.loads(get(ctx, client, URL).data) == {"prices": [1]}
    assert len(script.requests) == 2 and not network.down()


def test_429_with_retry_after_then_200_waits_as_told_and_archives_once(ctx, tmp_path):
    script = Script(httpx.Response(429, headers={"Retry-After": "7"}), ok({"prices": [2.49]}))
    client, waits = client_for(script, ctx)
    payload = get(ctx, client, URL, params={"currency": "USD"})
    assert json.loads(payload.data) == {"prices": [2.49]}
    assert waits == [7.0]
    assert len(script.requests) == 2
    [archived] = read_payloads(tmp_path / STAMP, "demo")
    assert archived.data == payload.data and archived.url == URL
    assert archived.request == {"method": "GET", "params": {"currency": "USD"}}
    assert payload.ref == f"{STAMP}/demo/0001.json.gz"


def test_500_then_200_backs_off_exponentially(ctx):
    script = Script(httpx.Response(500), httpx.Response(502), ok())
    client, waits = client_for(script, ctx)
    get(ctx, client, URL)
    assert waits == [1.0, 2.0]


def test_retry_after_http_date():
    now = datetime(2026, 11, 14, 6, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=42), usegmt=True)
    response = httpx.Response(503, headers={"Retry-After": later})
    assert retry_after(response, now) == pytest.approx(42.0)
    assert retry_after(httpx.Response(503, headers={"Retry-After": "soon"})) is None
    assert retry_after(httpx.Response(503)) is None


def test_timeout_becomes_source_error_naming_provider_and_url(ctx):
    script = Script(httpx.ReadTimeout("read timed out"))
    client, waits = client_for(script, ctx)
    with pytest.raises(SourceError) as caught:
        get(ctx, client, URL)
    message = str(caught.value)
    assert message.startswith(f"demo: GET {URL} timed out (ReadTimeout)")
    assert "check the network" in message
    assert len(script.requests) == MAX_ATTEMPTS
    assert waits == [1.0, 2.0, 4.0, 8.0]
    assert not ctx.archive.manifest["payloads"]


def test_connect_error_is_retried_then_succeeds(ctx):
    script = Script(httpx.ConnectError("connection refused"), ok())
    client, waits = client_for(script, ctx)
    get(ctx, client, URL)
    assert waits == [1.0]


def test_retries_are_bounded_in_count(ctx):
    script = Script(httpx.Response(503, text="upstream down"))
    client, _ = client_for(script, ctx)
    with pytest.raises(SourceError, match=r"503 Service Unavailable \(upstream down\); gave up"):
        get(ctx, client, URL)
    assert len(script.requests) == MAX_ATTEMPTS
    assert "run again later" in str(pytest.raises(SourceError, get, ctx, client, URL).value)


def test_retries_are_bounded_in_total_time(ctx):
    clock = {"now": 0.0}

    def sleep(seconds: float) -> None:
        clock["now"] += seconds

    script = Script(httpx.Response(429, headers={"Retry-After": "50"}))
    client, _ = client_for(script, ctx, sleep=sleep, clock=lambda: clock["now"])
    with pytest.raises(SourceError, match="429 Too Many Requests; gave up after 3 attempt"):
        get(ctx, client, URL)
    assert clock["now"] == 100.0  # a third 50 s wait would pass the 120 s budget


def test_a_retry_after_beyond_the_budget_fails_at_once(ctx):
    script = Script(httpx.Response(429, headers={"Retry-After": "3600"}))
    client, waits = client_for(script, ctx)
    with pytest.raises(SourceError, match="a further 3600 s wait would pass the retry budget"):
        get(ctx, client, URL)
    assert len(script.requests) == 1 and waits == []


@pytest.mark.parametrize(
    ("status", "advice"),
    [
        (401, "check the API key (DEMO_API_KEY)"),
        (403, "access refused: check the API key (DEMO_API_KEY)"),
        (404, "the endpoint moved or was removed: report a layout change"),
        # 410 Gone: the provider retired the endpoint (a Gone, a SourceError a source with a
        # successor endpoint catches); the prices collected before are kept
        (410, "the provider has retired this endpoint: the prices already collected are kept"),
        (400, "the provider refused the request"),
    ],
)
def test_client_errors_fail_at_once_with_advice(ctx, status, advice):
    script = Script(httpx.Response(status))
    client, _ = client_for(script, ctx, key_hint="DEMO_API_KEY")
    with pytest.raises(SourceError) as caught:
        get(ctx, client, URL)
    assert str(caught.value).startswith(f"demo: GET {URL} answered {status}")
    assert advice in str(caught.value)
    assert len(script.requests) == 1


def test_no_secret_reaches_the_archive(ctx, tmp_path):
    script = Script(ok())
    client, _ = client_for(script, ctx)
    query = {"query": "{ gpuTypes { id } }"}
    get(
        ctx,
        client,
        URL + "?api_key=s3cret-in-url",
        method="POST",
        params={"api_key": "s3cret-param", "q": "x"},
        headers={"Authorization": "Bearer s3cret-header"},
        json=query,
    )
    sent = script.requests[0]
    assert sent.headers["Authorization"] == "Bearer s3cret-header"
    assert "s3cret-param" in str(sent.url)
    manifest = read_manifest(tmp_path / STAMP / "demo")
    assert "s3cret" not in json.dumps(manifest)
    [entry] = manifest["payloads"]
    assert entry["request"] == {
        "method": "POST",
        "params": {"api_key": "<redacted>", "q": "x"},
        "json": query,
    }
    assert entry["url"] == URL + "?api_key=%3Credacted%3E"


def test_key_values_from_the_settings_are_scrubbed_wherever_they_appear(tmp_path):
    key = "sk-settings-key-4242"
    echoed = {"error": f"key {key} is not valid"}
    script = Script(ok(), httpx.Response(400, json=echoed))
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, STAMP, "demo"),
        settings=SourceSettings(runpod_api_key=key),
        transport=httpx.MockTransport(script),
        sleep=lambda seconds: None,
    )
    client = http_client("demo", ctx)
    # A key in a parameter or body field whose name says nothing of secrets.
    get(ctx, client, f"{URL}?auth={key}", params={"q": key}, method="POST", json={"k": [key]})
    assert key in str(script.requests[0].url)
    manifest = json.dumps(read_manifest(tmp_path / STAMP / "demo"))
    assert key not in manifest and manifest.count("<redacted>") == 3
    assert key not in repr(client) and key not in repr(ctx)
    # A provider echoing the key back in its error body.
    with pytest.raises(SourceError) as caught:
        get(ctx, client, URL)
    assert key not in str(caught.value) and "key <redacted> is not valid" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_user_agent_timeouts_and_extension(ctx):
    script = Script(
        httpx.Response(200, text="<html></html>", headers={"Content-Type": "text/html"})
    )
    client, _ = client_for(script, ctx)
    payload = get(ctx, client, URL)
    assert script.requests[0].headers["User-Agent"] == USER_AGENT
    assert USER_AGENT.startswith("chipcost/") and USER_AGENT.endswith("(+price collector)")
    # Only the codings extract/_body.py reads to their end, whatever decoders httpx has.
    assert script.requests[0].headers["Accept-Encoding"] == "gzip, deflate, br, zstd"
    timeout = client.client.timeout
    assert (timeout.connect, timeout.read, timeout.write, timeout.pool) == (10, 60, 30, 30)
    assert payload.name.endswith(".html.gz")


def test_a_redirect_from_https_down_to_http_on_the_same_host_is_refused(ctx):
    down = httpx.Response(301, headers={"Location": "http://api.example.test/v1/prices"})
    script = Script(down, ok())
    client, _ = client_for(script, ctx)
    with pytest.raises(
        SourceError, match=r"redirected to http://api\.example\.test/v1/prices.*not"
    ):
        get(ctx, client, URL)
    assert len(script.requests) == 1 and not ctx.archive.manifest["payloads"]


H, S = "http://api.example.test", "https://api.example.test"
ORIGINS = {
    # asked, Location, followed
    "another path": (f"{S}/v1/prices", "/v2/prices", True),
    "the default port said": (f"{S}/v1", "https://api.example.test:443/v2", True),
    "http up to https": (f"{H}/v1", f"{S}/v1", True),
    "another port": (f"{S}/v1", "https://api.example.test:8443/v1", False),
    "another port, asked on one": ("http://127.0.0.1:8080/v1", "http://127.0.0.1:1/v1", False),
    "up to https on another port": (f"{H}/v1", "https://api.example.test:8443/", False),
    "up to https from another port": ("http://api.example.test:8080/", f"{S}/", False),
    "down to http": (f"{S}/v1", f"{H}/v1", False),
}  # fmt: skip


@pytest.mark.parametrize(("asked", "location", "followed"), ORIGINS.values(), ids=ORIGINS)
def test_a_redirect_is_followed_on_its_origin_only(ctx, asked, location, followed):
    """Its scheme, host and port (an http URL's 80 and an https one's 443 when unsaid), or
    an upgrade from http to https on the same host: on fc78b66b another port of the host
    (http://127.0.0.1:1/) was followed, as only the host was compared."""
    script = Script(httpx.Response(302, headers={"Location": location}), ok())
    client, _ = client_for(script, ctx)
    if followed:
        assert get(ctx, client, asked).data == ok().content
        assert str(script.requests[-1].url) == str(httpx.URL(asked).join(location))
    else:
        with pytest.raises(SourceError, match="redirected to .*not followed"):
            get(ctx, client, asked)
        assert len(script.requests) == 1


def test_a_redirect_loop_stops_after_five_and_says_so(ctx):
    script = Script(httpx.Response(302, headers={"Location": "/v1/prices-elsewhere"}))
    client, _ = client_for(script, ctx)
    with pytest.raises(SourceError, match=f"demo: GET {URL} redirected more than 5 times"):
        get(ctx, client, URL)
    assert len(script.requests) == 1 + _http.MAX_REDIRECTS  # not retried


def test_requests_to_one_host_are_bounded(ctx):
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def slow(request: httpx.Request) -> httpx.Response:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.02)
        with lock:
            in_flight[0] -= 1
        return ok()

    client = http_client("demo", transport=httpx.MockTransport(slow))
    threads = [
        threading.Thread(target=_http.send, args=(client, f"https://slots.example.test/{i}"))
        for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak[0] == _http.PER_HOST


def test_transport_and_sleep_come_from_the_fetch_context(tmp_path):
    script = Script(httpx.Response(503), ok())
    waits: list[float] = []
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, STAMP, "demo"),
        transport=httpx.MockTransport(script),
        sleep=waits.append,
    )
    get(ctx, http_client("demo", ctx), URL)
    assert waits == [1.0]


@pytest.mark.parametrize(
    ("text", "price"),
    [
        ("$2.49/hr", 2.49),
        ("$2.49 / GPU / hr", 2.49),
        ("US$ 3.00 per GPU-hour", 3.0),
        ("2,49", 2.49),
        ("2,49 USD", 2.49),
        ("$1,234.50", 1234.5),
        ("1.234,50", 1234.5),
        ("1,234", 1234.0),
        ("0,499", 0.499),
        ("from $1.99/hr", 1.99),
        (" $0.52 ", 0.52),
        (2.49, 2.49),
        (3, 3.0),
        ("Contact sales", None),
        ("Contact Sales.", None),
        ("—", None),
        ("-", None),
        ("", None),
        ("N/A", None),
        ("Sold out", None),
        (None, None),
    ],
)
def test_parse_price(text, price):
    assert parse_price(text) == price


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("$2-3", "not one USD amount"),
        ("call us maybe", "not one USD amount"),
        ("$1,800/mo", "not one USD amount"),
        ("€2.49", "not one USD amount"),
        ("$0.00", "not a positive amount"),
        ("-1.50", "negative"),
        (0, "not a positive amount"),
    ],
)
def test_parse_price_refuses_what_is_not_a_price(text, why):
    with pytest.raises(PriceError, match=why):
        parse_price(text)


@pytest.mark.parametrize(
    ("text", "per", "price"),
    [
        ("$2.49 / GPU / hr", PER_GPU, 2.49),
        ("US$ 3.00 per GPU-hour", PER_GPU, 3.0),
        (
            "$18.00/GPU",
            PER_INSTANCE,
            "is per GPU, where this column is read as a price per instance",
        ),
        ("$18.00/hr per GPU", PER_INSTANCE, "is per GPU"),
        ("$50.44/node", PER_GPU, "is per instance, where this column is read as a price per GPU"),
        ("From $50.44", PER_INSTANCE, "is a lowest price ('From')"),
        ("as low as $2.10/GPU/hr", PER_GPU, "is a lowest price ('as low as')"),
        ("$50.44/hr", PER_INSTANCE, 50.44),
        # a cell stating the unit it is read in (on 0a37ffe0 refused as not one amount)
        ("$50.44/node", PER_INSTANCE, 50.44),
        ("$50.44 per instance", PER_INSTANCE, 50.44),
        ("$3.00/hr per server", PER_INSTANCE, 3.0),
        ("Contact sales", PER_INSTANCE, None),
    ],
)
def test_a_price_cell_saying_another_unit_than_its_column_is_refused(text, per, price):
    if isinstance(price, str):
        with pytest.raises(PriceError, match=re.escape(price)):
            parse_price(text, per)
    else:
        assert parse_price(text, per) == price


@pytest.mark.parametrize(("text", "count"), [("8", 8), (1, 1), (2.0, 2), ("4x", 4)])
def test_parse_count(text, count):
    assert parse_count(text) == count


@pytest.mark.parametrize("text", ["0", 0, "1/2", 0.5, "", None, "two"])
def test_parse_count_refuses_fractions_and_zero(text):
    with pytest.raises(ValueError, match="GPU count"):
        parse_count(text)


def page(data: bytes) -> Payload:
    return Payload(data, "https://example.test/pricing", datetime(2026, 11, 14, tzinfo=UTC), "p")


def test_require_offers_is_loud_on_a_non_empty_page_with_nothing_recognised():
    with pytest.raises(ParseError) as caught:
        require_offers([], page(b"<html><body>new layout</body></html>"), "lambda")
    assert str(caught.value).startswith(
        "lambda: parsed 0 offers from a non-empty page at https://example.test/pricing"
    )
    assert "layout probably changed" in str(caught.value)


def test_require_offers_accepts_offers_rejects_or_an_empty_page():
    # The same pages with nothing parsed from them are a layout change, refused; with an
    # offer or a row refused with a reason (or no content at all), they pass.
    for nothing in ([], ParseResult()):
        with pytest.raises(ParseError, match="parsed 0 offers from a non-empty page"):
            require_offers(nothing, page(b"{}"), "demo")
    assert require_offers([record()], page(b"{}"), "demo") is None
    refused = ParseResult(rejects=[Reject("demo", "Contact sales", {})])
    assert require_offers(refused, page(b"x"), "demo") is None
    assert require_offers([], page(b"  "), "demo") is None


def test_require_columns_names_what_is_missing():
    require_columns(["GPU", "Price"], ["gpu", "price"], page(b"x"), "demo")
    with pytest.raises(ParseError, match="lacks price .found gpu, vram.: the layout changed"):
        require_columns(["GPU", "VRAM"], ["gpu", "price"], page(b"x"), "demo")


def test_every_source_client_of_a_process_shares_one_tls_context():
    """httpx builds a TLS context per client, loading the CA bundle (25 ms of CPU each): the
    sources' clients share one, which still verifies certificates."""
    import ssl

    first, second = _http.http_client("runpod"), _http.http_client("vastai")
    try:
        contexts = [c.client._transport._pool._ssl_context for c in (first, second)]
    finally:
        first.close()
        second.close()
    assert contexts[0] is contexts[1]
    assert contexts[0].verify_mode == ssl.CERT_REQUIRED and contexts[0].check_hostname
