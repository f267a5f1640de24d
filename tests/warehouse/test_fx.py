"""The one currency conversion (chipcost.warehouse.fx), on a real warehouse file: each price at
the ECB rate of its own day or the latest of the 7 days before it, the query's order kept."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.reads.your_prices import Rates, YourPrices
from chipcost.warehouse.db import connect, dict_rows
from chipcost.warehouse.fx import in_currency, index_in_currency, per_usd

# Thursday 5 and Friday 6 November 2026: USD 1.25 and 1.0 per euro, GBP 0.9 and 0.8.
RATES = [
    (date(2026, 11, 5), "USD", 1.25),
    (date(2026, 11, 5), "GBP", 0.9),
    (date(2026, 11, 6), "USD", 1.0),
    (date(2026, 11, 6), "GBP", 0.8),
]


@pytest.fixture
def con(tmp_path):
    con = connect(tmp_path / "fx.duckdb")
    seen = datetime(2026, 11, 7, tzinfo=UTC)
    for day, currency, per_eur in RATES:
        con.execute(
            "INSERT INTO fx_rates (day, currency, per_eur, source, observed_at, payload_ref) "
            "VALUES ($day, $currency, $per_eur, 'ecb-rates', $seen, 'a.xml')",
            {"day": day, "currency": currency, "per_eur": per_eur, "seen": seen},
        )
    yield con
    con.close()


# Prices of four days, in an order of the query's own (the costliest first).
PRICES = """
    SELECT * FROM (VALUES
        ('sunday', 10.0, 80.0, NULL::DOUBLE, DATE '2026-11-08'),
        ('thursday', 4.0, 32.0, 1000.0, DATE '2026-11-05'),
        ('late', 2.0, 16.0, NULL, DATE '2026-11-14'),
        ('early', 1.0, 8.0, NULL, DATE '2026-11-04')
    ) t(offer, price_per_chip_hour, price_per_hour, upfront, seen) ORDER BY price_per_chip_hour DESC
"""


def test_each_price_takes_the_rate_of_its_day_or_the_latest_of_the_week_before(con):
    sql, params = in_currency(con, PRICES, None, "GBP", day="seen")
    rows = {r["offer"]: r for r in dict_rows(con, sql, params)}
    # A Sunday's price: Friday's rate, 0.8 / 1.0 pounds a dollar.
    sunday = rows["sunday"]
    assert (sunday["usd_rate"], sunday["rate_day"], sunday["currency"]) == (
        0.8, date(2026, 11, 6), "GBP"
    )  # fmt: skip
    assert (sunday["price_per_chip_hour"], sunday["price_per_hour"]) == (8.0, 64.0)
    assert sunday["list_price_per_chip_hour_usd"] == 10.0 and sunday["upfront"] is None
    thursday = rows["thursday"]
    assert thursday["usd_rate"] == pytest.approx(0.72) and thursday["rate_day"] == date(2026, 11, 5)
    assert thursday["upfront"] == pytest.approx(720.0)
    # Nine days after the last rate, a day before the first: no rate, the day named.
    for late in ("late", "early"):
        assert rows[late]["usd_rate"] is None and rows[late]["price_per_chip_hour"] is None
        assert rows[late]["rate_day"] == rows[late]["seen"]


def test_the_query_keeps_its_order_and_its_own_columns(con):
    plain = dict_rows(con, PRICES)
    sql, params = in_currency(con, PRICES, None, "GBP", day="seen", drop=("seen",))
    converted = dict_rows(con, sql, params)
    assert [r["offer"] for r in converted] == [r["offer"] for r in plain]
    assert list(converted[0]) == [
        "offer", "price_per_chip_hour", "price_per_hour", "upfront",
        "list_price_per_chip_hour_usd", "currency", "usd_rate", "rate_day",
    ]  # fmt: skip


def test_us_dollars_leave_the_query_as_it_is(con):
    assert in_currency(con, PRICES, {"a": 1}, None, day="seen") == (PRICES, {"a": 1})


def test_a_corrected_rate_is_used_and_said(con):
    con.execute(
        "INSERT INTO fx_rates VALUES (DATE '2026-11-06', 'GBP', 0.7, 'ecb-rates', "
        "TIMESTAMPTZ '2026-11-08 00:00:00+00', 'b.xml')"
    )
    sql, params = in_currency(con, PRICES, None, "GBP", day="seen")
    sunday = next(r for r in dict_rows(con, sql, params) if r["offer"] == "sunday")
    assert sunday["usd_rate"] == pytest.approx(0.7)
    assert [(d, corrected) for d, _, _, corrected in per_usd(con, "GBP")] == [
        (date(2026, 11, 5), False),
        (date(2026, 11, 6), True),
    ]


def test_the_index_moves_with_the_rate(con):
    # A level of 10 dollars on Thursday and Friday, unchanged in dollars: in pounds it rose
    # from 7.2 to 8, as the dollar bought more pounds on Friday.
    index = """SELECT * FROM (VALUES
        (DATE '2026-11-06', 10.0, 0.0, NULL::DOUBLE, NULL::DOUBLE),
        (DATE '2026-11-05', 10.0, NULL, NULL, NULL)
    ) t(day, level, change_1d, change_7d, change_30d) ORDER BY day DESC"""
    sql, params = index_in_currency(index, {}, "GBP")
    friday, thursday = dict_rows(con, sql, params)
    assert friday["level"] == pytest.approx(8.0) and thursday["level"] == pytest.approx(7.2)
    assert friday["change_1d"] == pytest.approx(8.0 / 7.2 - 1)
    assert friday["change_7d"] is None and friday["rate_day"] == date(2026, 11, 6)


def test_a_price_without_a_rate_is_refused_naming_its_day(con):
    sql, params = in_currency(con, PRICES, None, "GBP", day="seen")
    rates = Rates("GBP", (date(2026, 11, 5), date(2026, 11, 6)), (0.72, 0.8))
    with pytest.raises(ChipcostError) as raised:
        YourPrices(rates=rates).rows(dict_rows(con, sql, params))
    said = str(raised.value)
    assert "no ECB reference rate for GBP on 2026-11-14 or the 7 days before it" in said
    assert "the ECB rates held run 2026-11-05 to 2026-11-06" in said


def test_your_prices_round_the_converted_prices_to_a_millionth_and_put_their_columns_last(con):
    sql, params = in_currency(con, PRICES, None, "GBP", day="seen")
    rows = [r for r in dict_rows(con, sql, params) if r["usd_rate"] is not None]
    rates = Rates("GBP", (date(2026, 11, 5), date(2026, 11, 6)), (0.72, 0.8))
    shown = YourPrices(rates=rates).rows(rows)
    assert [r["price_per_chip_hour"] for r in shown] == [8.0, 2.88]
    assert list(shown[0])[-4:] == ["list_price_per_chip_hour_usd", "currency", "usd_rate",
                                   "rate_day"]  # fmt: skip


def _euro_offer(con, price_per_hour: float, chip_count: float) -> None:
    """A euro price seen from Thursday 5 to Sunday 8 November (last seen on Sunday, whose
    rate is Friday's), in force all four days."""
    con.execute(
        """
        INSERT INTO price_history (provider, source, region, zone, instance_type, pricing_model,
            term, payment, plan, chip, chip_count, price_per_hour, upfront, currency, sku,
            source_url, valid_from, valid_to, last_seen_at, first_run_id, last_run_id,
            payload_ref)
        VALUES ('ovhcloud', 'ovhcloud', 'global', '', 'h100-380', 'on_demand', 'none', 'none',
            'default', 'H100-SXM', $chips, $price, NULL, 'EUR', 'h100-380', 'https://x',
            TIMESTAMPTZ '2026-11-05 06:00:00+00', NULL, TIMESTAMPTZ '2026-11-08 06:00:00+00',
            'r1', 'r4', 'p.json')
        """,
        {"price": price_per_hour, "chips": chip_count},
    )


def test_a_daily_read_takes_each_days_rate_not_the_last_sightings(con):
    # EUR 4.00 an hour for 2 chips, EUR 2 a chip-hour: 2.50 dollars on Thursday (1.25 a
    # euro), 2.00 on Friday to Sunday (1.0; the weekend takes Friday's), not 2.00 on every
    # day as the rate of the price's last sighting (Sunday's) would make it.
    from chipcost.warehouse.history import daily_cheapest
    from chipcost.warehouse.price_index import price_index

    _euro_offer(con, 4.0, 2)
    usd = daily_cheapest(con)
    assert dict(zip(usd["day"], usd["price_per_chip_hour"], strict=True)) == {
        date(2026, 11, 5): 2.5, date(2026, 11, 6): 2.0,
        date(2026, 11, 7): 2.0, date(2026, 11, 8): 2.0,
    }  # fmt: skip
    # In pounds, each day's dollars at that day's rate: EUR 2 at 0.9 and 0.8 pounds a euro.
    gbp = daily_cheapest(con, currency="GBP")
    assert [round(p, 9) for p in gbp["price_per_chip_hour"]] == [1.8, 1.6, 1.6, 1.6]
    # The index's level is the same day's dollars.
    levels = price_index(con, chips=["H100-SXM"], buckets=["on_demand"])
    assert dict(zip(levels["day"], levels["level"], strict=False))[date(2026, 11, 5)] == 2.5


def test_a_euro_price_change_is_its_own_at_the_rate_of_its_day(con):
    """EUR 4 a chip-hour until Friday 6 November, EUR 3 from then, last seen on Sunday: the
    change is -25% in any money, both prices at Friday's rate (1.0 dollar a euro). On
    4786b7d the old price took the rate of its last sighting (Thursday's 1.25) and the new
    one that of its own (each later day's), so the change read -40% and moved day by day."""
    row = """
        INSERT INTO price_history (provider, source, region, zone, instance_type, pricing_model,
            term, payment, plan, chip, chip_count, price_per_hour, upfront, currency, sku,
            source_url, valid_from, valid_to, end_reason, last_seen_at, first_run_id,
            last_run_id, payload_ref)
        VALUES ('seeweb', 'seeweb', 'it-fr2', '', 'ECS1GPU9', 'on_demand', 'none', 'none',
            'default', 'MI300X', 1, $price, NULL, 'EUR', 'ECS1GPU9', 'https://x', $start, $end,
            $reason, $seen, 'r', 'r', 'p.json')
    """
    thursday = datetime(2026, 11, 5, 6, tzinfo=UTC)
    friday, sunday = datetime(2026, 11, 6, 6, tzinfo=UTC), datetime(2026, 11, 8, 6, tzinfo=UTC)
    con.execute(row, {"price": 4.0, "start": thursday, "end": friday, "reason": "changed",
                      "seen": thursday})  # fmt: skip
    con.execute(row, {"price": 3.0, "start": friday, "end": None, "reason": None, "seen": sunday})
    [change] = dict_rows(con, "SELECT * FROM price_changes WHERE change = 'changed'")
    assert (change["old_price_per_hour"], change["new_price_per_hour"]) == (4.0, 3.0)
    assert change["change_pct"] == -25.0


@pytest.mark.parametrize(
    ("rates_to", "until", "said"),
    [
        # Wednesday 24 December 2025; Christmas and St Stephen's Day are TARGET closing days,
        # then the weekend: Monday the 29th is the first day whose own rate may still come.
        (date(2025, 12, 24), date(2025, 12, 30), (date(2025, 12, 29), date(2025, 12, 30))),
        # Thursday 2 April 2026; Good Friday, the weekend, Easter Monday: Tuesday the 7th.
        (date(2026, 4, 2), date(2026, 4, 8), (date(2026, 4, 7), date(2026, 4, 8))),
        # Thursday 30 April 2026; 1 May, then the weekend: Monday the 4th.
        (date(2026, 4, 30), date(2026, 5, 4), (date(2026, 5, 4),)),
    ],
)
def test_a_holiday_of_the_ecb_is_at_the_rate_before_it_for_good(tmp_path, rates_to, until, said):
    from dataclasses import replace

    from chipcost.warehouse.fx import provisional
    from tests import warehouses
    from tests.helpers import record, run_of

    seen = datetime.combine(rates_to, datetime.min.time(), UTC).replace(hour=6)
    euro = replace(record(), currency="EUR")
    path = warehouses.of_runs(tmp_path / "w.duckdb", [run_of([euro], seen)])
    with connect(path) as con:
        con.execute("UPDATE price_history SET last_seen_at = $until", {"until": until})
        con.execute(
            "INSERT INTO fx_rates VALUES ($day, 'USD', 1.1, 'ecb-rates', $seen, 'a.xml')",
            {"day": rates_to, "seen": seen},
        )
        found = provisional(con, rates_to, until)
    assert found is not None
    assert (found.days, found.rate_day) == (said, rates_to)
