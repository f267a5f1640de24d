"""No read joins row by row what a hash join could take: every query the reads send DuckDB
(prices, history, index, cost, compare, sources, the report), logged as they run on the
sample warehouse and planned again, holds a nested-loop join only beside a one-row side (a
period's bounds, a trend's days). An equality among a LEFT JOIN's conditions beside a test of
one side alone (`p.provider = 'aws'`, `s.source IS NOT NULL`) or a column chosen by a CASE
made DuckDB compare every row with every row: the report's change events took minutes on ten
years of history (docs/performance.md)."""

from __future__ import annotations

import itertools
import json

import duckdb
import pytest

from chipcost.warehouse.db import connect
from tests import warehouses
from tests.cli_runner import chipcost

NESTED_LOOPS = {"BLOCKWISE_NL_JOIN", "NESTED_LOOP_JOIN"}
READS = (
    ["prices"],
    ["prices", "--chip", "H100-SXM", "--spot"],
    ["history", "--chip", "H100-SXM"],
    ["index"],
    ["cost", "--model", "llama-3-70b", "--workload", "inference"],
    ["compare", "H100-SXM", "Trainium2", "--model", "llama-3-70b", "--workload", "inference"],
    ["sources"],
)


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """(query, plan) of each query the reads sent that can be planned on its own: not one
    with a parameter left to bind, nor one of a table a read made for itself."""
    folder = tmp_path_factory.mktemp("plans")
    db = warehouses.sample(folder / "w.duckdb")
    logs, opened = folder / "logs", itertools.count()
    real = duckdb.connect

    def logged(*args, **kwargs):
        con = real(*args, **kwargs)
        into = logs / str(next(opened))
        into.mkdir(parents=True)
        con.execute(
            "CALL enable_logging('QueryLog', storage = 'file', "
            f"storage_config = {{'path': '{into}'}})"
        )
        return con

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duckdb, "connect", logged)
        for read in (*READS, ["report", "--dry-run", "--out", str(folder / "report")]):
            ran = chipcost(*read, "--db", str(db))
            assert ran.returncode == 0, (read, ran.stderr)
    queries = set()
    for entries in logs.glob("*/duckdb_log_entries.csv"):
        queries |= {
            message
            for (message,) in real()
            .execute(
                f"SELECT message FROM read_csv('{entries}', header = true, quote = '\"', "
                "escape = '\"', strict_mode = false) WHERE type = 'QueryLog'"
            )
            .fetchall()
        }
    plans = []
    with connect(db, read_only=True) as con:
        for query in sorted(queries):
            if not query.lstrip().upper().startswith(("SELECT", "WITH", "FROM")):
                continue
            if "?" in query or "$" in query:
                continue
            try:
                (row,) = con.execute(f"EXPLAIN (FORMAT json) {query}").fetchall()
            except duckdb.CatalogException:  # a read's own temporary table
                continue
            plans.append((query, json.loads(row[1])))
    return plans


def _nodes(nodes: list[dict]):
    for node in nodes:
        yield node
        yield from _nodes(node.get("children", []))


def _nested_loops(nodes: list[dict]):
    for node in nodes:
        if node["name"].strip() in NESTED_LOOPS:
            yield node
        yield from _nested_loops(node.get("children", []))


def test_the_reads_queries_were_planned(planned):
    assert len(planned) >= 30
    assert any("price_changes" in query for query, _ in planned)
    assert any("per_chip_prices" in query for query, _ in planned)


def test_a_nested_loop_join_has_a_side_of_one_row(planned):
    wide = []
    for query, plan in planned:
        for node in _nested_loops(plan):
            rows = [
                int(child.get("extra_info", {}).get("Estimated Cardinality", 2))
                for child in node["children"]
            ]
            if min(rows) > 1:
                wide.append((node["extra_info"], rows, query[:300]))
    assert not wide


def test_a_daily_read_expands_each_price_over_its_days_with_no_nested_loop(planned):
    # history's and the index's days (warehouse/history.py in_force_days): a test of a row's
    # first day against its last, both of the period's bounds, made DuckDB join every row of
    # the history to the bounds in a nested loop (0.8 s of CPU for H100-SXM's ten years)
    daily = [(q, p) for q, p in planned if "generate_series(from_day, to_day" in q]
    assert len(daily) >= 2
    per_row = [
        (node["extra_info"], query[:200])
        for query, plan in daily
        for node in _nested_loops(plan)
        if "valid_from" in json.dumps(node["extra_info"])  # a test of each history row's
    ]
    assert not per_row
    # nor are the history's rows, or their days, written out whole to be read back: a CTE
    # read twice is kept whole unless written not to be (43.6 million day rows once)
    kept = [
        node["extra_info"].get("CTE Name")
        for _, plan in daily
        for node in _nodes(plan)
        if node["name"].strip() == "CTE"
    ]
    assert not {"rows", "spans", "days"} & set(kept)
