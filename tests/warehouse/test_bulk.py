"""warehouse/bulk.py: many rows in one typed statement, and no value silently turned NULL."""

from __future__ import annotations

import duckdb
import pytest

from chipcost.warehouse.insert import insert_rows
from tests.helpers import day


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute(
        "CREATE TABLE t (name VARCHAR, size DOUBLE, n INTEGER, seen TIMESTAMPTZ, tags VARCHAR[])"
    )
    yield connection
    connection.close()


def test_rows_go_in_typed_with_text_numbers_cast(con):
    rows = [["a", "80", 1, day(0), ["x"]], ["b", 2.5, None, None, []], ["c", None, 3, day(1), None]]
    assert insert_rows(con, "t", ["name", "size", "n", "seen", "tags"], rows) == 3
    assert con.execute("SELECT * FROM t ORDER BY name").fetchall() == [
        ("a", 80.0, 1, day(0), ["x"]),
        ("b", 2.5, None, None, []),
        ("c", None, 3, day(1), None),
    ]


def test_a_value_that_cannot_be_stored_is_an_error_not_a_null(con):
    with pytest.raises(ValueError, match="cannot store"):
        insert_rows(con, "t", ["name", "size"], [["a", 1.0], ["b", "eighty"]])
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_many_rows_in_one_statement(con):
    rows = [[f"row {i}", float(i)] for i in range(50_000)]
    insert_rows(con, "t", ["name", "size"], rows)
    assert con.execute("SELECT count(*), sum(size) FROM t").fetchall() == [
        (50_000, sum(range(50_000)))
    ]


def test_nothing_to_insert(con):
    assert insert_rows(con, "t", ["name"], []) == 0
