"""daily_cheapest: the cheapest per-chip price per chip, pricing model and UTC day."""

from __future__ import annotations

from datetime import date

import pytest

from chipcost.warehouse.db import connect
from chipcost.warehouse.history import HISTORY_COLUMNS, daily_cheapest
from tests.report_warehouse import build


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    path = build(tmp_path_factory.mktemp("history") / "w.duckdb")
    connection = connect(path, read_only=True)
    yield connection
    connection.close()


def series(frame, chip: str, model: str) -> dict[date, float]:
    rows = frame.filter((frame["chip"] == chip) & (frame["pricing_model"] == model))
    return dict(zip(rows["day"].to_list(), rows["price_per_chip_hour"].to_list(), strict=True))


def test_cheapest_on_demand_per_day_follows_the_moves(con):
    frame = daily_cheapest(con, chips=["H100-SXM"])
    assert tuple(frame.columns) == HISTORY_COLUMNS
    # A (us-east-1) moved 80 -> 72 on 11-04 and -> 74 on 11-06; B and aws-bulk stay dearer.
    assert series(frame, "H100-SXM", "on_demand") == {
        date(2026, 11, 1): 10.0,
        date(2026, 11, 2): 10.0,
        date(2026, 11, 3): 10.0,
        date(2026, 11, 4): 9.0,
        date(2026, 11, 5): 9.0,
        date(2026, 11, 6): 9.25,
        date(2026, 11, 7): 9.25,
    }
    cheapest = frame.filter(frame["day"] == date(2026, 11, 4)).row(0, named=True)
    assert (cheapest["region"], cheapest["source"]) == ("us-east-1", "aws-pricing-api")
    # 11-04: A from the API, A from aws-bulk, B from each.
    assert cheapest["offers"] == 4


def test_offers_start_and_end_on_their_days(con):
    frame = daily_cheapest(con)
    # E (spot) first seen on 11-03; D (L4) withdrawn on 11-07 at 06:00, so last in force 11-06.
    assert min(series(frame, "H100-SXM", "spot")) == date(2026, 11, 3)
    assert max(series(frame, "L4", "on_demand")) == date(2026, 11, 6)


def test_filters_and_window(con):
    frame = daily_cheapest(
        con,
        chips=["h100-sxm"],
        regions=["US-WEST-2"],
        models=["on_demand"],
        since=date(2026, 11, 4),
        until=date(2026, 11, 5),
    )
    assert frame["day"].to_list() == [date(2026, 11, 4), date(2026, 11, 5)]
    # B moved 96 -> 100.8 on 11-05 in the API; aws-bulk had it at 100.8 all along.
    assert frame["price_per_chip_hour"].to_list() == [12.0, 12.6]
    assert daily_cheapest(con, providers=["nobody"]).is_empty()
