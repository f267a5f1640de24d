"""The articles' answers mark a cost whose offer's price is an estimate (no price the provider
publishes) 'est.', as `chipcost prices` and `cost` mark that price, with a note saying what
it means: the page's answers and their table, the e-mail's HTML and text, and the explorer's
table. A published price's cost carries no mark.

On bd707475 the sample week's answers said 'H100-SXM $0.0938/M' of hyperbolic's H100, whose
price `cost` shows as '$1.2900 est.', and never said est."""

from __future__ import annotations

import csv
import email
import email.policy
import html
import io
import re

import pytest

from chipcost.reports.build import compose
from tests.cli_runner import chipcost

NOTE = "est. after a cost: it rests on an estimated price, not one the provider publishes"


def _text(page: str) -> str:
    """What a reader sees: tags out, spaces (no-break ones too) as one."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).replace("\u00a0", " ").split())


def _section(page: str, key: str) -> str:
    return _text(page.split(f'<section id="{key}"')[1].split("</section>")[0])


@pytest.fixture(scope="module")
def estimated(sample_report) -> dict[str, bool]:
    """Whether `chipcost cost` marks each on demand offer of H100-SXM and Trainium2 an estimate
    (llama-3-70b inference), by provider."""
    made, _ = sample_report
    ran = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--chip", "H100-SXM",
        "--chip", "Trainium2", "--pricing-model", "on_demand", "--format", "csv",
        "--db", str(made.db_path),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    rows = csv.DictReader(io.StringIO(ran.stdout))
    return {f"{r['chip']} {r['provider']}": r["estimate"] == "true" for r in rows}


def test_the_page_marks_a_cost_on_an_estimated_price(sample_report, estimated):
    assert estimated["H100-SXM hyperbolic"] and not estimated["Trainium2 aws"]
    made, _ = sample_report
    versus = _section(made.html_path.read_text(encoding="utf-8"), "versus")
    said = "llama-3-70b inference: Trainium2 $1.7808/M (derived), H100-SXM $0.0938/M est.;"
    assert said in versus
    assert "$0.0938 est. hyperbolic global" in versus  # the table under the answers
    assert "$1.7808 aws us-east-2" in versus  # aws's published price: no mark
    assert versus.count(NOTE) == 2  # the gist over the answers, the explanation under them


def test_the_mail_marks_it_in_html_and_text(sample_report):
    made, _ = sample_report
    message = email.message_from_bytes(
        bytes(compose(made, "r@example.com", ["a@example.com"])), policy=email.policy.default
    )
    body = _text(message.get_body(("html",)).get_content())
    assert "H100-SXM $0.0938/M est.;" in body and NOTE in body
    text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert "Trainium2 $1.7808/M (derived), H100-SXM $0.0938/M\u00a0est.;" in text
    assert NOTE in text
