"""A doubtful spot price (not below its offer's on-demand price) is marked '(!)' and a price of
the GPU alone (its host billed beside it) is said wherever the report shows a price, as
`chipcost prices` marks and says them: the moves and Cheapest now of the page and of the
e-mail's HTML and text, each with a note saying what the mark means; the changes CSV carries
spot_doubt, gpu_alone and stated_currency after its other columns, as `prices --format csv`.

On 9f432655 the sample week's report showed lium's RTX-5090 spot move, doubtful in `prices`
('spot (!)'), with no mark, said nothing of daytona's and tensordock's prices being the GPU's
alone, and its CSV had none of the three columns (seeweb's euro prices read as dollars)."""

from __future__ import annotations

import csv
import email
import email.policy
import html
import re

from chipcost.reports.build import compose

DOUBTED = "RTX-5090 lium · global 1x RTX 5090 32GB spot $0.5100 $0.5600 est. (!)"
DOUBT_NOTE = (
    "(!) = a spot price not below its offer's on-demand price (no discount: stale or "
    "mislabelled at the source; 1 offer): lium global 1x RTX 5090 32GB."
)
DAYTONA = "daytona prices the GPU alone: the host's vCPUs, memory and disk are billed beside it"


def _text(page: str) -> str:
    """What a reader sees: tags out, spaces (no-break ones too) as one."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).replace("\u00a0", " ").split())


def _section(page: str, key: str) -> str:
    return _text(page.split(f'<section id="{key}"')[1].split("</section>")[0])


def test_the_page_marks_a_doubtful_spot_move_and_says_the_gpu_alone_prices(sample_report):
    made, _ = sample_report
    page = made.html_path.read_text(encoding="utf-8")
    spot = _section(page, "spot")
    assert DOUBTED in spot and DOUBT_NOTE in spot
    assert spot.count("(!)") == 2  # lium's move and the note: no other spot price is doubtful
    assert "RTX-4090 daytona" in spot and DAYTONA in spot
    assert "RTX-4090 daytona" in _section(page, "changes") and DAYTONA in _section(page, "changes")
    cheapest = _section(page, "cheapest")
    assert "$0.1500 est. tensordock · canada" in cheapest
    assert "cudo, daytona, tensordock price the GPU alone; gcp's N1 GPUs" in cheapest


def test_the_mail_says_them_in_html_and_text(sample_report):
    made, _ = sample_report
    message = email.message_from_bytes(
        bytes(compose(made, "r@example.com", ["a@example.com"])), policy=email.policy.default
    )
    body = _text(message.get_body(("html",)).get_content())
    assert body.count(DAYTONA) == 2  # under What changed and Spot moves
    text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert "RTX-4090: $0.6000 -> $0.5400\u00a0est.\n          daytona · global" in text
    assert f"\n\n{DAYTONA}" in text
    # lium's move is past the text's five spot moves: neither it nor the note is in the text
    assert "(!)" not in text


def test_the_changes_csv_says_doubt_gpu_alone_and_the_stated_currency(sample_report):
    made, _ = sample_report
    with made.csv_path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # provisional after them (tests/reports/test_report_provisional_moves.py)
    assert list(rows[0])[-5:-1] == ["glitch", "spot_doubt", "gpu_alone", "stated_currency"]
    lium = [r for r in rows if r["provider"] == "lium" and r["pricing_model"] == "spot"]
    assert lium and all("is not below on demand" in r["spot_doubt"] for r in lium)
    assert {r["spot_doubt"] for r in rows if r["provider"] != "lium"} == {""}
    alone = {r["provider"] for r in rows if r["gpu_alone"] == "true"}
    assert alone == {"daytona"}  # the period's changes of GPU_ALONE's sources: daytona's
    assert {r["stated_currency"] for r in rows if r["provider"] == "seeweb"} == {"EUR"}
    assert {r["stated_currency"] for r in rows if r["provider"] == "aws"} == {"USD"}
    assert all(r["currency"] == "USD" for r in rows)
