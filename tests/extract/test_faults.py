"""Hostile networks, for real: a local server on 127.0.0.1 resets, stalls, throttles, fails,
and sends bad bodies to an HTTP source (runpod, through extract/_http.py) and to the AWS Price
List source (a real boto3 client pointed at the server with endpoint_url, or a Stubber).

Each case runs the source as the daily flow does (chipcost.collect.collect_source), loads it
with another source replayed from the sample archive (with every other source in one case),
into a warehouse that already holds the day before, and checks: a clear status, bounded
retries, the others loaded, and nothing loaded before changed.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import boto3
import botocore.config
import botocore.retries.standard
import httpx
import pytest
from botocore.stub import Stubber

from chipcost.archive import read_manifest
from chipcost.core.runs import FAILED, OK
from chipcost.core.settings import Settings
from chipcost.extract import _http, registry, runpod
from chipcost.extract.aws import pricing as aws_pricing
from chipcost.pipeline.collect import collect_source
from tests.fault_server import cut, fault_server, reset, respond, stall
from tests.fault_support import ROOT, contained, load_day, preloaded_warehouse

RUNPOD_BODY = (ROOT / "tests" / "fixtures" / "runpod" / "gpu-types.json").read_bytes()
AWS_PAGE = (
    ROOT / "tests" / "fixtures" / "aws-pricing-api" / "gpu-instance-page-1.json"
).read_bytes()
HTML = b"<!DOCTYPE html><html><body><h1>Service temporarily unavailable</h1></body></html>"
STAMP = "2026-11-16T060000Z"
# Short enough that a stall test takes a second, not the production minute.
TEST_TIMEOUT = 0.3


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return preloaded_warehouse(tmp_path_factory.mktemp("faults"))


@pytest.fixture
def settings(tmp_path, warehouse) -> Settings:
    db = tmp_path / "w.duckdb"
    shutil.copy(warehouse, db)
    return Settings(data_dir=tmp_path, db_path=db)


def run_source(name: str, settings: Settings):
    started = time.monotonic()
    result = collect_source(registry()[name], settings=settings, stamp=STAMP)
    return result, time.monotonic() - started


# --- an HTTP source through extract/_http.py ---------------------------------------------


@pytest.fixture
def http_server(monkeypatch):
    """Point runpod at a local fault server, with tiny backoffs and timeouts."""
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)
    monkeypatch.setattr(_http, "default_timeout", lambda: httpx.Timeout(TEST_TIMEOUT))

    def start(*script):
        context = fault_server(*script)
        server = context.__enter__()
        monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server.url}/graphql")
        started.append(context)
        return server

    started: list = []
    yield start
    for context in started:
        context.__exit__(None, None, None)


@pytest.mark.parametrize(
    ("answers", "words", "attempts"),
    [
        ([reset()], "could not connect", _http.MAX_ATTEMPTS),
        ([stall(3)], "timed out", _http.MAX_ATTEMPTS),
        ([respond(503, b"upstream down")], "503", _http.MAX_ATTEMPTS),
        ([respond(429, b"slow down", {"Retry-After": "0"})], "rate-limiting", _http.MAX_ATTEMPTS),
        ([respond(200, RUNPOD_BODY[: len(RUNPOD_BODY) // 2])], "not JSON", 1),
        ([respond(200, HTML, {"Content-Type": "text/html"})], "not JSON", 1),
        ([respond(401, b'{"error": "token expired"}')], "RUNPOD_API_KEY", 1),
    ],
    ids=["reset", "read-stall", "5xx-forever", "429-forever", "truncated-json", "html", "401"],
)
def test_http_source_fault_is_contained(http_server, settings, answers, words, attempts):
    server = http_server(*answers)
    result, seconds = run_source("runpod", settings)
    assert result.status == FAILED
    assert words in result.message and "runpod" in result.message
    assert len(server.requests) == attempts
    # Bounded in time: tiny backoffs and a 0.3 s read timeout, five attempts at most.
    assert seconds < 20
    contained(settings, result)


def test_http_429_retry_after_is_obeyed_then_loads(http_server, settings):
    server = http_server(respond(429, b"", {"Retry-After": "1"}), respond(200, RUNPOD_BODY))
    result, seconds = run_source("runpod", settings)
    assert result.status == OK, result.message
    assert len(server.requests) == 2 and seconds >= 1.0
    assert load_day(settings, result).status == OK


def test_http_500_then_success_loads(http_server, settings):
    server = http_server(respond(500, b"oops"), cut(RUNPOD_BODY, 100), respond(200, RUNPOD_BODY))
    result, _ = run_source("runpod", settings)
    assert result.status == OK, result.message
    assert len(server.requests) == 3  # 500, then a body cut mid-way, then the page
    assert result.records


def test_http_retry_after_past_the_budget_gives_up_at_once(http_server, settings, monkeypatch):
    monkeypatch.setattr(_http, "MAX_RETRY_SECONDS", 5.0)
    server = http_server(respond(429, b"", {"Retry-After": "3600"}))
    result, seconds = run_source("runpod", settings)
    assert result.status == FAILED and "retry budget" in result.message
    assert len(server.requests) == 1 and seconds < 5
    # Once for all the faults: the failed source beside every other source of the day.
    contained(settings, result, every_source=True)


# --- AWS: a real boto3 client against the local server -----------------------------------


@pytest.fixture
def aws_server(monkeypatch):
    """Point aws-pricing-api's client at a local server: production retries, short timeouts."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "AKIAFAULTTEST",
        "AWS_SECRET_ACCESS_KEY": "fault-test-secret",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # read these variables, not a cache
    # botocore's own retries, as configured, but without its jittered sleeps (up to 20 s each
    # in this botocore): the attempts are counted below, the waiting is botocore's business.
    monkeypatch.setattr(
        botocore.retries.standard.ExponentialBackoff, "delay_amount", lambda self, context: 0.01
    )
    config = aws_pricing.client_config().merge(
        botocore.config.Config(connect_timeout=TEST_TIMEOUT, read_timeout=TEST_TIMEOUT)
    )
    started: list = []

    def start(*script):
        context = fault_server(*script)
        server = context.__enter__()
        started.append(context)
        client = boto3.client(
            "pricing", region_name="us-east-1", endpoint_url=server.url, config=config
        )
        monkeypatch.setattr(aws_pricing, "pricing_client", lambda: client)
        return server

    yield start
    for context in started:
        context.__exit__(None, None, None)


# botocore's retries["max_attempts"] counts retries: one call plus that many more.
AWS_ATTEMPTS = aws_pricing.client_config().retries["max_attempts"] + 1


def aws_error(code: str, message: str, status: int = 400) -> object:
    body = json.dumps({"__type": code, "message": message}).encode()
    return respond(status, body, {"Content-Type": "application/x-amz-json-1.1"})


def aws_page(body: bytes, token: str | None = None) -> object:
    page = {key: value for key, value in json.loads(body).items() if key != "NextToken"}
    if token:
        page["NextToken"] = token
    return respond(200, json.dumps(page).encode(), {"Content-Type": "application/x-amz-json-1.1"})


@pytest.mark.parametrize(
    ("answers", "words", "attempts"),
    [
        ([reset()], "could not reach", AWS_ATTEMPTS),
        ([stall(3)], "could not reach", AWS_ATTEMPTS),
        ([aws_error("ExpiredTokenException", "The security token is expired")], "refresh", 1),
        ([aws_page(AWS_PAGE, token="same-token")], "already returned", 2),
        # A bad page fails the parse, after both instance-family queries: no retry.
        ([respond(200, AWS_PAGE[:2000])], "no PriceList", len(aws_pricing.INSTANCE_FAMILIES)),
        ([respond(200, HTML, {"Content-Type": "text/html"})], "no PriceList", 2),
    ],
    ids=["reset", "read-stall", "expired-token", "next-token-loop", "truncated-json", "html"],
)
def test_aws_fault_is_contained(aws_server, settings, answers, words, attempts):
    server = aws_server(*answers)
    result, seconds = run_source("aws-pricing-api", settings)
    assert result.status == FAILED
    assert words in result.message and "aws-pricing-api" in result.message
    assert len(server.requests) == attempts
    # Nine 0.3 s timeouts and no backoff sleeps: a hang would take far longer.
    assert seconds < 30
    contained(settings, result)


def test_aws_5xx_and_throttling_then_success_loads(aws_server, settings):
    server = aws_server(
        aws_error("InternalErrorException", "internal", status=500),
        aws_error("ThrottlingException", "Rate exceeded"),
        aws_page(AWS_PAGE),
        respond(200, b'{"FormatVersion": "aws_v1", "PriceList": []}'),
    )
    result, _ = run_source("aws-pricing-api", settings)
    assert result.status == OK, result.message
    assert len(server.requests) == 4  # 500, throttled, then one page per instance family
    assert load_day(settings, result).status == OK


def test_aws_next_token_that_never_ends_stops_at_max_pages(settings, monkeypatch):
    """A Stubber serving a fresh NextToken on every page: bounded by MAX_PAGES, not a hang."""
    monkeypatch.setattr(aws_pricing, "MAX_PAGES", 5)
    client = boto3.client(
        "pricing",
        region_name="us-east-1",
        aws_access_key_id="AKIAFAULTTEST",
        aws_secret_access_key="fault-test-secret",
    )
    stubber = Stubber(client)
    page = json.loads(AWS_PAGE)
    for n in range(5):
        stubber.add_response("get_products", {**page, "NextToken": f"token-{n}"})
    monkeypatch.setattr(aws_pricing, "pricing_client", lambda: client)
    with stubber:
        result, seconds = run_source("aws-pricing-api", settings)
    assert result.status == FAILED and "after 5 pages" in result.message
    assert seconds < 10
    # Nothing fetched is lost: the five pages are archived even though the source failed.
    assert len(read_manifest(settings.archive_dir / STAMP / "aws-pricing-api")["payloads"]) == 5
    stubber.assert_no_pending_responses()
    contained(settings, result)
