"""The typed rows name what the warehouse gives: CostRow follows cost_per_token's columns in the
view's order and names every column a ranking's rows carry, FigureRow every column figures()
reads. Real DuckDB, the shipped throughput catalogue."""

from __future__ import annotations

import pytest

from chipcost.reads.cost import rank_cost
from chipcost.reads.cost_asked import ask_of, cost_question
from chipcost.transform.rows import CostRow, FigureRow, number
from chipcost.warehouse.cost_per_token import figures
from chipcost.warehouse.db import connect
from tests.cli.test_cost_cli import _warehouse


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = _warehouse(tmp_path_factory.mktemp("rows") / "w.duckdb")
    con = connect(db, read_only=True)
    yield con
    con.close()


def _ranking(con, workload: str):
    ask = ask_of(
        con, "llama-3-70b", workload, chip=None, baseline="H100-SXM", baseline_given=False,
        region=None, pricing_model=None, provider=None, all_offers=True, limit=200,
        stale_days=30,
    )  # fmt: skip
    return rank_cost(con, ask, cost_question(workload, tokens="1B", migration_cost=1000))


def test_cost_row_declares_the_view_columns_in_order(con):
    columns = con.sql("SELECT * FROM cost_per_token LIMIT 0").columns
    assert list(CostRow.__annotations__)[: len(columns)] == columns


@pytest.mark.parametrize("workload", ["inference", "training"])
def test_every_column_of_a_ranking_is_declared(con, workload):
    rows = _ranking(con, workload).rows
    assert rows
    found = {column for row in rows for column in row}
    assert found - set(CostRow.__annotations__) == set()
    # what the ranking adds against the baseline and from the evidence is there too
    assert {"cost_for_tokens", "fits", "verdict", "throughput_range_low"} <= found


def test_figure_row_names_what_figures_reads(con):
    rows = figures(con, "llama-3-70b", "inference").rows
    assert rows
    assert {column for row in rows for column in row} == set(FigureRow.__annotations__)


@pytest.mark.parametrize(("value", "expected"), [(3, 3.0), (2.5, 2.5), (0, 0.0)])
def test_number_of_a_number(value, expected):
    assert number(value) == expected and isinstance(number(value), float)


@pytest.mark.parametrize("value", [None, "1.5", [1.0]])
def test_number_of_anything_else_is_a_type_error(value):
    with pytest.raises(TypeError, match="a number was expected"):
        number(value)
