"""The kit's marketplace summary (extract._kit.market_medians), which vastai, tensordock,
simplepod and lium build their one record per market on."""

from __future__ import annotations

from chipcost.extract._kit import market_medians
from tests.helpers import record

H100 = {"instance_type": "1x H100", "chip": "H100-SXM", "chip_count": 1.0}


def offer(price: float, region: str = "us", host: str = "", **more) -> object:
    return record(**H100, region=region, price_per_hour=price, extra={"host": host}, **more)


def by_region(r) -> tuple[str, ...]:
    return (r.instance_type, r.region)


def hosts(same, cheapest) -> dict:
    return {"cheapest_host": cheapest.extra["host"], "hosts_seen": [r.extra["host"] for r in same]}


def test_one_record_per_market_at_the_median_with_its_spread_and_count():
    found = [offer(2.0, host="a"), offer(9.0, host="b"), offer(1.5, host="c"), offer(3.0, "eu")]
    eu, us = sorted(market_medians(found, by_region, "hosts", hosts), key=lambda r: r.region)
    assert us.region == "us" and us.price_per_hour == 2.0  # not the odd 9.0, not the 1.5
    assert us.extra == {
        "cheapest_host": "c",
        "hosts_seen": ["a", "b", "c"],
        "statistic": "median of hosts, per GPU-hour",
        "min": 1.5,
        "max": 9.0,
        "hosts": 3,
    }
    assert (eu.price_per_hour, eu.extra["hosts"]) == (3.0, 1)


def test_the_summary_is_the_cheapest_record_repriced():
    """Its sku and fields are the cheapest offer's; only the price and extra are the market's."""
    found = [offer(2.0, sku="dear"), offer(1.0, sku="cheap")]
    (summary,) = market_medians(found, by_region, "offers", lambda same, cheapest: {})
    assert summary.sku == "cheap" and summary.price_per_hour == 1.5


def test_an_even_market_takes_the_mean_of_its_middle_two_rounded_to_four_decimals():
    found = [offer(8.49 / 3), offer(1.0 / 3), offer(5.0), offer(0.1)]
    (summary,) = market_medians(found, by_region, "offers", lambda same, cheapest: {})
    assert summary.price_per_hour == round((1.0 / 3 + 8.49 / 3) / 2, 4) == 1.5817
    assert (summary.extra["min"], summary.extra["max"]) == (0.1, 5.0)
    (one,) = market_medians([offer(1.0 / 3)], by_region, "offers", lambda same, cheapest: {})
    assert one.extra["min"] == one.extra["max"] == one.price_per_hour == 0.3333


def test_the_kit_keeps_its_own_statistics_over_what_a_source_adds():
    (summary,) = market_medians(
        [offer(1.0), offer(3.0)], by_region, "offers", lambda same, cheapest: {"min": -1}
    )
    assert summary.extra["min"] == 1.0
