"""The report says which euro prices of its moves, history charts and changes CSV are at an
earlier day's ECB rate than their own, not loaded yet, as its index and "Cheapest now" say it
(and `chipcost history`): "What changed" in the page, the e-mail's HTML and its plain text, the
history charts' note (their points on those days unmarked), and the CSV's last column,
`provisional`, on each event of a euro price of such a day.

On 0e43adca a report made by the sample's fifth run (Wednesday 2026-11-18, the ECB's rates
loaded up to the 17th) showed seeweb's MI300X move of the 18th, 1.44 EUR at the 17th's rate
($1.541952; $1.546272 once the 18th's rate is loaded), with nothing said of it anywhere but in
the index and "Cheapest now"."""

from __future__ import annotations

import csv
import email
import email.policy
import html
import re
from datetime import date

import pytest

from chipcost.reports.period import Period
from tests import warehouses
from tests.cli_runner import chipcost

PERIOD = Period(date(2026, 11, 12), date(2026, 11, 18))
PROVISIONAL = (
    "The euro prices of 2026-11-18 are provisional: at the ECB rate of 2026-11-17, the newest "
    "loaded, as the next working day's is not yet (the ECB publishes a working day's rate "
    "about 16:00 CET, after a morning's run); made again once a later run has loaded it "
    "(`chipcost collect --source ecb-rates`), the figures are final."
)
CHARTS = "The charts draw those days at that earlier rate, their points unmarked."


@pytest.fixture(scope="module")
def wednesday(tmp_path_factory):
    """The report of the week to 2026-11-18 made from the sample's first five runs (to
    Wednesday morning's), `chipcost report --dry-run` as a user runs it: its folder."""
    root = tmp_path_factory.mktemp("wednesday")
    db = warehouses.sample(root / "w.duckdb", first=5)
    ran = chipcost(
        "report", "--dry-run", "--since", str(PERIOD.since), "--until", str(PERIOD.until),
        "--db", str(db), "--out", str(root / "r"),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return root / "r"


def _section(page: str, key: str) -> str:
    """What a reader sees of a section: its words, a code span between backticks as the
    report's text writes it, spaces (no-break ones too) as one."""
    found = page.split(f'<section id="{key}"')[1].split("</section>")[0]
    found = re.sub(r"</?code[^>]*>", "`", found)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found)).replace("\u00a0", " ").split())


def test_the_page_says_the_moves_and_charts_of_a_provisional_day(wednesday):
    page = (wednesday / f"chipcost-report_{PERIOD.slug}.html").read_text(encoding="utf-8")
    # of seeweb's MI300X move of the 18th (past the 16 the page lists: in the CSV)
    assert PROVISIONAL in _section(page, "changes")
    # the week's spot moves are all in US dollars: nothing to say there
    assert "provisional" not in _section(page, "spot")
    history = _section(page, "history")
    assert f"{PROVISIONAL} {CHARTS}" in history and "MI300X" in history  # seeweb's chip


def test_the_mail_says_it_in_html_and_text(wednesday):
    (eml,) = wednesday.glob("*.eml")
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    body = message.get_body(("html",)).get_content()
    assert PROVISIONAL in _section(body, "changes")
    assert "provisional" not in _section(body, "spot")
    text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
    listed = text.split("Largest moves of list and commitment prices")[1].split("Largest moves")[0]
    plain = PROVISIONAL.replace("`", '"')
    assert f"\n\n{plain}\n\n" in listed  # under the moves it is of
    assert text.count("are provisional") == 1


def test_the_changes_csv_marks_the_euro_events_of_a_provisional_day(wednesday):
    with (wednesday / f"chipcost-changes_{PERIOD.slug}.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[-2:] == ["stated_currency", "provisional"]  # the others stay put
    marked = [r for r in rows if r["provisional"] == "true"]
    assert [
        (r["change"], r["provider"], r["instance_type"], r["stated_currency"]) for r in marked
    ] == [("changed", "seeweb", "ECS1GPU9", "EUR")]
    assert marked[0]["new_price_per_hour"] == "1.541952"  # 1.44 EUR at the 17th's rate
    assert marked[0]["changed_at"].startswith("2026-11-18")
    # euro events of earlier days are at their own day's rate: final
    euros = [r for r in rows if r["stated_currency"] == "EUR"]
    assert len(euros) > 1 and {r["provisional"] for r in rows} == {"true", "false"}


def test_once_the_days_rate_is_loaded_nothing_is_said(sample_report):
    """The whole sample (its runs to Saturday the 21st, rates to Friday the 20th): the week's
    report says no day provisional, and its CSV marks none."""
    made, _ = sample_report
    data = made.data
    assert (data.provisional_changes, data.provisional_spot, data.provisional_history) == (
        None,
        None,
        None,
    )
    assert "provisional" not in made.html_path.read_text(encoding="utf-8")
    with made.csv_path.open(encoding="utf-8") as f:
        assert {r["provisional"] for r in csv.DictReader(f)} == {"false"}
