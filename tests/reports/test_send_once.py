"""E-mail once: a stable Message-ID, a deliveries record per recipient, and SMTP servers that
refuse, hang, drip and drop, each reported for what it is."""

from __future__ import annotations

import email
import email.policy
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from chipcost.core.errors import ChipcostError
from chipcost.reports import mail
from chipcost.reports.build import deliver
from chipcost.reports.mail import EmailError
from tests import smtp_server
from tests.holders import holding
from tests.permissions import without_override
from tests.refusals import refused
from tests.smtp_server import Inbox, Scripted

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
TO = ["finops@example.com", "Infra Team <infra@example.org>"]


@pytest.fixture(autouse=True)
def quick_smtp(monkeypatch):
    """Short limits so the hostile servers trip them in seconds (the logic is the same)."""
    for key in ("HOST", "PORT", "USER", "PASSWORD", "FROM", "TLS", "CA_FILE"):
        monkeypatch.delenv(f"CHIPCOST_SMTP_{key}", raising=False)
    monkeypatch.setattr(mail, "SMTP_TIMEOUT", 1)
    monkeypatch.setattr(mail, "SMTP_DEADLINE", 3)


@pytest.fixture(scope="module")
def made(golden_report):
    """The golden warehouse's report (tests/reports/conftest.py), made once."""
    return golden_report


@pytest.fixture
def report(made, tmp_path):
    shutil.copy(made.db_path, tmp_path / "w.duckdb")
    return replace(made, db_path=tmp_path / "w.duckdb")


def point_at(monkeypatch, port: int) -> None:
    values = {"HOST": "127.0.0.1", "PORT": str(port), "TLS": "none", "FROM": "r@example.com"}
    for key, value in values.items():
        monkeypatch.setenv(f"CHIPCOST_SMTP_{key}", value)


def deliveries(report) -> list[tuple]:
    con = duckdb.connect(str(report.db_path), read_only=True)
    try:
        return con.execute(
            "SELECT recipient, status, message_id FROM deliveries ORDER BY recipient"
        ).fetchall()
    finally:
        con.close()


def message_ids(box: Inbox) -> list[str]:
    parsed = [
        email.message_from_bytes(m.content, policy=email.policy.default) for m in box.messages
    ]
    return [m["Message-ID"] for m in parsed]


@pytest.fixture
def inbox(monkeypatch):
    box = Inbox()
    controller = smtp_server.start(box)
    point_at(monkeypatch, controller.port)
    yield box
    controller.stop()


def test_a_rerun_does_not_send_again_unless_forced(report, inbox):
    first = deliver(report, TO, dry_run=False)
    again = deliver(report, TO, dry_run=False)
    assert first.sent_to == TO and again.sent_to == []
    assert set(again.already) == {"finops@example.com", "infra@example.org"}
    assert all(when.startswith("sent 20") for when in again.already.values())
    assert len(inbox.messages) == 1
    forced = deliver(report, TO[:1], dry_run=False, force=True)
    assert forced.sent_to == TO[:1] and len(inbox.messages) == 2
    # The same report and period keep one Message-ID: a client shows the copies as one.
    first_id, second_id = message_ids(inbox)
    assert first_id == second_id == "<chipcost.report.2026-11-01_2026-11-07@example.com>"
    assert [(r, s) for r, s, _ in deliveries(report)] == [
        ("finops@example.com", "sent"),
        ("infra@example.org", "sent"),
    ]


def test_a_new_recipient_gets_it_and_the_others_do_not_again(report, inbox):
    deliver(report, TO[:1], dry_run=False)
    later = deliver(report, [*TO, "FINOPS@example.com"], dry_run=False)
    assert later.sent_to == TO[1:] and list(later.already) == ["finops@example.com"]
    assert [m.rcpt_tos for m in inbox.messages] == [["finops@example.com"], ["infra@example.org"]]


def test_only_this_run_s_recipients_are_said_not_sent_again(report, inbox):
    deliver(report, TO, dry_run=False)
    other = deliver(report, ["a@example.com"], dry_run=False)
    # on 8f824434: "not sent again to finops@example.com" and infra@, who were not asked for
    assert other.sent_to == ["a@example.com"] and other.already == {}
    one = deliver(report, ["Infra <INFRA@example.org>"], dry_run=False)
    assert one.sent_to == [] and list(one.already) == ["infra@example.org"]


def test_a_warehouse_that_cannot_record_the_delivery_stops_the_send(report, inbox):
    with holding(report.db_path, read_only=True), pytest.raises(ChipcostError) as said:
        deliver(report, TO, dry_run=False)
    # on 8f824434: the warehouse's own error alone, neither why it was opened nor the files
    message = str(said.value)
    assert "Nothing was sent: sending records each delivery in the warehouse" in message
    assert f"the report files are in {report.html_path.parent}" in message
    assert inbox.messages == []


@pytest.mark.parametrize("read_only", ["directory", "file"])
def test_a_warehouse_the_command_cannot_write_is_said_before_the_report_is_built(
    made, tmp_path, read_only
):
    """A process of its own that cannot write past the modes (tests/permissions.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHIPCOST_SMTP_")}
    env |= {"CHIPCOST_SMTP_HOST": "127.0.0.1", "CHIPCOST_SMTP_TLS": "none"}
    env |= {"CHIPCOST_SMTP_PORT": str(smtp_server.free_port()), "CHIPCOST_SMTP_FROM": "r@x.io"}
    (tmp_path / "warehouse").mkdir()
    db = Path(shutil.copy(made.db_path, tmp_path / "warehouse" / "w.duckdb"))
    out = tmp_path / "out"
    locked = db.parent if read_only == "directory" else db
    mode = locked.stat().st_mode
    locked.chmod(0o555 if read_only == "directory" else 0o444)

    def report_(*args: str) -> subprocess.CompletedProcess:
        command = [CHIPCOST, "report", "--db", str(db), "--out", str(out), *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300,
                              preexec_fn=without_override)  # fmt: skip

    try:
        done = report_("--email", "a@example.com")
        built = out.exists()
        dry = report_("--dry-run", "--email", "a@example.com")
    finally:
        locked.chmod(mode)
    # on 8f824434: the files written, then "cannot open ... as a DuckDB file: IO Error"
    what = "the warehouse's directory" if read_only == "directory" else "the warehouse"
    said = refused(done, f"cannot write to {what} {locked} (Permission denied)", code=1)
    assert "Sending records each delivery in the warehouse" in said and "--dry-run" in said
    assert not built
    assert dry.returncode == 0, dry.stderr  # a dry run records nothing: it needs no write
    assert {p.suffix for p in out.iterdir()} == {".html", ".csv", ".eml"}


def test_a_drop_after_the_whole_message_may_have_delivered_it(report, monkeypatch):
    with Scripted(smtp_server.drop_after_data) as server:
        point_at(monkeypatch, server.port)
        with pytest.raises(EmailError) as caught:
            deliver(report, TO, dry_run=False)
        message = str(caught.value)
        assert "closed the connection after receiving the whole message" in message
        assert "may have been delivered" in message and "--force" in message
        assert "check the port" not in message.lower()
        assert [s for _, s, _ in deliveries(report)] == ["uncertain", "uncertain"]
        # A re-run (by hand, or a retried flow) sends no second copy.
        again = deliver(report, TO, dry_run=False)
        assert again.sent_to == [] and all("uncertain" in w for w in again.already.values())
        assert len(server.messages) == 1


def test_silence_after_the_whole_message_is_a_timeout_that_may_have_delivered(report, monkeypatch):
    with Scripted(smtp_server.silent_after_data) as server:
        point_at(monkeypatch, server.port)
        with pytest.raises(EmailError, match="stopped answering after receiving the whole"):
            deliver(report, TO[:1], dry_run=False)
    assert [s for _, s, _ in deliveries(report)] == ["uncertain"]


def test_a_server_that_never_greets_timed_out(report, monkeypatch):
    with Scripted(smtp_server.hang) as server:
        point_at(monkeypatch, server.port)
        with pytest.raises(EmailError) as caught:
            deliver(report, TO[:1], dry_run=False)
    message = str(caught.value)
    assert "timed out: no answer within 1 s before its greeting" in message
    assert "closed" not in message and "nothing was sent" in message
    assert [s for _, s, _ in deliveries(report)] == ["failed"]


def test_a_dripping_greeting_meets_the_overall_deadline(report, monkeypatch):
    # A byte every 0.5 s never trips the 1 s read timeout; the 3 s deadline ends it.
    with Scripted(smtp_server.drip(0.5)) as server:
        point_at(monkeypatch, server.port)
        with pytest.raises(EmailError) as caught:
            deliver(report, TO[:1], dry_run=False)
    message = str(caught.value)
    assert "timed out: the exchange took longer than 3 s (stuck before its greeting)" in message


def test_a_refusing_server_is_a_refusal(report, monkeypatch):
    with Scripted(smtp_server.refuse) as server:
        point_at(monkeypatch, server.port)
        with pytest.raises(EmailError, match=r"refused the connection \(554 5.3.2 no service"):
            deliver(report, TO[:1], dry_run=False)
    # Nothing was delivered: the next run tries again.
    assert [s for _, s, _ in deliveries(report)] == ["failed"]


def test_a_failed_send_is_tried_again_next_time(report, monkeypatch):
    with Scripted(smtp_server.refuse) as server:
        point_at(monkeypatch, server.port)
        with pytest.raises(EmailError):
            deliver(report, TO[:1], dry_run=False)
    box = Inbox()
    controller = smtp_server.start(box)
    try:
        point_at(monkeypatch, controller.port)
        assert deliver(report, TO[:1], dry_run=False).sent_to == TO[:1]
    finally:
        controller.stop()
    assert len(box.messages) == 1


def test_a_send_that_died_midway_is_not_repeated(report, inbox):
    con = duckdb.connect(str(report.db_path))
    con.execute(
        "INSERT INTO deliveries VALUES (?, 'finops@example.com', 'report', 's', 'sending', "
        "now(), NULL)",
        ["<chipcost.report.2026-11-01_2026-11-07@example.com>"],
    )
    con.close()
    delivery = deliver(report, TO, dry_run=False)
    assert delivery.sent_to == TO[1:] and "sending" in delivery.already["finops@example.com"]


def test_a_dry_run_records_nothing_and_keeps_the_stable_id(report):
    delivery = deliver(report, TO, dry_run=True)
    message = email.message_from_bytes(delivery.eml_path.read_bytes(), policy=email.policy.default)
    assert message["Message-ID"] == "<chipcost.report.2026-11-01_2026-11-07@localhost>"
    assert deliveries(report) == []
