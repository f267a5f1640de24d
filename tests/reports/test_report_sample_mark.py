"""The `[sample data]` mark (subject, banner) says what the report shows rests on the bundled
sample's prices: the period's changes, the prices "Cheapest now" chooses among, or the current
prices cost per token is computed on. Not that a sample run came before: after `chipcost demo`
a week of failed live runs on prices collected live since is no sample data.

Two warehouses, one H100-SXM offer of aws-pricing-api in two regions:

- after demo: the sample week (2026-11-01 .. 11-07, sample runs), then a live run a day from
  11-08 to 11-21, every one failed (network unreachable);
- collected since: the same sample week, live runs failing 11-08 to 11-10, succeeding 11-11 to
  11-14 at new prices (every sample price moved from), failing 11-15 to 11-21.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from chipcost.core.runs import FAILED, OK
from chipcost.reports.build import write_report
from tests import warehouses
from tests.helpers import day, record, run_of

EAST, WEST = record(), record(region="us-west-2", sku="SKU2", price_per_hour=60.0)


def _archived(offers: list, n: int) -> list:
    """The offers as run n fetched them: their payload in its archive run (what marks a price
    the sample's)."""
    stamp = day(n).strftime("%Y-%m-%dT%H%M%SZ")
    return [replace(o, payload_ref=f"{stamp}/aws-pricing-api/0001.json.gz") for o in offers]


def _sample(n: int):
    return replace(run_of(_archived([EAST, WEST], n), day(n)), sample=True)


def _live(n: int, *, failed: bool = False):
    offers = [replace(EAST, price_per_hour=50.0), replace(WEST, price_per_hour=58.0)]
    run = run_of([] if failed else _archived(offers, n), day(n), status=FAILED if failed else OK)
    return replace(run, mode="live")


def _made(name: str, runs: list, path):
    return warehouses.made(name, lambda made: warehouses.of_runs(made, runs), path)


@pytest.fixture(scope="module")
def after_demo(tmp_path_factory):
    runs = [*map(_sample, range(7)), *(_live(n, failed=True) for n in range(7, 21))]
    return _made("report-sample-mark-demo", runs, tmp_path_factory.mktemp("demo") / "w.duckdb")


@pytest.fixture(scope="module")
def collected_since(tmp_path_factory):
    live = [_live(n, failed=not 10 <= n <= 13) for n in range(7, 21)]
    path = tmp_path_factory.mktemp("since") / "w.duckdb"
    return _made("report-sample-mark-since", [*map(_sample, range(7)), *live], path)


def _marked(db, out, since: date, until: date) -> tuple[bool, bool, object]:
    """Whether the report of since..until is marked sample in its subject and its banner."""
    made = write_report(db, out, since=since, until=until)
    page = made.html_path.read_text()
    banner = "SAMPLE DATA: these prices come from the bundled sample archive" in page
    return made.subject.startswith("[sample data] "), banner, made.data


def test_a_failed_week_on_live_prices_is_not_sample_data(collected_since, tmp_path):
    # Every run of the week failed; the prices it shows (cost per token) are the live runs'.
    subject, banner, data = _marked(
        collected_since, tmp_path, date(2026, 11, 15), date(2026, 11, 21)
    )
    assert data.cost_per_token is not None and data.cost_per_token.height
    assert (subject, banner) == (False, False)


def test_a_failed_week_on_the_samples_prices_is_sample_data(after_demo, tmp_path):
    # The same week after the demo: cost per token is still the sample's prices.
    subject, banner, data = _marked(after_demo, tmp_path, date(2026, 11, 15), date(2026, 11, 21))
    assert data.cost_per_token is not None and data.cost_per_token.height
    assert (subject, banner) == (True, True)


def test_the_sample_prices_cheapest_now_chooses_among_are_sample_data(collected_since, tmp_path):
    # Failed runs only, and cost per token is not shown (the period ended before the newest
    # prices), but "Cheapest now" at its end reads the sample's prices as current.
    subject, banner, data = _marked(
        collected_since, tmp_path, date(2026, 11, 8), date(2026, 11, 10)
    )
    assert data.cost_per_token is None and data.cheapest.height == 1
    assert (subject, banner) == (True, True)


def test_moves_from_the_samples_prices_are_sample_data(collected_since, tmp_path):
    # Live runs only, but every move of the week is from a sample price to a live one.
    subject, banner, data = _marked(
        collected_since, tmp_path, date(2026, 11, 11), date(2026, 11, 17)
    )
    assert data.moves.height == 2
    assert (subject, banner) == (True, True)
