"""The report e-mail sent to real local SMTP servers: structure, size, TLS, login, failures."""

from __future__ import annotations

import email
import email.policy
import re
import shutil
from dataclasses import replace
from datetime import date

import pytest

from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.build import deliver, write_report
from chipcost.reports.mail import EmailError, build_message, check_recipients, smtp_settings
from chipcost.warehouse.load import load_run
from tests import smtp_server
from tests.helpers import day, record, run_of
from tests.smtp_server import PASSWORD, USER, Inbox

RECIPIENTS = ["finops@example.com", "Infra Team <infra@example.org>"]


@pytest.fixture(autouse=True)
def no_smtp_env(monkeypatch):
    for key in ("HOST", "PORT", "USER", "PASSWORD", "FROM", "TLS", "CA_FILE"):
        monkeypatch.delenv(f"CHIPCOST_SMTP_{key}", raising=False)


@pytest.fixture(scope="module")
def made(golden_report):
    """The golden warehouse's report (tests/reports/conftest.py), made once."""
    return golden_report


@pytest.fixture
def report(made, tmp_path):
    """The report with a warehouse of its own: what one test sent is not "already sent"."""
    shutil.copy(made.db_path, tmp_path / "w.duckdb")
    return replace(made, db_path=tmp_path / "w.duckdb")


@pytest.fixture
def inbox():
    box = Inbox()
    controller = smtp_server.start(box)
    yield box, controller.port
    controller.stop()


def smtp_env(monkeypatch, port: int, **extra: str) -> None:
    values = {"HOST": "127.0.0.1", "PORT": str(port), "TLS": "none", "FROM": USER, **extra}
    for key, value in values.items():
        monkeypatch.setenv(f"CHIPCOST_SMTP_{key}", value)


def parsed(content: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(content, policy=email.policy.default)


def test_sent_message_has_the_right_structure(report, inbox, monkeypatch):
    box, port = inbox
    smtp_env(monkeypatch, port)
    delivery = deliver(report, RECIPIENTS, dry_run=False)
    assert delivery.sent_to == RECIPIENTS
    (got,) = box.messages
    assert got.mail_from == USER
    assert got.rcpt_tos == ["finops@example.com", "infra@example.org"]
    message = parsed(got.content)
    assert message["Subject"] == "2 offers moved, H100-SXM on demand −7.5%: week of 2026-11-01"
    assert message["To"] == "finops@example.com, Infra Team <infra@example.org>"
    assert message.get_content_type() == "multipart/mixed"
    alternative, *attachments = message.iter_parts()
    assert alternative.get_content_type() == "multipart/alternative"
    text, html = alternative.iter_parts()
    assert (text.get_content_type(), html.get_content_type()) == ("text/plain", "text/html")
    assert [(a.get_content_type(), a.get_filename()) for a in attachments] == [
        ("text/html", "chipcost-report_2026-11-01_2026-11-07.html"),
        ("text/csv", "chipcost-changes_2026-11-01_2026-11-07.csv"),
    ]
    assert all(a.get_content_disposition() == "attachment" for a in attachments)
    body = html.get_content()
    assert len(body.encode()) < 100_000
    assert "<style" not in body and 'style="' in body  # CSS inlined for mail clients
    assert "<svg" not in body  # sparklines stay in the attached report
    assert "H100-SXM" in body and "−7.5%" in body
    assert "−7.5%" in text.get_content() and "$10.0000 -> $9.2500" in text.get_content()
    assert attachments[1].get_content().startswith("changed_at,change,chip,")


def test_starttls_and_login(report, tmp_path, monkeypatch):
    cert, key = smtp_server.self_signed(tmp_path)
    box = Inbox()
    controller = smtp_server.start(
        box,
        tls_context=smtp_server.server_context(cert, key),
        require_starttls=True,
        auth_required=True,
        authenticator=smtp_server.check_login,
    )
    try:
        smtp_env(
            monkeypatch,
            controller.port,
            HOST="localhost",
            TLS="starttls",
            USER=USER,
            PASSWORD=PASSWORD,
            CA_FILE=str(cert),
        )
        deliver(report, RECIPIENTS[:1], dry_run=False)
    finally:
        controller.stop()
    assert [m.rcpt_tos for m in box.messages] == [["finops@example.com"]]


def test_implicit_ssl(report, tmp_path, monkeypatch):
    cert, key = smtp_server.self_signed(tmp_path)
    box = Inbox()
    controller = smtp_server.start(box, ssl_context=smtp_server.server_context(cert, key))
    try:
        smtp_env(monkeypatch, controller.port, HOST="localhost", TLS="ssl", CA_FILE=str(cert))
        deliver(report, RECIPIENTS[:1], dry_run=False)
    finally:
        controller.stop()
    assert len(box.messages) == 1


def test_untrusted_certificate_is_a_clear_error(report, tmp_path, monkeypatch):
    cert, key = smtp_server.self_signed(tmp_path)
    controller = smtp_server.start(Inbox(), tls_context=smtp_server.server_context(cert, key))
    try:
        smtp_env(monkeypatch, controller.port, HOST="localhost", TLS="starttls")
        with pytest.raises(EmailError, match="TLS with the SMTP server .* failed.*CA_FILE"):
            deliver(report, RECIPIENTS[:1], dry_run=False)
    finally:
        controller.stop()


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_refused_login_says_what_to_check_and_hides_the_password(report, monkeypatch):
    box = Inbox()
    controller = smtp_server.start(
        box,
        auth_required=True,
        auth_require_tls=False,
        authenticator=smtp_server.check_login,
    )
    try:
        smtp_env(monkeypatch, controller.port, USER=USER, PASSWORD="wrong-s3cret")
        with pytest.raises(EmailError) as caught:
            deliver(report, RECIPIENTS, dry_run=False)
    finally:
        controller.stop()
    message = str(caught.value)
    assert "refused the login of 'reports@example.com'" in message
    assert "CHIPCOST_SMTP_PASSWORD" in message and "wrong-s3cret" not in message
    assert f"the report files are in {report.html_path.parent}" in message
    assert report.html_path.exists() and report.csv_path.exists()
    assert box.messages == []


def test_dropped_connection_is_a_clear_error(report, monkeypatch):
    dropper = smtp_server.Dropper()
    try:
        smtp_env(monkeypatch, dropper.port)
        with pytest.raises(EmailError, match="closed the connection .*nothing was sent. Check"):
            deliver(report, RECIPIENTS, dry_run=False)
    finally:
        dropper.close()


def test_nothing_listening_is_a_clear_error(report, monkeypatch):
    smtp_env(monkeypatch, smtp_server.free_port())
    with pytest.raises(EmailError, match="cannot reach the SMTP server 127.0.0.1:"):
        deliver(report, RECIPIENTS, dry_run=False)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "no SMTP server configured: set CHIPCOST_SMTP_HOST"),
        ({"HOST": "mail", "TLS": "tls"}, "CHIPCOST_SMTP_TLS='tls' is not one of"),
        ({"HOST": "mail", "PORT": "smtp"}, "CHIPCOST_SMTP_PORT='smtp' is not a port"),
        ({"HOST": "mail", "PORT": "99999999999"}, "CHIPCOST_SMTP_PORT='99999999999' is not a"),
        ({"HOST": "mail", "PORT": "0"}, "CHIPCOST_SMTP_PORT='0' is not a port number"),
        ({"HOST": "mail", "PORT": "²5"}, "CHIPCOST_SMTP_PORT='²5' is not a port number"),
        ({"HOST": "mail"}, "no sender address: set CHIPCOST_SMTP_FROM"),
    ],
)
def test_settings_errors(monkeypatch, env, message):
    for key, value in env.items():
        monkeypatch.setenv(f"CHIPCOST_SMTP_{key}", value)
    with pytest.raises(EmailError, match=message):
        smtp_settings()


def test_settings_defaults_and_secret_values(monkeypatch):
    monkeypatch.setenv("CHIPCOST_SMTP_HOST", "env-host")
    settings = smtp_settings({"password": "from-block", "user": "me@example.com"})
    assert (settings.host, settings.port, settings.tls) == ("env-host", 587, "starttls")
    assert settings.sender == "me@example.com" and settings.password == "from-block"
    assert "from-block" not in repr(settings)
    assert smtp_settings({"host": "h", "tls": "SSL", "from": "a@b.c"}).port == 465


def test_bad_recipient_is_refused_before_anything_is_sent(report):
    with pytest.raises(EmailError, match="'finops' is not an e-mail address"):
        deliver(report, ["finops"], dry_run=True)


@pytest.mark.parametrize(
    ("given", "taken"),
    [
        # a comma list as a mail client writes one (on 0cae6cf: "is not an e-mail address")
        (["a@b.io, c@d.io"], ["a@b.io", "c@d.io"]),
        (['"Doe, Jo" <jo@example.com>'], ['"Doe, Jo" <jo@example.com>']),  # a name kept whole
        (["a@b.io", "c@d.io,a@b.io"], ["a@b.io", "c@d.io"]),  # each once
    ],
)
def test_recipients_are_read_as_a_mail_client_writes_them(given, taken):
    assert check_recipients(given) == taken


@pytest.mark.parametrize(
    ("given", "said"),
    [
        # on 0cae6cf a 5,000-character address was written into the .eml and left to the server
        ("a" * 5000 + "@example.com", "is longer than an e-mail address can be (64 characters"),
        ("a@" + "b" * 260 + ".io", "is longer than an e-mail address can be"),
        (" , ", "' , ' is not an e-mail address"),
        ("@example.com", "is not an e-mail address"),
    ],
)
def test_an_address_smtp_cannot_carry_is_refused_short(given, said):
    with pytest.raises(EmailError, match=re.escape(said)) as refused:
        check_recipients([given])
    assert len(str(refused.value)) < 200


def test_dry_run_writes_an_eml_that_parses_back(report):
    delivery = deliver(report, [], dry_run=True)
    assert delivery.eml_path == report.html_path.with_suffix(".eml")
    message = parsed(delivery.eml_path.read_bytes())
    assert message["To"] == "undisclosed-recipients:;"
    assert message["Subject"].startswith("2 offers moved")
    kinds = [p.get_content_type() for p in message.walk()]
    assert kinds == [
        "multipart/mixed",
        "multipart/alternative",
        "text/plain",
        "text/html",
        "text/html",
        "text/csv",
    ]


def test_many_changes_keep_the_body_under_the_clip_limit(tmp_path):
    con = open_warehouse(tmp_path / "w.duckdb")
    offers = [record(region=f"region-{i:03d}", price_per_hour=50.0 + i) for i in range(300)]
    load_run(con, run_of(offers, day(0)))
    moved = [record(region=f"region-{i:03d}", price_per_hour=45.0 + i) for i in range(300)]
    load_run(con, run_of(moved, day(1)))
    con.close()
    made = write_report(tmp_path / "w.duckdb", tmp_path / "out")
    assert made.data.moves.height == 300
    message = parsed(deliver(made, ["a@example.com"], dry_run=True).eml_path.read_bytes())
    html = message.get_body(("html",)).get_content()
    assert len(html.encode()) < 100_000
    assert "The 10 largest moves of list and commitment prices (300 offers; " in html
    # The page shows the 20 largest moves (each offer's price was its own: no two alike);
    # the CSV keeps every change.
    page = made.html_path.read_text()
    assert made.html_path.stat().st_size < 300_000
    assert "The 16 largest moves of list and commitment prices" in page
    assert len(made.csv_path.read_text().splitlines()) == 1 + 600  # 300 new, 300 changed
    assert made.data.period.until == date(2026, 11, 2)


@pytest.mark.parametrize("width", range(60, 100, 3))
def test_subjects_with_a_minus_sign_read_back_unchanged(tmp_path, width):
    subject = ("x" * width)[: width - 14] + " on demand −8%"
    message = build_message(
        subject=subject,
        sender="a@b.io",
        recipients=["c@d.io"],
        text="t",
        html="<p>h</p>",
        attachments=[],
    )
    assert parsed(bytes(message))["Subject"] == subject


def test_offers_that_moved_alike_share_a_line(tmp_path):
    # One provider's price cut the same way in 3 regions and 4 instance sizes: one line of
    # the e-mail, not 12 that push every other move out.
    regions = ["us-central1", "europe-west4", "asia-southeast1"]
    sizes = {"a3-highgpu-1g": 1, "a3-highgpu-2g": 2, "a3-highgpu-4g": 4, "a3-highgpu-8g": 8}

    def offers(per_chip: float) -> list:
        alike = [
            record(provider="gcp", region=r, instance_type=t, chip_count=float(n),
                   price_per_hour=per_chip * n, sku=f"{r}-{t}")
            for r in regions for t, n in sizes.items()
        ]  # fmt: skip
        return [*alike, record(price_per_hour=80.0 if per_chip == 10.0 else 76.0)]

    db = tmp_path / "w.duckdb"
    con = open_warehouse(db)
    load_run(con, run_of(offers(10.0), day(0)))
    load_run(con, run_of(offers(8.7), day(1)))
    con.close()
    made = write_report(db, tmp_path / "out")
    mail = deliver(made, [], dry_run=True).eml_path.read_bytes()
    message = parsed(mail)
    html = message.get_body(("html",)).get_content()
    text = message.get_body(("plain",)).get_content()
    place = "gcp · asia-southeast1, europe-west4, us-central1 · 4 instance types (12 offers)"
    assert html.count(place) == 1 and text.count(place) == 1
    assert "p5.48xlarge" in html  # the other move still shows
    assert "(13 offers; those of one provider that moved alike share a line)" in html


def test_sections_left_out_for_size_are_named(made, monkeypatch):
    from chipcost.reports import page

    full = page.email_html(made.data, "t")
    assert "Left out" not in full and "Cheapest now</h2>" in full
    monkeypatch.setattr(page, "EMAIL_BODY_LIMIT", len(full.encode()) - 1)
    lean = page.email_html(made.data, "t")
    assert "Cheapest now</h2>" not in lean
    assert "Left out to keep this e-mail under" in lean and ": Cheapest now. The attached" in lean


def test_each_cost_per_token_row_of_the_mail_names_its_figures_kind(sample_report):
    """The e-mail's cost per token names each row's throughput figure's kind and source, as the
    page does ('derived: chipcost derivation'; 'calibrated', as `cost` words a derived figure
    fitted on the chip's own): a derived figure is no measurement."""
    from html import unescape

    from chipcost.reports.tables import lead_phrase

    made, eml = sample_report
    body = parsed(eml.read_bytes()).get_body(("html",)).get_content()
    start = body.index(">Cost per token<")
    section = unescape(re.sub(r"<[^>]+>", " ", body[start : body.index("</table>", start)]))
    cells = section.split(" per million tokens")[1:]
    costs = made.data.cost_per_token
    assert len(cells) == costs.select("model", "workload").n_unique() > 5
    said = {
        f"{kind}: {lead_phrase(source)}"
        for kind, source in costs.select("throughput_figure_kind", "throughput_source").iter_rows()
    }
    for cell in cells:
        assert any(s in " ".join(cell.split()) for s in said), cell
    assert "derived: chipcost derivation" in " ".join(section.split())
