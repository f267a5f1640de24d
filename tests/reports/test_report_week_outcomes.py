"""What a week's collections came to, said in the report's headline and subject: a week whose
every run failed is no quiet week, a price back where it began is no 0% move, a failed run
among successes is named in Health, and a day still running has no end yet.

One warehouse, four weeks of daily runs at 06:00 UTC (three sources; aws-spot skipped, for want
of credentials, until the last week):

- week of 2026-10-04: H100-SXM on demand us-east-1 (aws-pricing-api) at $1.39 per chip-hour,
  $1.49 on 10-06, $1.19 on 10-08, back to $1.39 on 10-09: its only move;
- week of 2026-10-11: it goes to $1.29 on 10-12 and back on 10-14; us-west-2's price falls
  $12.00 -> $10.80 (-10%) on 10-13; aws-bulk fails on 10-15 (format drift), ok every other day;
- week of 2026-10-18: aws-bulk fails every day (network unreachable); L4 on demand goes
  $0.80 -> $0.84 (+5%) on 10-19, nothing moves from 10-21;
- week of 2026-10-25: one run, on 10-26, every source failed (network unreachable).
"""

from __future__ import annotations

import email
import email.policy
import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from chipcost.core.runs import FAILED, SKIPPED
from chipcost.reports.build import deliver, write_report
from chipcost.reports.data import gather
from chipcost.reports.period import Period, ReportOptions
from chipcost.reports.text import headline, health_line, text_body
from chipcost.warehouse.db import connect
from tests import smtp_server, warehouses
from tests.report_warehouse import offer, run, source
from tests.smtp_server import USER, Inbox

FIRST = -28  # 2026-10-04, in days from tests.helpers.DAY0 (2026-11-01 06:00 UTC)
DRIFT = (
    "aws-bulk: the price list is not in the shape its parser expects: no column PricePerUnit "
    "in offers.csv; format drift (aws-bulk, offers.csv, terms[]): new HourlyRate, "
    "Interconnect, MemoryBandwidth, NetworkPerformance, StorageType; missing Price, "
    "PricePerUnit"
)
UNREACHABLE = "network unreachable: could not connect to the provider"
ZERO = re.compile(r"(?<![\d.])[+−]?0(\.0)?%")  # a move of 0%, not the 0% of 10%


def _x(n: int) -> float:
    """H100-SXM us-east-1's price per chip-hour on day n (8 chips an instance)."""
    swings = {-26: 1.49, -25: 1.49, -24: 1.19, -20: 1.29, -19: 1.29}
    return swings.get(n, 1.39)


def _runs() -> list:
    runs = []
    for n in range(FIRST, FIRST + 21):
        api = [
            offer("A", 8 * _x(n)),
            offer("B", 96.0 if n < -19 else 86.4),  # 12.00 -> 10.80 per chip-hour
            offer("D", 0.80 if n < -13 else 0.84),  # +5% on 10-19
        ]
        bulk_fails = n == -17 or n >= -14
        bulk = source(
            "aws-bulk",
            [] if bulk_fails else [offer("C", 20.0, "aws-bulk")],
            n,
            status=FAILED if bulk_fails else "ok",
            message=(DRIFT if n == -17 else UNREACHABLE) if bulk_fails else "1 records",
        )
        spot = source("aws-spot", [], n, status=SKIPPED, message="no AWS credentials")
        runs.append(run(n, [source("aws-pricing-api", api, n), bulk, spot]))
    failed = [
        source(name, [], -6, status=FAILED, message=UNREACHABLE)
        for name in ("aws-pricing-api", "aws-bulk", "aws-spot")
    ]
    return [*runs, run(-6, failed)]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("outcomes")
    return warehouses.made(
        "report_week_outcomes", lambda path: warehouses.of_runs(path, _runs()), folder / "w.duckdb"
    )


def _report(db: Path, out: Path, since: date, until: date):
    return write_report(db, out, since=since, until=until)


def _shown(html: str) -> str:
    """The text a reader sees of a page or body."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).replace("&#x27;", "'")


def _section(page: str, key: str) -> str:
    return page.split(f'id="{key}"')[1].split("</section>")[0]


def test_a_week_whose_every_run_failed_says_no_prices_were_collected(db, tmp_path):
    """On c96d2408 it was 'No price changes: week of 2026-10-25', 'No offer moved in price.
    0 new offers, 0 withdrawn.'"""
    made = _report(db, tmp_path / "r", date(2026, 10, 25), date(2026, 10, 31))
    assert made.subject == "No prices collected: week of 2026-10-25"
    said = (
        "No prices collected: no source succeeded in the week's 1 run (3 sources; Health says "
        "why), so no price could be seen to move."
    )
    assert headline(made.data) == said
    page = made.html_path.read_text()
    assert said in _shown(page) and "No offer moved in price" not in page
    changes = _shown(_section(page, "changes"))
    assert "No source succeeded from 2026-10-25 to 2026-10-31 (Health says why)" in changes
    # The e-mail, sent to a real SMTP server, says so in its subject and both bodies.
    box = Inbox()
    controller = smtp_server.start(box)
    env = {"HOST": "127.0.0.1", "PORT": str(controller.port), "TLS": "none", "FROM": USER}
    with pytest.MonkeyPatch.context() as patch:
        for key in ("USER", "PASSWORD", "CA_FILE"):
            patch.delenv(f"CHIPCOST_SMTP_{key}", raising=False)
        for key, value in env.items():
            patch.setenv(f"CHIPCOST_SMTP_{key}", value)
        try:
            deliver(made, ["finops@example.com"], dry_run=False)
        finally:
            controller.stop()
    (got,) = box.messages
    message = email.message_from_bytes(got.content, policy=email.policy.default)
    assert message["Subject"] == "No prices collected: week of 2026-10-25"
    assert said in message.get_body(("plain",)).get_content()
    assert said in _shown(message.get_body(("html",)).get_content())


def test_a_quiet_span_with_a_source_not_collected_says_among_which(db, tmp_path):
    """aws-bulk failed every run from 10-18: 'No price changes' is said of the prices watched
    only. aws-spot, skipped every run for want of credentials, is not set up to be collected
    here: it is counted in neither (Health lists it)."""
    made = _report(db, tmp_path / "r", date(2026, 10, 21), date(2026, 10, 24))
    assert made.subject == (
        "No price changes among 1 of 2 sources collected: 2026-10-21 to 2026-10-24"
    )
    assert headline(made.data) == (
        "No price changes among the 1 source collected; 1 of 2 sources not collected from "
        "2026-10-21 to 2026-10-24 (aws-bulk). 0 new offers, 0 withdrawn."
    )
    changes = _shown(_section(made.html_path.read_text(), "changes"))
    assert "No offer of the 1 source collected changed price from 2026-10-21 to 2026-10-24" in (
        changes
    )


def test_moves_among_the_sources_collected_say_which_were_not(db, tmp_path):
    made = _report(db, tmp_path / "r", date(2026, 10, 18), date(2026, 10, 24))
    assert made.subject == (
        "1 offer moved, L4 on demand +5%; only 1 of 2 sources collected: week of 2026-10-18"
    )
    assert headline(made.data) == (
        "1 offer moved in price (1 price change in all): 0 down, 1 up. 0 new offers, 0 "
        "withdrawn. 1 of 2 sources not collected this week (aws-bulk): their prices are not in "
        "these counts."
    )


def test_every_source_collected_adds_nothing(db, tmp_path):
    # aws-spot skipped all week (no credentials) is not a source missed.
    made = _report(db, tmp_path / "r", date(2026, 10, 4), date(2026, 10, 10))
    assert made.data.not_collected == [] and "collected" not in made.subject
    assert "not collected" not in headline(made.data)


def test_a_price_back_where_it_began_is_said_with_its_range(db, tmp_path):
    """On c96d2408: '1 offer moved, H100-SXM on demand 0%' and '0%  H100-SXM: $1.3900 ->
    $1.3900 est.' for a price that went +7%, then down to $1.19, and back."""
    made = _report(db, tmp_path / "r", date(2026, 10, 4), date(2026, 10, 10))
    back = "back at $1.3900 (low $1.1900 on 2026-10-08, high $1.4900 on 2026-10-06)"
    assert made.subject == f"1 offer moved, H100-SXM on demand {back}: week of 2026-10-04"
    moved = [line for line in text_body(made.data, 10).splitlines() if "H100-SXM:" in line]
    assert moved == [f"    back  H100-SXM: {back}"]
    page = made.html_path.read_text()
    changes = _shown(_section(page, "changes"))
    assert back in changes and not ZERO.search(changes)
    # The folded table has the range where the change would be +$0.0000.
    assert "low $1.1900 on 2026-10-08, high $1.4900 on 2026-10-06" in changes
    assert "+$0.0000" not in changes
    # The e-mail's list says it too.
    mail = deliver(made, [], dry_run=True).eml_path.read_bytes()
    message = email.message_from_bytes(mail, policy=email.policy.default)
    body = _shown(message.get_body(("html",)).get_content())
    assert back in body and not ZERO.search(body)


def test_a_real_net_move_leads_a_price_back_where_it_began(db, tmp_path):
    made = _report(db, tmp_path / "r", date(2026, 10, 11), date(2026, 10, 17))
    assert made.subject == "2 offers moved, H100-SXM on demand −10%: week of 2026-10-11"
    lines = text_body(made.data, 10).splitlines()
    moved = [line for line in lines if "H100-SXM:" in line]
    assert moved == [
        "    −10%  H100-SXM: $12.0000 -> $10.8000",
        "    back  H100-SXM: back at $1.3900 (low $1.2900 on 2026-10-12)",
    ]
    assert headline(made.data).startswith(
        "2 offers moved in price (3 price changes in all): 1 down, 0 up, 1 back where it was."
    )


def test_health_names_the_last_failure_of_a_source_whose_last_run_succeeded(db, tmp_path):
    """On c96d2408 aws-bulk read '6 of 7 ok', last run 'ok: 1 records', and nothing of the
    run of 10-15 that failed for format drift."""
    made = _report(db, tmp_path / "r", date(2026, 10, 11), date(2026, 10, 17))
    bulk = made.data.health.filter(source="aws-bulk").row(0, named=True)
    assert (bulk["ok_runs"], bulk["runs"], bulk["last_status"]) == (6, 7, "ok")
    health = _shown(_section(made.html_path.read_text(), "health"))
    assert "Last failure in the period (UTC day: why)" in health
    # Its reason: what changed in the provider's format, which the error follows from.
    shortened = (
        "2026-10-15: format drift (aws-bulk, offers.csv, terms[]): new HourlyRate, "
        "Interconnect, MemoryBandwidth, NetworkPerformance…"
    )
    assert shortened in health and DRIFT not in health
    # A source with no failure in the period has none named.
    assert health.count("2026-10-15:") == 1


def test_a_day_still_running_is_said_as_of_the_report_not_at_its_end(db):
    """On c96d2408 today's report said 'at the end of' today, a day not yet ended."""
    con = connect(db, read_only=True)
    try:
        now = datetime(2026, 10, 24, 9, 30, tzinfo=UTC)
        data = gather(con, Period(date(2026, 10, 18), date(2026, 10, 24)), ReportOptions(), now=now)
        ended = gather(con, Period(date(2026, 10, 18), date(2026, 10, 24)), ReportOptions())
    finally:
        con.close()
    line = health_line(data)
    assert (
        "as of 2026-10-24 09:30 UTC, 2 of 3 had not succeeded in the 2 days before (aws-bulk, "
        "aws-spot)" in line
    )
    assert "at the end of 2026-10-24" not in line
    # A period whose last day has ended keeps its end.
    assert "at the end of 2026-10-24, 2 of 3 had not succeeded" in health_line(ended)


def test_a_source_that_did_not_run_in_the_period_is_not_a_source_missed(tmp_path):
    """aws-bulk ran on 10-22 and not since (retired, or left out by `collect --source`): the
    week of 10-26, in which aws-pricing-api alone ran and succeeded, is a quiet week of its one
    source, not 'only 1 of 2 sources collected', week after week (Health lists aws-bulk
    stale). On the first cut of 0fbe8c02 every source ever run counted as meant."""
    runs = [
        run(-10, [source("aws-pricing-api", [offer("A", 11.12)], -10),
                  source("aws-bulk", [offer("C", 20.0, "aws-bulk")], -10)]),
        run(-3, [source("aws-pricing-api", [offer("A", 11.12)], -3)]),
    ]  # fmt: skip
    db = warehouses.of_runs(tmp_path / "w.duckdb", runs)
    made = _report(db, tmp_path / "r", date(2026, 10, 26), date(2026, 11, 1))
    assert made.data.not_collected == []
    assert "only" not in made.subject and "not collected" not in headline(made.data)
    assert made.subject.startswith("No price changes")


def test_a_move_of_a_thousandth_of_a_percent_is_a_move_not_a_price_back():
    """change_pct is rounded to a hundredth: a price from $30.256548 to $30.255387 an hour
    (-0.004%) was said 'back at' a price it was not at, and counted back, neither down nor up."""
    import polars as pl

    from chipcost.reports.moves import with_jumps

    moves = pl.DataFrame({
        "old_price_per_hour": [30.256548, 11.12],
        "new_price_per_hour": [30.255387, 11.12],
        "low_price_per_hour": [30.255387, 9.52],
        "high_price_per_hour": [30.256548, 11.92],
        "change_pct": [0.0, 0.0],
    })  # fmt: skip
    assert with_jumps(moves)["back"].to_list() == [False, True]


def test_no_prices_collected_counts_the_sources_meant_to_be(tmp_path):
    """aws-spot skipped (no credentials) beside two sources failed: 'no source succeeded ...
    (2 sources', as every other line counts them (it said 3, counting the one not set up)."""
    runs = [
        run(-10, [source("aws-pricing-api", [offer("A", 11.12)], -10)]),
        run(-3, [
            source("aws-pricing-api", [], -3, status=FAILED, message=UNREACHABLE),
            source("aws-bulk", [], -3, status=FAILED, message=UNREACHABLE),
            source("aws-spot", [], -3, status=SKIPPED, message="no AWS credentials"),
        ]),
    ]  # fmt: skip
    db = warehouses.of_runs(tmp_path / "w.duckdb", runs)
    made = _report(db, tmp_path / "r", date(2026, 10, 26), date(2026, 11, 1))
    assert made.subject.startswith("No prices collected")
    assert "in the week's 1 run (2 sources; Health says why)" in headline(made.data)
