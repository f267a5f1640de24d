"""`chipcost sql` holds a result within bounds: rows stream from DuckDB in batches and stop at
--limit, at CHIPCOST_SQL_ROWS rows or at CHIPCOST_SQL_RESULT bytes held (by default the
memory CHIPCOST_SQL_MEMORY gives DuckDB), and a cut is said in one line on stderr naming the
bound. A 1.2 GB result once held 2.4 GB of Python with the memory limit at 256 MB."""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.sql_limits import SqlLimits, size_in_bytes, sql_limits
from chipcost.warehouse.readonly import read_rows
from tests.cli_runner import chipcost as run_chipcost
from tests.helpers import loaded_warehouse, record

MB = 10**6


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return loaded_warehouse(tmp_path_factory.mktemp("bounds") / "w.duckdb", [record()])


@pytest.mark.parametrize(("bound", "made"), [(1, 2), (10, 5000), (2048, 2049), (5000, 100_000)])
def test_a_result_past_its_rows_is_cut_there_naming_the_bound(db, bound, made):
    result = read_rows(db, f"SELECT range AS n FROM range({made})", limits=SqlLimits(rows=bound))
    assert [n for (n,) in result.rows] == list(range(bound))
    assert result.cut == f"{bound:,} rows (CHIPCOST_SQL_ROWS)"


@pytest.mark.parametrize(("bound", "made"), [(10, 10), (2048, 2048), (5000, 1)])
def test_a_result_within_its_rows_is_whole(db, bound, made):
    result = read_rows(db, f"SELECT range FROM range({made})", limits=SqlLimits(rows=bound))
    assert len(result.rows) == made and result.cut == ""


@pytest.mark.parametrize(("size", "width"), [("1MB", 1000), ("4MB", 100), ("200KB", 5000)])
def test_a_result_past_its_bytes_is_cut_as_it_grows(db, size, width):
    query = f"SELECT repeat('x', {width}) AS s, range AS n FROM range(200000)"
    result = read_rows(db, query, limits=SqlLimits(result=size))
    assert result.cut == f"{size} (CHIPCOST_SQL_RESULT)"
    assert 0 < len(result.rows) < 200_000
    assert len(result.rows) * width <= size_in_bytes(size)


def test_a_result_is_held_within_the_memory_limit_by_default(db):
    """500 MB of rows against a 32 MB memory limit: cut near 32 MB, never held whole."""
    query = "SELECT repeat('x', 5000) AS s FROM range(100000)"
    tracemalloc.start()
    try:
        result = read_rows(db, query, limits=SqlLimits(memory="32MB", temp="1MB"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.cut == "32MB (CHIPCOST_SQL_RESULT, default CHIPCOST_SQL_MEMORY)"
    assert peak < 48 * MB, f"{peak / MB:.0f} MB held for a 32 MB limit"


def test_a_limit_asked_for_stops_the_read_without_a_cut(db):
    """A trillion rows, ten asked for: streamed, so ten are read (not the trillion)."""
    started = time.monotonic()
    result = read_rows(db, "SELECT range FROM range(1000000000000)", max_rows=10)
    assert [n for (n,) in result.rows] == list(range(10)) and result.cut == ""
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(("fmt", "rows"), [("csv", 100), ("json", 7), ("table", 30)])
def test_the_cli_says_a_cut_in_one_line_on_stderr(db, fmt, rows):
    env = {**os.environ, "CHIPCOST_SQL_ROWS": str(rows), "COLUMNS": "80"}
    done = run_chipcost("sql", "SELECT range AS n FROM range(5000)", "--db", str(db),
                        "--format", fmt, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    [said] = [line for line in done.stderr.splitlines() if "cut" in line]
    assert said == (
        f"result cut at {rows:,} rows (CHIPCOST_SQL_ROWS): raise it, or ask for fewer rows "
        "(--limit, or a LIMIT)"
    )
    if fmt == "csv":
        assert done.stdout.splitlines()[1:] == [str(n) for n in range(rows)]


def test_the_cli_with_a_limit_reads_that_many_and_says_nothing_of_a_cut(db):
    done = run_chipcost(
        "sql", "SELECT range AS n FROM range(1000000000000)", "--db", str(db), "--format",
        "csv", "--limit", "3",
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.split() == ["n", "0", "1", "2"]
    assert "cut" not in done.stderr


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"CHIPCOST_SQL_ROWS": "lots"}, "CHIPCOST_SQL_ROWS='lots'"),
        ({"CHIPCOST_SQL_ROWS": "0"}, "CHIPCOST_SQL_ROWS='0'"),
        ({"CHIPCOST_SQL_ROWS": "²"}, "CHIPCOST_SQL_ROWS='²'"),
        ({"CHIPCOST_SQL_RESULT": "huge"}, "CHIPCOST_SQL_RESULT='huge'"),
    ],
)
def test_a_malformed_bound_is_refused_naming_it(env, said, monkeypatch):
    for name, text in env.items():
        monkeypatch.setenv(name, text)
    with pytest.raises(ChipcostError, match=said):
        sql_limits()


def test_bounds_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("CHIPCOST_SQL_ROWS", "500")
    monkeypatch.setenv("CHIPCOST_SQL_RESULT", "64MB")
    found = sql_limits()
    assert (found.rows, found.result, found.result_bytes()) == (500, "64MB", 64 * MB)
    monkeypatch.delenv("CHIPCOST_SQL_RESULT")
    monkeypatch.setenv("CHIPCOST_SQL_MEMORY", "256MB")
    assert sql_limits().result_bytes() == 256 * MB


@pytest.mark.parametrize(("made", "more", "counted_to"), [
    (5000, 4997, ""),  # within the bound: every row past the three counted
    (10**12, 999_997, "1,000,000 rows (CHIPCOST_SQL_ROWS)"),  # past it: counted to the bound
])  # fmt: skip
def test_rows_past_a_limit_are_counted_not_read(db, made, more, counted_to):
    """On 444acd6f a table read every row up to the rows bound to count the ones it did not
    show: `sql --limit 3` on a ten-year warehouse's history took 20 s and 1.9 GB."""
    tracemalloc.start()
    try:
        result = read_rows(db, f"SELECT range AS n FROM range({made})", max_rows=3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [n for (n,) in result.rows] == [0, 1, 2] and result.cut == ""
    assert (result.more, result.counted_to) == (more, counted_to)
    assert peak < 4 * MB, f"{peak / MB:.0f} MB held for three rows"


@pytest.mark.parametrize(("bound", "said"), [
    ({}, ["5,000 rows (showing 3)"]),
    ({"CHIPCOST_SQL_ROWS": "30"}, [
        "result cut at 30 rows (CHIPCOST_SQL_ROWS): raise it, or ask for fewer rows (--limit, "
        "or a LIMIT)",
        "30 rows (showing 3)",
    ]),
])  # fmt: skip
def test_a_table_with_a_limit_counts_the_rows_it_does_not_show(db, bound, said):
    env = {**os.environ, "COLUMNS": "80", **bound}
    done = run_chipcost("sql", "SELECT range AS n FROM range(5000)", "--db", str(db),
                        "--limit", "3", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in (done.stderr + done.stdout).splitlines()]
    assert [line for line in lines if "rows" in line] == said
    assert [line for line in lines if line.isdigit()] == ["0", "1", "2"]


def test_csv_with_a_limit_says_the_count_stopped_at_the_rows_bound(db):
    """On 72e1e029 csv said '999997 more rows (--limit)' of a query with a trillion: the count
    had stopped at the rows bound, unsaid."""
    done = run_chipcost("sql", "SELECT range AS n FROM range(1000000000000)", "--db", str(db),
                        "--format", "csv", "--limit", "3")  # fmt: skip
    assert done.returncode == 0 and done.stdout.split() == ["n", "0", "1", "2"]
    assert (
        "at least 999,997 more rows (--limit; counted to 1,000,000 rows (CHIPCOST_SQL_ROWS))"
        in done.stderr
    )
