"""The weekly report flow on a real Prefect server: e-mail, artifact, failure, schedule."""

from __future__ import annotations

import email
import email.policy
import inspect
import logging
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml

from chipcost.flows.report import ReportFailed, report
from tests import smtp_server
from tests.conftest import ROOT, SAMPLE
from tests.shared_prefect import artifacts_of

pytestmark = pytest.mark.usefixtures("prefect_server")


@pytest.fixture(autouse=True)
def no_smtp_env(monkeypatch):
    for key in ("HOST", "PORT", "USER", "PASSWORD", "FROM", "TLS", "CA_FILE"):
        monkeypatch.delenv(f"CHIPCOST_SMTP_{key}", raising=False)


def test_flow_mails_the_report_once_and_publishes_a_summary(golden, tmp_path, monkeypatch):
    # Sent, then a retried run sends nothing again, then a forced run sends again: on a copy
    # of the module's warehouse, where the sending is recorded.
    db = tmp_path / "w.duckdb"
    shutil.copy(golden, db)
    box = smtp_server.Inbox()
    controller = smtp_server.start(box)
    for key, value in {"HOST": "127.0.0.1", "PORT": str(controller.port), "TLS": "none"}.items():
        monkeypatch.setenv(f"CHIPCOST_SMTP_{key}", value)
    monkeypatch.setenv("CHIPCOST_SMTP_FROM", "reports@example.com")
    try:
        states = [
            report(
                recipients=["finops@example.com"], db=str(db), out=str(tmp_path), return_state=True
            )
            for _ in range(2)
        ]
        forced = report(
            recipients=["finops@example.com"], db=str(db), out=str(tmp_path), force=True
        )
    finally:
        controller.stop()
    assert all(s.is_completed() for s in states), [s.message for s in states]
    outcome = states[0].result()
    assert outcome.delivery.sent_to == ["finops@example.com"]
    got = box.messages[0]
    message = email.message_from_bytes(got.content, policy=email.policy.default)
    assert message["Subject"] == "2 offers moved, H100-SXM on demand −7.5%: week of 2026-11-01"
    (artifact,) = [a for a in artifacts_of(states[0]) if a.key == "report-summary"]
    assert artifact.type == "markdown"
    assert (
        "2 offers moved in price (3 price changes in all): 1 down, 1 up. 1 new offer, 1 withdrawn."
        in artifact.data
    )
    assert "| −7.5% | H100-SXM | aws · us-east-1 · p5.48xlarge | on demand |" in artifact.data
    assert "sent to finops@example.com" in artifact.data
    assert states[1].result().delivery.sent_to == []
    (again,) = [a for a in artifacts_of(states[1]) if a.key == "report-summary"]
    assert "not sent again to finops@example.com (sent 20" in again.data
    assert forced.delivery.sent_to == ["finops@example.com"] and len(box.messages) == 2


def test_failed_send_fails_the_run_and_keeps_the_files(golden, tmp_path, monkeypatch):
    monkeypatch.setenv("CHIPCOST_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("CHIPCOST_SMTP_PORT", str(smtp_server.free_port()))
    monkeypatch.setenv("CHIPCOST_SMTP_TLS", "none")
    monkeypatch.setenv("CHIPCOST_SMTP_FROM", "reports@example.com")
    state = report(
        recipients=["a@example.com"], db=str(golden), out=str(tmp_path), return_state=True
    )
    assert state.is_failed()
    assert state.message.startswith("cannot reach the SMTP server 127.0.0.1:")
    failure = state.result(raise_on_failure=False)
    assert isinstance(failure, ReportFailed)
    assert failure.files and all(f.exists() for f in failure.files)
    (artifact,) = [a for a in artifacts_of(state) if a.key == "report-summary"]
    assert "**not sent**: cannot reach the SMTP server" in artifact.data


def test_smtp_settings_from_a_secret_block(golden, tmp_path):
    from prefect.blocks.system import Secret

    box = smtp_server.Inbox()
    controller = smtp_server.start(
        box, auth_require_tls=False, authenticator=smtp_server.check_login
    )
    settings = {
        "host": "127.0.0.1",
        "port": controller.port,
        "tls": "none",
        "user": smtp_server.USER,
        "password": smtp_server.PASSWORD,
    }
    Secret(value=settings).save("chipcost-smtp-test", overwrite=True)
    try:
        state = report(
            recipients=["x@example.com"],
            db=str(golden),
            out=str(tmp_path),
            smtp_block="chipcost-smtp-test",
            return_state=True,
        )
    finally:
        controller.stop()
    assert state.is_completed(), state.message
    assert [m.mail_from for m in box.messages] == [smtp_server.USER]


def test_missing_secret_block_is_a_plain_failure(golden, tmp_path):
    state = report(
        recipients=["x@example.com"],
        db=str(golden),
        out=str(tmp_path),
        smtp_block="no-such-block",
        return_state=True,
    )
    assert state.is_failed() and "no Secret block named 'no-such-block'" in state.message


def test_missing_warehouse_fails_plainly(tmp_path):
    state = report(db=str(tmp_path / "absent.duckdb"), out=str(tmp_path), return_state=True)
    assert state.is_failed() and "run `chipcost collect` first" in state.message


def test_weekly_deployment_is_declared():
    config = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    (weekly,) = [d for d in config["deployments"] if d["name"] == "report-weekly"]
    assert weekly["entrypoint"] == "flows/report.py:report"
    assert weekly["schedules"] == [{"cron": "0 7 * * 1", "timezone": "UTC"}]
    assert "recipients" in weekly["parameters"]
    assert set(weekly["parameters"]) <= set(inspect.signature(report.fn).parameters)


def test_sample_archive_end_to_end(tmp_path):
    from chipcost.flows.collect import collect

    db = tmp_path / "w.duckdb"
    # One source keeps the numbers golden while other sources join the sample archive.
    collect(replay=str(SAMPLE), db=str(db), data_dir=str(tmp_path), sources=["aws-pricing-api"])
    outcome = report(db=str(db), out=str(tmp_path / "reports"), dry_run=True)
    subject = "[sample data] 14 offers moved, A100-40GB on demand −8%: week of 2026-11-15"
    assert outcome.report.subject == subject
    message = email.message_from_bytes(
        outcome.delivery.eml_path.read_bytes(), policy=email.policy.default
    )
    assert message["Subject"] == subject
    page = outcome.report.html_path.read_text()
    assert "SAMPLE DATA" in page and "$2.7615" in page and "$2.5406" in page
    data = outcome.report.data
    assert (data.moves.height, data.events.new, data.events.withdrawn) == (14, 26, 13)
    # of those, the report holds the rows it shows: report_rows // 2 of each
    assert (data.new_shown.height, data.withdrawn_shown.height) == (8, 8)


@pytest.fixture
def two_sample_days(tmp_path) -> Path:
    """The sample runs of 2026-11-16 and -17: p4d.24xlarge in us-west-2 drops 8% on the 17th."""
    archive = tmp_path / "archive"
    for stamp in ("2026-11-16T060000Z", "2026-11-17T060000Z"):
        shutil.copytree(SAMPLE / stamp / "aws-pricing-api", archive / stamp / "aws-pricing-api")
    return archive


def test_daily_flow_sends_a_threshold_alert(two_sample_days, tmp_path, monkeypatch):
    from chipcost.flows.collect import collect

    box = smtp_server.Inbox()
    controller = smtp_server.start(box)
    for key, value in {"HOST": "127.0.0.1", "PORT": str(controller.port), "TLS": "none"}.items():
        monkeypatch.setenv(f"CHIPCOST_SMTP_{key}", value)
    monkeypatch.setenv("CHIPCOST_SMTP_FROM", "alerts@example.com")
    try:
        for pct in (9.0, 5.0):  # 9%: nothing that large, no mail; 5%: the 8% drop
            db = tmp_path / f"w{pct:g}.duckdb"
            state = collect(
                replay=str(two_sample_days),
                db=str(db),
                data_dir=str(tmp_path),
                sources=["aws-pricing-api"],
                alert_pct=pct,
                alert_to=["oncall@example.com"],
                return_state=True,
            )
            assert state.is_completed(), state.message
    finally:
        controller.stop()
    (got,) = box.messages
    message = email.message_from_bytes(got.content, policy=email.policy.default)
    subject = "[sample data] Price alert: 1 move of 5% or more, A100-40GB on demand −8%"
    assert message["Subject"] == subject and got.rcpt_tos == ["oncall@example.com"]
    body = message.get_body(("plain",)).get_content()
    assert "aws · us-west-2 · p4d.24xlarge · on demand: $2.7615 -> $2.5406 per chip-hour" in body


def test_an_alert_that_cannot_be_sent_fails_the_run_but_keeps_the_prices(
    two_sample_days, tmp_path, monkeypatch
):
    from chipcost.flows.collect import collect

    monkeypatch.setenv("CHIPCOST_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("CHIPCOST_SMTP_PORT", str(smtp_server.free_port()))
    monkeypatch.setenv("CHIPCOST_SMTP_TLS", "none")
    monkeypatch.setenv("CHIPCOST_SMTP_FROM", "alerts@example.com")
    db = tmp_path / "w.duckdb"
    state = collect(
        replay=str(two_sample_days),
        db=str(db),
        data_dir=str(tmp_path),
        sources=["aws-pricing-api"],
        alert_pct=5.0,
        alert_to=["oncall@example.com"],
        return_state=True,
    )
    assert state.is_failed()
    assert state.message.startswith("prices loaded, but the price alert was not sent: cannot reach")
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(2,)]
    finally:
        con.close()


def test_a_deployed_runs_expected_failure_is_logged_once_without_a_traceback(tmp_path):
    """A worker's process runs a deployment through Prefect's engine, which returns the run's
    result at its end: a Failed state's exception is raised there and logged to the flow runs'
    logger with its traceback ('Engine execution exited with unexpected exception'). A
    chipcost failure is said once, its one line, as the run's Failed message."""
    from prefect.flow_engine import run_flow

    logger = logging.getLogger("prefect.flow_runs")
    kept: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = kept.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        with pytest.raises(ReportFailed, match="absent.duckdb"):
            run_flow(
                report,
                parameters={"db": str(tmp_path / "absent.duckdb"), "out": str(tmp_path)},
                error_logger=logger,
            )
    finally:
        logger.removeHandler(handler)
    said = [r.getMessage() for r in kept]
    assert sum("absent.duckdb" in line for line in said) >= 1, said
    assert [r.getMessage() for r in kept if r.exc_info] == []
    assert not any("unexpected exception" in line for line in said)
