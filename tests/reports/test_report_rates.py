"""The rates a report's euro prices are in: "Cheapest now" of a past period at the rate of its
last day, the rate `chipcost history` and the period's changes convert that day at."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime

import pytest

from chipcost.reports.data import gather
from chipcost.reports.notify import price_alerts
from chipcost.reports.period import Period, ReportOptions
from chipcost.warehouse.db import connect
from tests import warehouses
from tests.cli_runner import chipcost

# A week of the sample ending before its newest run: Seeweb's MI300X (1.44 EUR an hour since
# the 18th, seen last on the 21st) is MI300X's cheapest on demand at its end.
EARLIER = Period(date(2026, 11, 12), date(2026, 11, 18))


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return warehouses.sample(tmp_path_factory.mktemp("rates") / "s.duckdb")


@pytest.fixture(scope="module")
def con(sample):
    connection = connect(sample, read_only=True)
    yield connection
    connection.close()


def _history_price(sample, chip: str, until: date, currency: str = "USD") -> float:
    """`chipcost history`'s on demand price of `chip` on the day `until`, in `currency`."""
    ran = chipcost(
        "history", "--chip", chip, "--until", str(until), "--pricing-model", "on_demand",
        "--currency", currency, "--format", "csv", "--db", str(sample),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    rows = [r for r in csv.DictReader(io.StringIO(ran.stdout)) if r["day"] == str(until)]
    (row,) = rows
    return float(row["price_per_chip_hour"])


def test_cheapest_now_of_a_past_period_is_at_the_rate_of_its_last_day(sample, con):
    """Of the report of the week to 2026-11-18, "Cheapest now" said MI300X $1.5522 at seeweb:
    1.44 EUR at the rate of the 20th (the day it was last seen), where What changed and
    `history --until 2026-11-18` said $1.5463 (the 18th's rate)."""
    data = gather(con, EARLIER, ReportOptions())
    cheapest = data.cheapest.filter(chip="MI300X", bucket="on_demand").row(0, named=True)
    assert cheapest["provider"] == "seeweb"
    history = _history_price(sample, "MI300X", EARLIER.until)
    assert cheapest["price_per_chip_hour"] == pytest.approx(history, abs=1e-9)
    assert round(history, 6) == 1.546272  # 1.44 EUR x 1.0738 USD per euro (ECB, 2026-11-18)
    moved = data.moves.filter(provider="seeweb", instance_type="ECS1GPU9").row(0, named=True)
    assert moved["new_price_per_chip_hour"] == pytest.approx(history, abs=1e-9)


def test_cheapest_now_in_euros_of_a_past_period_is_at_the_rate_of_its_last_day(sample, con):
    """In euros, a dollar price of the week to 2026-11-18 was converted at the rate of the
    day it was last seen (the 20th's for the 21st), its note naming the rates of 2026-11-14
    to 2026-11-20; it is the 18th's, as `history --currency EUR` says that day."""
    data = gather(con, EARLIER, ReportOptions(currency="EUR"))
    cheapest = data.cheapest.filter(chip="H100-SXM", bucket="on_demand").row(0, named=True)
    history = _history_price(sample, "H100-SXM", EARLIER.until, "EUR")
    assert (cheapest["price_per_chip_hour"], cheapest["rate_day"]) == (history, EARLIER.until)
    (rates,) = [line for line in data.yours if "ECB" in line]
    assert "1 USD = 0.9313 EUR (ECB, 2026-11-18)" in rates


def test_an_unmoved_euro_price_is_no_new_cheapest_because_the_euro_fell(con):
    """Seeweb's MI300X held at 1.44 EUR from the 18th to the 20th while the euro fell from
    1.0738 to 1.0712 dollars: the alerts compare the two moments at one rate, so no 'new
    cheapest MI300X on demand' of $1.5425 (was $1.5463 at seeweb) is sent."""
    since, until = datetime(2026, 11, 19, tzinfo=UTC), datetime(2026, 11, 20, tzinfo=UTC)
    alerts, _ = price_alerts(con, since, until, 5.0)
    assert not [a for a in alerts if a.key.startswith("cheapest|MI300X|on_demand|")]


# The sample's first three runs (Saturday 2026-11-14 to Monday the 16th) hold the ECB's rates
# up to Friday the 13th: Monday's is published that afternoon, loaded by Tuesday's run.
MONDAY = Period(date(2026, 11, 10), date(2026, 11, 16))
PROVISIONAL = (
    "The euro prices of 2026-11-16 are provisional: at the ECB rate of 2026-11-13, the newest "
    "loaded, as the next working day's is not yet (the ECB publishes a working day's rate "
    "about 16:00 CET, after a morning's run); made again once a later run has loaded it "
    "(`chipcost collect --source ecb-rates`), the figures are final."
)


def test_a_day_at_an_earlier_rate_than_its_own_is_said_provisional(tmp_path_factory, con):
    """A report whose last day's rate was not yet loaded (Monday's, made by Monday morning's
    run) said nothing of it: its index and Cheapest now were restated by a report made again
    after Tuesday's run (H100-SXM's index of the 16th 3.177915 to 3.178865). The weekend's
    prices, at Friday's rate for good, are not provisional."""
    from chipcost.reports import digest, sections

    path = warehouses.sample(tmp_path_factory.mktemp("monday") / "w.duckdb", first=3)
    early = connect(path, read_only=True)
    try:
        data = gather(early, MONDAY, ReportOptions())
    finally:
        early.close()
    assert data.provisional_index.days == (date(2026, 11, 16),)  # not the 14th nor the 15th
    assert PROVISIONAL in sections.index(data).explain
    assert PROVISIONAL in sections.cheapest(data).explain
    assert PROVISIONAL in digest.cheapest_now(data).explain
    # Made again once Monday's rate is loaded (the whole sample): final, nothing said.
    later = gather(con, MONDAY, ReportOptions())
    assert (later.provisional_index, later.provisional_now) == (None, None)
    assert "provisional" not in sections.index(later).explain
    assert "provisional" not in sections.cheapest(later).explain
    levels = [d.index.filter(chip="H100-SXM")["level"][0] for d in (data, later)]
    assert levels == [pytest.approx(3.177915025), pytest.approx(3.17886493)]
