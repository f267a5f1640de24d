"""A price is its amount and its currency: a provider that restates an offer in another
currency at the same number has changed its price, and history says so."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chipcost.core.record import STORED_CURRENCIES
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of

SWITCHES = [(a, b) for a in STORED_CURRENCIES for b in STORED_CURRENCIES if a != b]


def history(con) -> list[tuple]:
    return con.execute(
        "SELECT price_per_hour, upfront, currency, valid_from, valid_to, end_reason "
        "FROM price_history ORDER BY valid_from"
    ).fetchall()


@pytest.mark.parametrize(("before", "after"), SWITCHES)
@pytest.mark.parametrize(("price", "upfront"), [(2.8, None), (55.04, None), (1.5, 9000.0)])
def test_a_change_of_currency_at_the_same_number_closes_the_row(con, before, after, price, upfront):
    offer = record(price_per_hour=price, upfront=upfront)
    load_run(con, run_of([replace(offer, currency=before)], day(0)))
    load_run(con, run_of([replace(offer, currency=after)], day(1)))
    assert history(con) == [
        (price, upfront, before, day(0), day(1), "changed"),
        (price, upfront, after, day(1), None, None),
    ]


@pytest.mark.parametrize("currency", STORED_CURRENCIES)
def test_the_same_currency_and_number_again_is_no_change(con, currency):
    offer = record(price_per_hour=2.8, currency=currency)
    for n in range(3):
        load_run(con, run_of([offer], day(n)))
    assert history(con) == [(2.8, None, currency, day(0), None, None)]
