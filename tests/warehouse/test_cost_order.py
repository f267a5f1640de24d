"""The order `chipcost cost` ranks in: the warehouse's ORDER, which the ranking keeps.

chipcost.transform.cost_fit sorts only by "holds the model or not" and relies on cost_rows for
the rest (cheapest first, then a stable tie-break, an empty value first): these tests hold the
warehouse's order to that rule, ties included.
"""

from __future__ import annotations

from chipcost.transform.cost_fit import choose, with_fit
from chipcost.warehouse.cost_per_token import GROUP, ORDER, cost_rows
from chipcost.warehouse.db import connect
from tests.helpers import loaded_warehouse, record


def _offers() -> list:
    """Ties on price across regions, zones, providers' instance types and payments."""
    made = []
    for n, (region, zone) in enumerate(
        [("us-west-2", ""), ("us-east-1", "us-east-1b"), ("us-east-1", ""), ("eu-west-1", "")]
    ):
        made.append(record(region=region, zone=zone, sku=f"P{n}"))
        made.append(record(region=region, zone=zone, sku=f"Q{n}", instance_type="p5e.48xlarge",
                           chip="H200", price_per_hour=55.04))  # fmt: skip
        made.append(record(region=region, zone=zone, sku=f"R{n}", pricing_model="reserved",
                           term="1yr", payment="no_upfront", plan="standard",
                           price_per_hour=40.0))  # fmt: skip
        made.append(record(region=region, zone=zone, sku=f"S{n}", pricing_model="reserved",
                           term="1yr", payment="all_upfront", plan="standard",
                           price_per_hour=40.0))  # fmt: skip
    return made


def _rule(row: dict) -> tuple:
    """ORDER, each value ascending, an empty (NULL) value before any other."""
    return tuple((False, "") if row[c] is None else (True, row[c]) for c in ORDER)


def test_every_offer_comes_in_order_ties_included(tmp_path):
    path = loaded_warehouse(tmp_path / "w.duckdb", _offers())
    con = connect(path, read_only=True)
    try:
        every = cost_rows(con, "llama-3-70b", "inference", all_offers=True)
        cheapest = cost_rows(con, "llama-3-70b", "inference")
    finally:
        con.close()
    assert len({r["usd_per_million_tokens"] for r in every}) < len(every)  # ties on price
    assert every == sorted(every, key=_rule)
    # The warehouse's one row per chip, pricing model and term is the ranking's choice.
    chosen = choose(with_fit(every, None, "inference"), chips=None, all_offers=False)
    assert [_rule(r) for r in chosen] == [_rule(r) for r in cheapest]
    assert len({tuple(r[c] for c in GROUP) for r in chosen}) == len(chosen) > 2


def test_those_that_cannot_hold_the_model_go_last_in_the_same_order(tmp_path):
    path = loaded_warehouse(tmp_path / "w.duckdb", _offers())
    con = connect(path, read_only=True)
    try:
        every = cost_rows(con, "llama-3-70b", "training", all_offers=True)
    finally:
        con.close()
    # 70.6B parameters need ~1.1 TB of training state: more than one 8-GPU instance holds.
    fitted = with_fit(every, 70.6e9, "training")
    ranked = choose(fitted, chips=None, all_offers=True)
    assert {r["fits"] for r in ranked} == {False}
    assert ranked == sorted(every, key=_rule)
    half = with_fit(every, 8e9, "training")  # 8B: 128 GB, held by every instance here
    assert choose(half, chips=None, all_offers=True) == sorted(every, key=_rule)
