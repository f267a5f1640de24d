"""Credentials never leak: a replay, a live fetch that really sends them, and a report, with
distinctive fake secrets set; then logs, captured output, Prefect artifacts and logs, every
warehouse table, every archived file (decompressed) and every report file are searched.

The secret names are found in the code (every *_API_KEY, *_TOKEN, *_PASSWORD, AWS key
variable), so a source added later with its own key is covered without editing this file.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from chipcost.extract import _http, runpod
from chipcost.extract.aws import pricing as aws_pricing
from tests.cli_runner import chipcost as run_chipcost
from tests.fault_server import fault_server, respond
from tests.paths import ROOT

pytestmark = pytest.mark.usefixtures("prefect_server")

CODE = ("extract", "reports", "flows", "chipcost", "transform", "warehouse")
SECRET_NAME = re.compile(
    r"\b[A-Z][A-Z0-9_]*(?:_API_KEY|_TOKEN|_PASSWORD|_SECRET_ACCESS_KEY|_ACCESS_KEY_ID)\b"
)
ALWAYS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
RUNPOD_BODY = (ROOT / "tests/fixtures/runpod/gpu-types.json").read_bytes()
# A keyed run reads the REST v2 catalog first, then the GraphQL answer.
RUNPOD_CATALOG = (ROOT / "tests/fixtures/runpod/catalog-gpus.json").read_bytes()
AWS_PAGE = json.loads(
    (ROOT / "tests/fixtures/aws-pricing-api/gpu-instance-page-1.json").read_text()
)
AWS_PAGE.pop("NextToken", None)


def secret_names() -> set[str]:
    names = set(ALWAYS)
    for folder in CODE:
        for path in (ROOT / folder).rglob("*.py"):
            names |= set(SECRET_NAME.findall(path.read_text(encoding="utf-8")))
    return names


@pytest.fixture
def secrets(monkeypatch) -> dict[str, str]:
    values = {
        name: f"leak{i:02d}x{name.lower().replace('_', '')}Q7"
        for i, name in enumerate(sorted(secret_names()))
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    # boto3's default session caches the credentials it first found: start a fresh one so
    # these variables are the ones used.
    import boto3

    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    monkeypatch.setenv("CHIPCOST_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("CHIPCOST_SMTP_USER", "chipcost")
    return values


def found_in(text: str, secrets: dict[str, str]) -> list[str]:
    return [name for name, value in secrets.items() if value in text]


def warehouse_text(db: Path) -> str:
    con = duckdb.connect(str(db), read_only=True)
    try:
        # What the file stores: its tables (a view only reads them again)
        tables = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
            ).fetchall()
        ]
        return "\n".join(str(con.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables)
    finally:
        con.close()


def files_text(folder: Path) -> str:
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        parts.append(
            (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", "replace")
        )
    return "\n".join(parts)


def prefect_text(since: datetime) -> str:
    """Every artifact and log line the server took from `since` on: this test's runs among
    them (and those of other workers meanwhile)."""
    from tests.shared_prefect import every_artifact, every_log

    return "\n".join(
        [
            *(str(a.data) + str(a.description) for a in every_artifact(since)),
            *(line.message for line in every_log(since)),
        ]
    )


@pytest.fixture
def live_servers(monkeypatch):
    """runpod and the AWS Price List answered by local servers that record what they got."""
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)
    page = json.dumps(AWS_PAGE).encode()
    with (
        fault_server(respond(200, RUNPOD_CATALOG), respond(200, RUNPOD_BODY)) as rp,
        fault_server(respond(200, page, {"Content-Type": "application/x-amz-json-1.1"})) as aws,
    ):
        import boto3

        monkeypatch.setattr(runpod, "REST_URL", f"{rp.url}{runpod.REST_PATH}")
        monkeypatch.setattr(runpod, "GRAPHQL_URL", f"{rp.url}/graphql")
        monkeypatch.setattr(
            aws_pricing,
            "pricing_client",
            lambda: boto3.client(
                "pricing",
                region_name="us-east-1",
                endpoint_url=aws.url,
                config=aws_pricing.client_config(),
            ),
        )
        monkeypatch.setattr(
            aws_pricing,
            "ec2_client",
            lambda region: boto3.client("ec2", region_name=region, endpoint_url=aws.url),
        )
        yield rp, aws


def test_no_secret_leaks_from_collection_or_report(
    tmp_path, secrets, live_servers, caplog, capfd, sample_runs
):
    # INFO: what a deployed run logs (library DEBUG logs, e.g. botocore's request dumps, are
    # off unless someone turns them on).
    from prefect.logging.configuration import setup_logging
    from prefect.settings import PREFECT_LOGGING_LEVEL, temporary_settings

    # Prefect sets its loggers' levels from its settings whenever it (re)applies its logging
    # configuration, flow runs included; the settings it holds may be those of an earlier
    # command in this worker (chipcost asks for CRITICAL). INFO for this test's whole run.
    with temporary_settings(updates={PREFECT_LOGGING_LEVEL: "INFO"}):
        setup_logging()  # Prefect configures logging on its first run: do it now, then listen
        caplog.set_level(logging.INFO)
        # Prefect's run loggers do not propagate to the root logger: listen to them directly.
        names = ("prefect", "prefect.flow_runs", "prefect.task_runs")
        loggers = [logging.getLogger(n) for n in names]
        for logger in loggers:
            logger.addHandler(caplog.handler)
        try:
            places = _run_everything(tmp_path, secrets, live_servers, caplog, capfd, sample_runs)
        finally:
            for logger in loggers:
                logger.removeHandler(caplog.handler)
    # what this test's own runs told the server is among what is searched
    assert str(tmp_path) in places["prefect"]
    for place, text in places.items():
        assert text, f"nothing to search in {place}: the test would prove nothing"
        assert not found_in(text, secrets), f"{place} holds {found_in(text, secrets)}"


def chipcost(*args: str) -> str:
    """Run a chipcost command with this environment (secrets included); its whole output."""
    from prefect.settings import PREFECT_API_URL

    env = {
        **os.environ,
        "PREFECT_API_URL": PREFECT_API_URL.value(),
        "PREFECT_LOGGING_LEVEL": "INFO",
    }
    done = run_chipcost(*args, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def _run_everything(tmp_path, secrets, live_servers, caplog, capfd, sample_runs) -> dict:
    from chipcost.flows.collect import collect
    from chipcost.flows.report import report

    db = tmp_path / "w.duckdb"
    started = datetime.now(UTC) - timedelta(seconds=1)
    # The replay as a user runs it: the command, its output captured, the secrets in its env.
    replayed = chipcost("collect", "--replay", str(sample_runs[0]), "--db", str(db))
    replayed_again = collect(replay=str(sample_runs[1]), db=str(db), data_dir=str(tmp_path))
    assert all(s.status == "ok" for o in replayed_again for s in o.run.sources)
    live = collect(db=str(db), data_dir=str(tmp_path), sources=["runpod", "aws-pricing-api"])
    assert {s.source: s.status for s in live[0].run.sources} == {
        "runpod": "ok",
        "aws-pricing-api": "ok",
    }

    # The secrets were really in play: the servers received them.
    rp, aws = live_servers
    assert secrets["RUNPOD_API_KEY"] in str(rp.requests)
    assert secrets["AWS_ACCESS_KEY_ID"] in str(aws.requests)
    assert secrets["AWS_SESSION_TOKEN"] in str(aws.requests)

    out_dir = tmp_path / "reports"
    report(
        db=str(db),
        data_dir=str(tmp_path),
        out=str(out_dir),
        dry_run=True,
        recipients=["ops@example.invalid"],
    )
    assert any(out_dir.rglob("*.html")), "the report wrote no HTML"
    reported = chipcost("report", "--dry-run", "--db", str(db), "--out", str(out_dir / "cli"))

    captured = capfd.readouterr()
    places = {
        "logs": "\n".join(f"{r.getMessage()} {r.args}" for r in caplog.records),
        "output": captured.out + captured.err + replayed + reported,
        "prefect": prefect_text(started),
        "warehouse": warehouse_text(db),
        "archive": files_text(tmp_path / "archive"),
        "reports": files_text(out_dir),
    }
    return places
