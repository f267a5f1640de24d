"""The explorer dates its prices as every read does: by each source's last successful run, never
by a run that failed or one dated ahead of the clock, and names the sources stale, dated ahead
or whose latest attempt failed, on the page and in offers.json."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from chipcost.core.runs import FAILED
from chipcost.reports.site import write_site
from tests.cli_runner import chipcost
from tests.helpers import day, record, run_of
from tests.reports.test_report_output import warehouse


def _words(html: str) -> str:
    return " ".join(html.replace("&#x27;", "'").replace("<b>", "").replace("</b>", "").split())


def test_a_failed_run_never_makes_older_prices_look_new(tmp_path):
    db = warehouse(
        tmp_path / "w.duckdb",
        [run_of([record()], day(0)), run_of([record()], day(9), status=FAILED)],
    )
    write_site(db, tmp_path / "out", stale_days=2)
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    # the failed run of day 9 dates nothing: the prices are those of day 0, as `prices` says
    assert data["as_of"] == "2026-11-01 06:00 UTC"
    said = " ".join(chipcost("prices", "--db", str(db)).stdout.split())
    assert "prices as of 2026-11-01 06:00 UTC" in said
    assert data["stale"] == ["aws-pricing-api"] and data["dated_ahead"] == []
    (source,) = data["sources"]
    assert source["last_success"] == "2026-11-01 06:00 UTC"
    assert source["latest_attempt"] == FAILED and source["stale"] is True
    page = _words((tmp_path / "out" / "index.html").read_text())
    assert "prices as of 2026-11-01 06:00 UTC" in page and "2026-11-10" not in page.split("made")[0]
    failed = "latest attempt not successful (2026-11-10 06:00 UTC) for aws-pricing-api (failed)"
    assert failed in page
    assert "stale when this page was made" in page
    assert "no successful run in 2 days, CHIPCOST_STALE_DAYS): aws-pricing-api" in page


def test_a_run_dated_ahead_of_the_clock_is_named_with_the_way_out(tmp_path):
    ahead = datetime(2099, 1, 1, 6, tzinfo=UTC)
    db = warehouse(
        tmp_path / "w.duckdb",
        [run_of([record()], day(0)), run_of([record(price_per_hour=50.0)], ahead, run_id="r99")],
    )
    write_site(db, tmp_path / "out")
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    assert data["dated_ahead"] == ["aws-pricing-api"] and data["sources"][0]["dated_ahead"]
    page = _words((tmp_path / "out" / "index.html").read_text())
    assert "dated ahead: aws-pricing-api's prices are from run r99, stamped 2099-01-01" in page
    assert "chipcost remove-run r99" in page
    # the history charts end today, not on the run's day to come
    assert "2099" not in page.split('id="history"')[1]
