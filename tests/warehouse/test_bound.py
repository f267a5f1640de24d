"""Queries with parameters run with their values as SQL literals (warehouse/bound.py): the same
rows as the client's binding, and no pandas import where pandas is installed."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest

from chipcost.warehouse.bound import execute, inlined, literal, relation
from tests import warehouses
from tests.paths import ROOT

VALUES = [
    None,
    True,
    0,
    -7,
    2**62,
    0.1,
    1e-300,
    float("inf"),
    "",
    "it's",
    "'; DROP TABLE t; --",
    "ünï ☃ \\ $1 ?",
    date(2026, 11, 20),
    datetime(2026, 11, 20, 6, 30, 15, 123456, tzinfo=UTC),
    datetime(2026, 11, 20, 6, 30),
    ["a", "b'c"],
    [1.5, None],
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_literal_reads_back_as_the_bound_value_of_the_same_type(value):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    bound = con.execute("SELECT ? AS v, typeof(?) AS t", [value, value]).fetchall()
    written = con.execute(f"SELECT {literal(value)} AS v, typeof({literal(value)})").fetchall()
    assert written == bound


def test_named_and_positional_parameters_give_the_bound_rows():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT range AS n, 'x' || range AS s FROM range(10)")
    sql = "SELECT n, s FROM t WHERE n >= $low AND s <> $not ORDER BY n"
    named = {"low": 4, "not": "x5"}
    assert execute(con, sql, named).fetchall() == con.execute(sql, named).fetchall()
    positional = "SELECT n FROM t WHERE n < ? AND s = ANY(?)"
    args = [5, ["x1", "x3", "x9"]]
    assert execute(con, positional, args).fetchall() == [(1,), (3,)]
    # a relation runs when read: two made before either is read keep their own values
    first, second = relation(con, sql, {"low": 8, "not": ""}), relation(con, sql, named)
    assert second.fetchall() == con.execute(sql, named).fetchall()
    assert first.fetchall() == [(8, "x8"), (9, "x9")]


def test_a_value_with_no_literal_form_is_bound_as_before():
    from decimal import Decimal

    con = duckdb.connect()
    assert execute(con, "SELECT ? + 1", [Decimal("1.5")]).fetchall()[0][0] == Decimal("2.5")


# A stand-in for an installed pandas (a test double of the package, not of DuckDB): importing
# it leaves a mark, then fails as a missing module would, so the read goes on without it.
STAND_IN = """import os
open(os.environ["PANDAS_MARK"], "a").write("imported\\n")
raise ImportError("pandas stand-in")
"""


@pytest.fixture(scope="module")
def replayed(tmp_path_factory) -> Path:
    """The sample replayed (prices, figures and the ECB's rates), read by every case."""
    return warehouses.sample(tmp_path_factory.mktemp("sample") / "w.duckdb")


@pytest.mark.parametrize(
    "args",
    [
        ["prices", "--chip", "H100-SXM", "--region", "us-east-1"],
        ["prices", "--chip", "H100-SXM", "--currency", "EUR"],
        ["cost", "--model", "llama-3-70b", "--workload", "training"],
        ["history", "--chip", "H100-SXM", "--no-chart"],
        ["index"],
        ["sql", "select count(*) from price_history"],
    ],
    ids=" ".join,
)
def test_a_read_command_never_imports_pandas(tmp_path, args, replayed):
    db = replayed
    (tmp_path / "site" / "pandas").mkdir(parents=True)
    (tmp_path / "site" / "pandas" / "__init__.py").write_text(STAND_IN)
    mark = tmp_path / "pandas-imported"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "PANDAS_MARK": str(mark)}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("chipcost")), "--db", str(db), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not mark.exists(), "DuckDB imported pandas: a query bound Python parameters"


def test_placeholders_in_quoted_text_and_comments_are_left_as_they_are():
    con = duckdb.connect()
    sql = """SELECT '?' || $a AS "$a?", -- a comment's ? and $a
        /* and $b */ 'it''s $a' AS s"""
    assert execute(con, "SELECT ? AS a, '?' AS b", [1]).fetchall() == [(1, "?")]
    # a negative value after a minus is a value, not the start of a comment
    assert execute(con, "SELECT 1 -?", [-5]).fetchall() == [(6,)]
    assert execute(con, "SELECT 2-$n", {"n": -1}).fetchall() == [(3,)]
    written = inlined(sql, {"a": "x'y"})
    assert written is not None and "$a?" in written and "? and $a" in written and "$b" in written
    assert con.execute(written).fetchall() == [("?x'y", "it's $a")]


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        ("SELECT ? + ?", [1]),  # a placeholder without a value
        ("SELECT ?", [1, 2]),  # a value without a placeholder
        ("SELECT $a", {"b": 1}),
        ("SELECT $1, $x", [1]),
    ],
)
def test_placeholders_that_do_not_match_the_values_are_left_to_the_client(sql, params):
    assert inlined(sql, params) is None
    with pytest.raises(duckdb.Error):  # and the client's own error says so
        execute(duckdb.connect(), sql, params).fetchall()


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        # an E'' string's backslash escape: read as '' strings are, the quoted '$1' after it
        # would take the value, and the value's own quotes would end that string
        (r"SELECT E'\'' AS a, '$1' AS c, $1 AS b", [" || (SELECT 'secret') || "]),
        ("SELECT $$ $1 $$ AS a, $1 AS b", ["x"]),  # a dollar-quoted string keeps its $1
        ("SELECT ?2 - ?1", [10, 3]),  # DuckDB's numbered placeholders
        ("SELECT /* a /* b */ ? */ ?", [1]),  # a comment within a comment
        ("SELECT ? + 127::TINYINT", [1]),  # an INTEGER, as bound, not a literal made TINYINT
        ("SELECT ? * 2::SMALLINT", [20000]),
        ("SELECT ?", [("a", 1)]),  # a list of two types: the client finds its one type
        ("SELECT ?", [2**63]),  # past BIGINT
    ],
)
def test_what_the_writing_does_not_read_gives_the_clients_rows(sql, params):
    con = duckdb.connect()
    assert execute(con, sql, params).fetchall() == con.execute(sql, params).fetchall()
