"""The report's moves carry the currency their provider states their prices in
(`stated_currency`, of the moves' own rows of the history), and the report asks which euro
days are provisional of those moves alone: on 710db2b4 it scanned price_history once more
for the offers priced in euros over the moves' days, though the moves' rows held it.

The sample's first five runs: seeweb's MI300X moved on Wednesday 2026-11-18 in euros, the
ECB's rates loaded up to the 17th (tests/reports/test_report_provisional_moves.py says what the
report says of it)."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from chipcost.reports import data as report_data
from chipcost.reports.period import Period, ReportOptions
from chipcost.warehouse.db import connect
from tests import warehouses

PERIOD = Period(date(2026, 11, 12), date(2026, 11, 18))


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = warehouses.sample(tmp_path_factory.mktemp("moves-currency") / "w.duckdb", first=5)
    connection = connect(db, read_only=True)
    yield connection
    connection.close()


def test_each_move_says_the_currency_its_provider_states_it_in(con):
    moves = report_data.gather(con, PERIOD, ReportOptions()).moves
    euros = moves.filter(pl.col("stated_currency") == "EUR")
    assert euros.select("provider", "instance_type").rows() == [("seeweb", "ECS1GPU9")]
    assert set(moves.filter(pl.col("provider") != "seeweb")["stated_currency"]) == {"USD"}


def test_the_provisional_moves_are_those_the_moves_rows_say_are_in_euros(con, monkeypatch):
    said = report_data.gather(con, PERIOD, ReportOptions()).provisional_changes
    assert said is not None and said.days == (date(2026, 11, 18),)
    # The same moves, their rows said to be in US dollars: nothing is provisional, as no other
    # read of the history decides it (the old scan found seeweb's euro rows and said the 18th).
    real = report_data.price_moves

    def in_dollars(*args, **kwargs):
        return real(*args, **kwargs).with_columns(stated_currency=pl.lit("USD"))

    monkeypatch.setattr(report_data, "price_moves", in_dollars)
    data = report_data.gather(con, PERIOD, ReportOptions())
    assert data.provisional_changes is None and data.provisional_spot is None
    assert data.moves.filter(provider="seeweb", instance_type="ECS1GPU9").height == 1
