"""A read ranks a model's figures at a point once (warehouse/cost_per_token.py ranked_at): the
figures it lists and the offers it prices come from one ranking, the same rows the views give;
a writer ranks what it has just written."""

from __future__ import annotations

from chipcost.core.catalog import canonical_chips
from chipcost.transform.throughput_figures import figures_from_rows
from chipcost.warehouse.cost_per_token import (
    DEFAULT_POINT,
    Point,
    cost_rows,
    figures,
    interruption_counts,
    ranked_at,
)
from chipcost.warehouse.db import connect
from chipcost.warehouse.throughput_store import add_user_figures
from tests.helpers import loaded_warehouse, record

MODEL = "llama-3-70b"
# what cost_rows and cost_per_token_at both give, to set them side by side
SAME = ("chip", "provider", "region", "zone", "instance_type", "pricing_model", "term",
        "payment", "plan", "throughput_id", "usd_per_million_tokens")  # fmt: skip


def _warehouse(tmp_path):
    return loaded_warehouse(
        tmp_path / "w.duckdb",
        [
            record(sku="A"),
            record(sku="B", instance_type="p5e.48xlarge", chip="H200", price_per_hour=55.04),
            record(sku="C", pricing_model="spot", price_per_hour=30.0),
        ],
    )


def _ranked_tables(con) -> list[str]:
    return [
        name
        for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE temporary ORDER BY 1"
        ).fetchall()
    ]


def _view_rows(con, arguments: str) -> list[tuple]:
    """The model's inference rows of cost_per_token_at(arguments), as SAME names them."""
    return sorted(
        con.execute(
            f"SELECT {', '.join(SAME)} FROM cost_per_token_at({arguments}) "
            f"WHERE model = '{MODEL}' AND workload = 'inference'"
        ).fetchall()
    )


def test_a_read_ranks_once_per_point_and_prices_as_the_view_does(tmp_path):
    con = connect(_warehouse(tmp_path), read_only=True)
    try:
        listed = figures(con, MODEL, "inference")
        priced = cost_rows(con, MODEL, "inference", all_offers=True)
        interruption_counts(con, MODEL, "inference", 5.0)
        assert _ranked_tables(con) == ["chipcost_ranked_1"]
        faster = cost_rows(con, MODEL, "inference", all_offers=True, point=Point(speed="50"))
        figures(con, MODEL, "inference", Point(speed="50"))
        assert _ranked_tables(con) == ["chipcost_ranked_1", "chipcost_ranked_2"]
        view = {args: _view_rows(con, args) for args in ("", "speed := '50'")}
    finally:
        con.close()
    assert priced and faster
    assert sorted(tuple(r[c] for c in SAME) for r in priced) == view[""]
    assert sorted(tuple(r[c] for c in SAME) for r in faster) == view["speed := '50'"]
    chosen = {r["throughput_id"] for r in listed.rows if r["chosen"]}
    assert {r["throughput_id"] for r in priced} <= chosen


def test_a_writer_ranks_what_it_has_written(tmp_path):
    path = _warehouse(tmp_path)
    con = connect(path)
    try:
        before = figures(con, MODEL, "inference").rows
        mine = figures_from_rows(
            [{"chip": "H100-SXM", "model": MODEL, "workload": "inference",
              "tokens_per_second": "123456", "source": "our run", "source_date": "2026-11-01"}],
            chips=canonical_chips(), origin="user", where="test",
        )  # fmt: skip
        (added,) = add_user_figures(con, mine, allow_above_peak=True).ids
        after = figures(con, MODEL, "inference").rows
        assert added not in {r["throughput_id"] for r in before}
        assert added in {r["throughput_id"] for r in after if r["chosen"]}
        assert ranked_at(con, DEFAULT_POINT, [MODEL]).startswith("throughput_at(")
        assert _ranked_tables(con) == []
    finally:
        con.close()
