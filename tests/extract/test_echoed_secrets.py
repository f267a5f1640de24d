"""A provider that echoes the API key back (whole, or cut where a message is shortened), and
provider text full of control characters: what is stored, logged and printed stays clean;
the archive keeps the payload raw."""

from __future__ import annotations

import gzip
import json
import logging
from dataclasses import replace

import pytest

from chipcost.core.clean import REDACTED, printable, scrub
from chipcost.core.runs import FAILED, OK
from chipcost.core.settings import TRACEBACK_ENV, Settings, SourceSettings, secret_values
from chipcost.extract import registry, runpod
from chipcost.pipeline.collect import collect_source
from tests.fault_server import fault_server, respond
from tests.paths import ROOT

KEY = "rp_live_5ecretK3yThatMustNeverLeak0123456789"
RUNPOD_BODY = json.loads((ROOT / "tests/fixtures/runpod/gpu-types.json").read_text())
# A keyed run reads the REST v2 catalog first, then the GraphQL answer.
CATALOG = (ROOT / "tests/fixtures/runpod/catalog-gpus.json").read_bytes()


@pytest.fixture
def settings(tmp_path) -> Settings:
    sources = SourceSettings(runpod_api_key=KEY)
    return Settings(
        data_dir=tmp_path, db_path=tmp_path / "w.duckdb", sources=sources, secrets=(KEY,)
    )


def run_runpod(settings: Settings, server_url: str, monkeypatch):
    point_runpod_at(server_url, monkeypatch)
    return collect_source(registry()["runpod"], settings=settings, stamp="2026-11-16T060000Z")


def point_runpod_at(server_url: str, monkeypatch) -> None:
    monkeypatch.setattr(runpod, "REST_URL", f"{server_url}{runpod.REST_PATH}")
    monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{server_url}/graphql")


@pytest.mark.parametrize("padding", [0, 110, 125, 400])
def test_a_key_echoed_in_a_401_is_not_in_the_message(settings, monkeypatch, caplog, padding):
    # At 110 and 125 the key straddles the 160th character, where the body is cut.
    body = json.dumps({"error": "x" * padding + f" invalid api key {KEY}"}).encode()
    caplog.set_level(logging.DEBUG)
    with fault_server(respond(401, body)) as server:
        result = run_runpod(settings, server.url, monkeypatch)
    assert result.status == FAILED and "401" in result.message
    assert "RUNPOD_API_KEY" in result.message
    for text in (result.message, caplog.text):
        assert KEY not in text and KEY[:12] not in text, text


def test_a_key_in_an_unexpected_error_is_scrubbed_from_message_and_log(
    settings, monkeypatch, caplog
):
    def broken(payloads):
        raise ValueError(f"cannot read the page sent for key {KEY}")

    source = replace(registry()["runpod"], parse=broken)
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(TRACEBACK_ENV, "1")  # the traceback is logged only when asked for
    with fault_server(
        respond(200, CATALOG), respond(200, json.dumps(RUNPOD_BODY).encode())
    ) as server:
        point_runpod_at(server.url, monkeypatch)
        result = collect_source(source, settings=settings, stamp="2026-11-16T060000Z")
    assert result.status == FAILED and "unexpected ValueError" in result.message
    assert KEY not in result.message and REDACTED in result.message
    assert "cannot read the page" in caplog.text and KEY not in caplog.text


def test_control_characters_stay_in_the_archive_and_leave_the_display(settings, monkeypatch):
    hostile = "H100\x1b[2J\x00 80GB\u202eevil\n"
    body = json.loads(json.dumps(RUNPOD_BODY))
    body["data"]["gpuTypes"][0]["displayName"] = hostile
    raw = json.dumps(body).encode()
    with fault_server(respond(200, CATALOG), respond(200, raw)) as server:
        result = run_runpod(settings, server.url, monkeypatch)
    assert result.status == OK
    _, archived = sorted((settings.archive_dir).rglob("*.json.gz"))  # the catalog, then GraphQL
    assert gzip.decompress(archived.read_bytes()) == raw  # the archive keeps the bytes
    assert printable(hostile) == "H100[2J 80GBevil "


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text", "plain text"),
        ("a\x1b[31mred\x1b[0m", "a[31mred[0m"),
        ("nul\x00here", "nulhere"),
        ("rtl \u202egnp.exe", "rtl gnp.exe"),
        ("isolate \u2066x\u2069", "isolate x"),
        ("line\r\nbreak\ttab", "line  break tab"),
        ("c1 \x9b control", "c1  control"),
        ("accents é ü – fine", "accents é ü – fine"),
    ],
)
def test_printable(text, shown):
    assert printable(text) == shown


def test_scrub_replaces_the_longest_secret_first():
    assert scrub("k=abcdef123 and abcdef", ["abcdef", "abcdef123"]) == (
        f"k={REDACTED} and {REDACTED}"
    )
    assert scrub({"a": ["x abcdef"]}, ["abcdef"]) == {"a": [f"x {REDACTED}"]}
    assert scrub("nothing", []) == "nothing"


def test_secret_values_come_from_every_credential_variable():
    environ = {
        "RUNPOD_API_KEY": KEY,
        "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
        "CHIPCOST_SMTP_PASSWORD": "smtp-password",
        "SOME_TOKEN": "tok",  # too short to scrub without garbling every message
        "CHIPCOST_DB": "data/chipcost.duckdb",
    }
    assert set(secret_values(environ)) == {KEY, "aws-secret-value", "smtp-password"}
