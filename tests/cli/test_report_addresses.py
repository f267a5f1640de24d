"""The report's e-mail addresses: $CHIPCOST_SMTP_FROM is checked as a recipient is; a domain
outside ASCII is sent in its IDNA form, a name before the @ outside ASCII refused. On a real
warehouse, the command line through the in-process runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import loaded_warehouse, record


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return loaded_warehouse(tmp_path_factory.mktemp("addresses") / "w.duckdb", [record()])


def test_the_sender_is_checked_as_a_recipient_is(warehouse, tmp_path, run):
    smtp = {"CHIPCOST_SMTP_HOST": "127.0.0.1", "CHIPCOST_SMTP_PORT": "9",
            "CHIPCOST_SMTP_TLS": "none", "CHIPCOST_SMTP_FROM": "notanaddr"}  # fmt: skip
    done = run("report", "--out", str(tmp_path / "r"), "--email", "a@example.com", "--db",
               str(warehouse), env=smtp)  # fmt: skip
    # on e2f7b55 the message went out From: notanaddr
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "CHIPCOST_SMTP_FROM='notanaddr' is not one e-mail address" in done.stderr


def test_an_address_outside_ascii_is_sent_as_smtp_carries_it(warehouse, tmp_path, run):
    out = tmp_path / "r"
    done = run("report", "--dry-run", "--out", str(out), "--email", "jo@exämple.com", "--db",
               str(warehouse))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (eml,) = out.glob("*.eml")
    # on e2f7b55: "To: jo@=?utf-8?q?ex=C3=A4mple?=.com", no address at all
    assert "To: jo@xn--exmple-cua.com" in eml.read_text(encoding="utf-8")
    refused_ = run("report", "--dry-run", "--out", str(out), "--email", "ü@example.com",
                   "--db", str(warehouse))  # fmt: skip
    assert refused_.returncode == 1 and "outside ASCII" in refused_.stderr
