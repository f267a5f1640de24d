"""The report's "Cost per token" says of each throughput figure what `chipcost cost` says of it:
its basis in cost's word ('calibrated' for a derived figure fitted on the chip's own
measurements) and, for a derived figure, its range, in the page and the e-mail.

On ac7e9369 the sample week's report said '18,410 tok/s per chip, derived: chipcost roofline'
of MI350X's gemma-3-27b figure, which `cost` gives as '18,410 (7,541-41,643)' and
'calibrated'."""

from __future__ import annotations

import email
import email.policy
import html
import json
import re

import pytest

from chipcost.reports.build import compose
from tests.cli_runner import chipcost


def _text(page: str) -> str:
    """What a reader sees: tags out, spaces (no-break ones too) as one."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).replace("\u00a0", " ").split())


def _cost(db, model: str, workload: str, chip: str) -> dict:
    """`chipcost cost`'s cheapest row of `chip` for the model and workload (json)."""
    ran = chipcost(
        "cost", "--model", model, "--workload", workload, "--chip", chip, "--format", "json",
        "--db", str(db),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)[0]


@pytest.mark.parametrize(
    ("model", "workload", "chip"),
    [("gemma-3-27b", "inference", "MI350X"), ("gemma-3-27b", "training", "B200")],
)
def test_cost_per_token_words_a_figure_as_cost_does(sample_report, model, workload, chip):
    made, _ = sample_report
    row = _cost(made.db_path, model, workload, chip)
    tps, kind = row["tokens_per_second_per_chip"], row["throughput_figure_kind"]
    low, high = row["throughput_range_low"], row["throughput_range_high"]
    figure = f"{tps:,.0f} ({low:,.0f}-{high:,.0f})" if low is not None else f"{tps:,.0f}"
    page = made.html_path.read_text(encoding="utf-8")
    cost = _text(page.split('<section id="cost"')[1].split("</section>")[0])
    group = cost.split(f"{model}, {workload} ", 1)[1].split(", training ", 1)[0]
    assert f"{chip} " in group
    assert f"{figure} tok/s per chip, {kind}: " in group
    if workload == "inference":  # the sample's: a derived figure calibrated, with a range
        assert (kind, low is not None) == ("calibrated", True)


def test_the_mail_says_the_basis_as_cost_does(sample_report):
    made, _ = sample_report
    message = email.message_from_bytes(
        bytes(compose(made, "r@example.com", ["a@example.com"])), policy=email.policy.default
    )
    body = _text(message.get_body(("html",)).get_content())
    cheapest = body.split("gemma-3-27b, inference ", 1)[1]
    assert cheapest.startswith("MI350X ") and "calibrated: chipcost roofline" in cheapest[:200]
