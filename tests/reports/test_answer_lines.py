"""The e-mail's answers to the articles' questions, sent to a real local SMTP server (aiosmtpd):
each line starts with its pair, gives both costs per million tokens where known (B's only where
B's figure is a published one), and links to its chart in the attached report, whose HTML has
that anchor. The sample week's report (tests/reports/conftest.py), on the shipped catalogue."""

from __future__ import annotations

import email
import email.policy
import re
import shutil
from dataclasses import replace

import pytest

from chipcost.reads.articles import ARTICLE_QUESTIONS
from chipcost.reports.build import deliver
from chipcost.reports.labels import ESTIMATED
from chipcost.reports.versus_charts import PUBLISHED
from chipcost.transform.cost import cost_text
from tests import smtp_server
from tests.smtp_server import USER, Inbox

HEADING = "Is chip A cheaper than chip B?"


@pytest.fixture(scope="module")
def sent(sample_report, tmp_path_factory):
    """The sample report sent once to an aiosmtpd server: (report, text part, HTML part,
    attached report's HTML)."""
    made, _ = sample_report
    mine = tmp_path_factory.mktemp("sent") / "w.duckdb"
    shutil.copy(made.db_path, mine)  # what is sent is recorded in the warehouse
    report = replace(made, db_path=mine)
    box = Inbox()
    controller = smtp_server.start(box)
    env = {"HOST": "127.0.0.1", "PORT": str(controller.port), "TLS": "none", "FROM": USER}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(f"CHIPCOST_SMTP_{key}", value)
        try:
            deliver(report, ["finops@example.com"], dry_run=False)
        finally:
            controller.stop()
    (got,) = box.messages
    message = email.message_from_bytes(got.content, policy=email.policy.default)
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    [attached] = [p for p in message.iter_attachments() if p.get_filename().endswith(".html")]
    return report, text, html, attached


def answer_lines(text: str) -> list[str]:
    section = text.split(HEADING, 1)[1].split("\n\n", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


def answered(report) -> list[dict]:
    rows = report.data.head_to_head.to_dicts()
    return [r for r in rows if r["answer"] is not None]


def test_each_answer_line_starts_with_its_pair_and_question(sent):
    report, text, _, _ = sent
    lines = answer_lines(text)
    rows = answered(report)
    assert rows and len(lines) > len(rows)  # the answered, then those not answered
    for row, line in zip(rows, lines, strict=False):
        head = f"- {row['chip_a']} against {row['chip_b']}, {row['model']} {row['workload']}: "
        assert line.startswith(head), (head, line)
    questions = {f"{model} {workload}" for model, workload in ARTICLE_QUESTIONS}
    for line in lines[len(rows) :]:
        pairs, _, rest = line[2:].partition(", ")
        assert re.fullmatch(r"\S+ against \S+(; \S+ against \S+)*", pairs), line
        assert rest.split(": ", 1)[0] in questions and ": not answered (" in rest, line


def test_both_costs_are_given_where_known_b_only_where_measured(sent):
    report, text, _, _ = sent
    lines = answer_lines(text)
    rows = answered(report)
    seen_b_left_out = False
    for row, line in zip(rows, lines, strict=False):
        a = f"{row['chip_a']} {cost_text(row['a_usd_per_million_tokens'])}/M"
        assert a in line, line
        b = f"{row['chip_b']} {cost_text(row['b_usd_per_million_tokens'])}/M"
        if row["b_kind"] in PUBLISHED:
            assert b in line, line
        else:
            seen_b_left_out = True
            assert b not in line, line
        if row["a_kind"] not in PUBLISHED:  # after 'est.' where A's price is an estimate
            assert f"{a}{ESTIMATED * bool(row['a_estimate'])} ({row['a_kind']})" in line, line
    # The sample's training pairs against H200 and B200 set Trainium2 against derived figures.
    assert seen_b_left_out


def test_the_mail_names_the_attached_report_its_charts_are_in_and_links_nowhere(sent):
    """On 2487f4c each answer linked `chipcost-report_....html#versus-...`: a link no mail
    client follows into an attachment. The mail names the attached report once; the report
    keeps each pair's chart under its id."""
    report, text, html, attached = sent
    page = attached.get_content()
    name = attached.get_filename()
    said = f"each answer's chart is in the attached report, {name}, under this heading"
    assert said in " ".join(text.split())
    assert f"Each answer's chart is in the attached report ({name})" in " ".join(html.split())
    assert f"{name}#" not in text and f'href="{name}' not in html
    # the chart's band of a pair is the group with its id, its label inside
    band = page.split('id="versus-mi300x-h100-sxm-inference"', 1)[1].split("</g>", 1)[0]
    assert "MI300X vs H100-SXM" in band
    # the HTML body's lines start with the pair too
    assert "<b>MI300X against H100-SXM</b>, llama-3-70b inference: MI300X $" in html
