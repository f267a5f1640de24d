"""Report files and the CLI: hostile text escaped, thin data explained, clear errors."""

from __future__ import annotations

import email
import email.policy
import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from chipcost.core.runs import FAILED
from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.build import deliver, write_report
from chipcost.reports.text import markdown, text_body
from chipcost.warehouse.load import load_run
from tests import report_warehouse, smtp_server
from tests.cli_runner import chipcost
from tests.helpers import day, record, run_of

SCRIPT = "<script>alert(1)</script>"


def warehouse(path: Path, runs: list) -> Path:
    con = open_warehouse(path)
    for run in runs:
        load_run(con, run)
    con.close()
    return path


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    return report_warehouse.build(tmp_path_factory.mktemp("out") / "w.duckdb")


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory):
    """The golden runs marked sample data, and their latest week's report (tests read both)."""
    folder = tmp_path_factory.mktemp("sample")
    db = report_warehouse.sample_marked(folder / "w.duckdb")
    return db, write_report(db, folder / "latest")


def test_scraped_html_comes_out_escaped(tmp_path):
    hostile = {"instance_type": SCRIPT, "region": '=HYPERLINK("http://x")'}
    first, later = (
        run_of([record(**hostile)], day(0)),
        run_of([record(price_per_hour=50.0, **hostile)], day(1)),
    )
    failed = run_of([], day(2), status=FAILED)  # the health table shows the last run's message
    failed.sources[0].message = "<img src=x onerror=alert(2)>"
    made = write_report(warehouse(tmp_path / "w.duckdb", [first, later, failed]), tmp_path / "r")
    page = made.html_path.read_text()
    mail = deliver(made, [], dry_run=True).eml_path.read_bytes().decode()
    message = email.message_from_string(mail, policy=email.policy.default)
    body = message.get_body(("html",)).get_content()
    for html in (page, body):
        assert SCRIPT not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(2)&gt;" in page
    assert SCRIPT not in markdown(made.data, [])
    assert SCRIPT in text_body(made.data, 10)  # plain text is plain: nothing to escape
    csv = made.csv_path.read_text()
    assert "'=HYPERLINK" in csv and ",=HYPERLINK" not in csv  # not a spreadsheet formula


def test_period_without_runs_says_so(golden, tmp_path):
    made = write_report(golden, tmp_path, since=date(2026, 11, 15), until=date(2026, 11, 21))
    page = made.html_path.read_text()
    said = "No data from 2026-11-15 to 2026-11-21 (the warehouse holds 2026-11-01 to 2026-11-07)"
    assert f"{said}." in page and f"{said}, so no changes were seen." in page
    assert "No offer moved in price" not in page
    assert "No prices known at the end of 2026-11-21." in page
    assert made.subject == "No data: week of 2026-11-15"
    assert made.csv_path.read_text().startswith("changed_at,change,chip")
    assert len(made.csv_path.read_text().splitlines()) == 1


def test_a_period_before_the_prices_shows_none_of_them(sample_report, tmp_path):
    # Cost per token is computed at current prices only: a past period's report showed
    # today's (sample) costs, without the sample banner, since nothing of the period was.
    db, latest = sample_report
    assert "per million tokens" in _mail_html(latest)
    made = write_report(db, tmp_path / "r", since=date(2026, 10, 1), until=date(2026, 10, 31))
    page = made.html_path.read_text()
    assert made.data.cost_per_token is None and not made.data.sample
    assert "Cost per token is computed at current prices only, and this period ended on " in page
    assert "No source had run by 2026-10-31." in page
    assert "per million tokens" not in _mail_html(made)
    assert "SAMPLE DATA" not in page and not made.subject.startswith("[sample data]")


def _mail_html(made) -> str:
    mail = deliver(made, [], dry_run=True).eml_path.read_bytes().decode()
    message = email.message_from_string(mail, policy=email.policy.default)
    return message.get_body(("html",)).get_content()


def test_empty_warehouse_makes_a_report_that_says_what_it_lacks(tmp_path):
    made = write_report(warehouse(tmp_path / "w.duckdb", []), tmp_path / "r")
    page = made.html_path.read_text()
    assert "The warehouse holds no prices yet: run <code>chipcost collect</code> first." in page
    assert "No prices yet, so no changes." in page
    assert "No source has run before the end of this period." in page
    assert made.subject.startswith("No price history yet: week of ")
    assert made.data.period.until == date.today() or made.data.period.days == 7


def test_single_day_of_history(tmp_path):
    made = write_report(warehouse(tmp_path / "w.duckdb", [run_of([record()], day(0))]), tmp_path)
    page = made.html_path.read_text()
    assert "Only one day of prices so far: nothing to compare it with yet." in page
    assert "History starts on 2026-11-01" in page
    assert "1 offer first seen in a source&#x27;s first run in this period is the start" in page
    assert "No new offers in this period." in page  # the first run is not news
    assert made.data.period.since == date(2026, 11, 1) - timedelta(days=6)


def test_a_change_with_one_daily_point_has_no_sparkline(tmp_path):
    same_day = day(0).replace(hour=18)
    runs = [run_of([record()], day(0)), run_of([record(price_per_hour=50.0)], same_day, run_id="x")]
    made = write_report(warehouse(tmp_path / "w.duckdb", runs), tmp_path / "r")
    assert made.data.moves["trend"].to_list() == [None]
    # The price history section draws its chart; the changes table has no sparkline.
    changes = made.html_path.read_text().split('id="changes"')[1].split("</section>")[0]
    assert "one day only" in changes and "<svg" not in changes


def test_sample_runs_are_labelled(sample_report):
    _, made = sample_report
    assert made.subject.startswith("[sample data] 2 offers moved")
    assert "SAMPLE DATA" in made.html_path.read_text()
    assert "SAMPLE DATA" in text_body(made.data, 10)


def test_cli_dry_run_writes_report_csv_and_eml(golden, tmp_path):
    result = chipcost("report", "--dry-run", "--db", str(golden), "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    slug = "2026-11-01_2026-11-07"
    for name in (f"chipcost-report_{slug}.html", f"chipcost-changes_{slug}.csv"):
        assert str(tmp_path / name) in result.stdout
    eml = tmp_path / f"chipcost-report_{slug}.eml"
    assert f"{eml} (dry run: not sent)" in result.stdout
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    assert message.get_content_type() == "multipart/mixed"
    assert "2 offers moved, H100-SXM on demand −7.5%" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "2026-13-01"], "--since '2026-13-01' is not a day: write one that exists"),
        (["--since", "2026-11-09", "--until", "2026-11-08"], "is after --until 2026-11-08"),
        (["--email", "finops"], "'finops' is not an e-mail address"),
        (["--email", "a@example.com"], "no SMTP server configured"),
        # A line break in an address (header injection) is refused before anything is built;
        # on main at 368c4bd it was a traceback after the report files were written.
        (["--email", "a@example.com\r\nBcc: b@example.com"], "holds a control character"),
    ],
)
def test_cli_errors_are_one_clear_line(golden, tmp_path, args, message):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHIPCOST_SMTP_")}
    result = chipcost("report", "--db", str(golden), "--out", str(tmp_path), *args, env=env)
    # A day that is no day, or the period's ends swapped, is a usage error (2); the e-mail's
    # checks are the mail's (1).
    assert result.returncode == (1 if args[0] == "--email" else 2), result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


# TLS with a CA file the settings name: the file is read before anything is built.
CA = {"HOST": "127.0.0.1", "FROM": "r@example.com", "TLS": "starttls"}


@pytest.mark.parametrize(
    ("smtp", "message"),
    [
        ({"HOST": "127.0.0.1", "PORT": "0"}, "CHIPCOST_SMTP_PORT='0' is not a port number"),
        ({"HOST": "127.0.0.1", "TLS": "maybe"}, "CHIPCOST_SMTP_TLS='maybe' is not one of"),
        ({"HOST": "127.0.0.1"}, "no sender address: set CHIPCOST_SMTP_FROM"),
        ({"HOST": "127.0.0.1", "FROM": "r@example.com\nBcc: x@example.com"}, "control character"),
        # on 8f824434: "cannot reach the SMTP server 127.0.0.1:587: [Errno 2] No such file ..."
        # after the report files were written
        (
            {**CA, "CA_FILE": "/nonexistent/ca.pem"},
            "CHIPCOST_SMTP_CA_FILE='/nonexistent/ca.pem' cannot be read (No such file or "
            "directory): give a readable CA bundle (PEM), or unset it",
        ),
        ({**CA, "CA_FILE": "/"}, "CHIPCOST_SMTP_CA_FILE='/' cannot be read (Is a directory)"),
        ({**CA, "CA_FILE": "/dev/null"}, "CHIPCOST_SMTP_CA_FILE='/dev/null' holds no certificate"),
    ],
)
def test_smtp_settings_that_cannot_work_are_refused_before_the_report_is_built(
    golden, tmp_path, smtp, message
):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHIPCOST_SMTP_")}
    env |= {f"CHIPCOST_SMTP_{k}": v for k, v in smtp.items()}
    result = chipcost(
        "report", "--db", str(golden), "--out", str(tmp_path), "--email", "a@b.io", env=env
    )
    assert result.returncode == 1
    assert message in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing built, nothing written


def test_cli_failed_send_leaves_the_files(golden, tmp_path):
    env = {**os.environ, "CHIPCOST_SMTP_HOST": "127.0.0.1", "CHIPCOST_SMTP_TLS": "none"}
    env |= {"CHIPCOST_SMTP_PORT": str(smtp_server.free_port()), "CHIPCOST_SMTP_FROM": "r@x.io"}
    result = chipcost(
        "report", "--db", str(golden), "--out", str(tmp_path), "--email", "a@b.io", env=env
    )
    assert result.returncode == 1 and "cannot reach the SMTP server" in result.stderr
    assert f"the report files are in {tmp_path}" in result.stderr.replace("\n", "")
    assert len(list(tmp_path.glob("chipcost-*"))) == 2


def test_cli_sends_through_smtp(golden, tmp_path):
    box = smtp_server.Inbox()
    controller = smtp_server.start(box)
    env = {**os.environ, "CHIPCOST_SMTP_HOST": "127.0.0.1", "CHIPCOST_SMTP_TLS": "none"}
    env |= {"CHIPCOST_SMTP_PORT": str(controller.port), "CHIPCOST_SMTP_FROM": "r@x.io"}
    try:
        args = ["--email", "a@b.io", "--email", "c@d.io, a@b.io"]  # repeated, a comma list
        result = chipcost("report", "--db", str(golden), "--out", str(tmp_path), *args, env=env)
    finally:
        controller.stop()
    assert result.returncode == 0, result.stderr
    assert "sent to a@b.io, c@d.io" in result.stdout
    assert [m.rcpt_tos for m in box.messages] == [["a@b.io", "c@d.io"]]


def test_reading_commands_do_not_load_the_report_machinery():
    code = (
        "import sys, click; from chipcost.cli.parser import command_for; "
        "command = command_for(['prices']); command.get_help(click.Context(command)); "
        "heavy = ('prefect', 'great_tables', 'css_inline', "
        "'chipcost.reports'); "
        "print(sorted({h for m in sys.modules for h in heavy if m == h or m.startswith(h + '.')}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_spot_moves_are_listed_apart_in_the_mail(tmp_path):
    spot = {"pricing_model": "spot", "zone": "us-east-1a"}
    runs = [
        run_of([record(), record(price_per_hour=20.0, **spot)], day(0)),
        run_of([record(price_per_hour=56.14), record(price_per_hour=26.0, **spot)], day(1)),
    ]
    made = write_report(warehouse(tmp_path / "w.duckdb", runs), tmp_path / "r")
    message = email.message_from_bytes(
        deliver(made, [], dry_run=True).eml_path.read_bytes(), policy=email.policy.default
    )
    html = message.get_body(("html",)).get_content()
    listed, spot_part = html.split("Spot moves")
    assert "+2.0%" in listed and "+30.0%" not in listed
    assert "+30.0%" in spot_part and "All moves of spot prices" in spot_part
    text = message.get_body(("plain",)).get_content()
    assert "Largest moves of list and commitment prices (1 offer; " in text
    assert "Largest moves of spot prices (1 offer; " in text
    # The subject names the largest list or commitment move: spot prices move daily.
    assert made.subject == "2 offers moved, H100-SXM on demand +2%: week of 2026-10-27"


def test_the_health_line_says_when_staleness_is_judged(golden_report):
    # What the period's figures rest on is judged at its end, and said without the word
    # "stale", which the line keeps for now, as `chipcost sources` judges: on the sample,
    # "none stale at the end of 2026-11-21 ... 26 of 26 stale" read as a contradiction.
    from chipcost.reports.text import health_line

    made = golden_report
    line = health_line(made.data)
    said = "at the end of 2026-11-07, 1 of 3 had not succeeded in the 2 days before (aws-spot)"
    assert said in line and line.count("stale") == 1
    assert said in made.html_path.read_text()


def test_a_section_whose_query_fails_is_left_out_and_said(caplog):
    import duckdb

    from chipcost.reports.data import section

    con = duckdb.connect()
    with caplog.at_level("WARNING", logger="chipcost.reports"):
        rows = section("head-to-head", lambda: con.sql("SELECT * FROM no_such_view").fetchall(), [])
    assert rows == []
    [said] = [r.getMessage() for r in caplog.records]
    assert said.startswith("report: the head-to-head section is left out: Catalog Error")
    assert "no_such_view" in said
    assert section("head-to-head", lambda: con.sql("SELECT 1").fetchall(), []) == [(1,)]
