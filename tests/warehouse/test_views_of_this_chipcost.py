"""A reader reads with this chipcost's views, whatever chipcost last wrote the warehouse's, and
the report's change events join no row to every row of the history."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from chipcost.core.frames import frame_of
from chipcost.warehouse import changes
from chipcost.warehouse.bound import relation
from chipcost.warehouse.db import connect
from tests import warehouses

START, END = datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 8, tzinfo=UTC)


@pytest.fixture
def older(tmp_path):
    """The report tests' warehouse as an older chipcost left it: price_changes without the
    stated currency, and its views' digest not this chipcost's."""
    path = warehouses.golden(tmp_path / "w.duckdb")
    with connect(path) as con:
        view = frame_of(con.sql("SELECT * FROM price_changes"))
        assert "stated_currency" in view.columns
        con.execute(
            "CREATE OR REPLACE VIEW price_changes AS "
            f"SELECT * EXCLUDE (stated_currency) FROM ({_definition(con, 'price_changes')})"
        )
        con.execute("UPDATE reference_state SET digest = 'older' WHERE name = 'views'")
    return path


def _definition(con, name: str) -> str:
    sql = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = ?", [name]).fetchone()[0]
    return sql.split(" AS ", 1)[1].rstrip().rstrip(";")


def test_a_reader_of_views_an_older_chipcost_wrote_reads_with_these(older):
    with connect(older, read_only=True) as con:
        events = changes.change_events(con, START, END)
        assert events.height > 0
        assert set(events["stated_currency"]) == {"USD"}
        assert "stated_currency" in frame_of(con.sql("SELECT * FROM price_changes")).columns
    # The file itself is as the reader found it: a write open rewrites its views.
    with connect(older, read_only=True) as con:
        (digest,) = con.execute(
            "SELECT digest FROM reference_state WHERE name = 'views'"
        ).fetchone()
        assert digest == "older"
    with connect(older) as con:
        pass
    with connect(older, read_only=True) as con:
        assert not con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal"
        ).fetchone()[0]
        assert "stated_currency" in frame_of(con.sql("SELECT * FROM price_changes")).columns


def test_the_change_events_join_no_row_to_every_row(tmp_path):
    # The stated currency was joined back from the history on a condition choosing valid_from
    # or valid_to by the event's kind: no hash join takes that, and DuckDB compared each
    # event with every row of the history (minutes on ten years, docs/performance.md).
    path = warehouses.golden(tmp_path / "w.duckdb")
    with connect(path, read_only=True) as con:
        kept = f"SELECT * FROM events {changes._IN_ORDER}"
        for query in (changes._marked(kept), changes._COUNTS):
            plan = relation(con, f"EXPLAIN (FORMAT json) {query}", {"start": START, "end": END})
            operators = _operators(json.loads(plan.fetchall()[0][1]))
            assert "HASH_JOIN" in operators
            assert not {"BLOCKWISE_NL_JOIN", "NESTED_LOOP_JOIN", "CROSS_PRODUCT"} & operators


def _operators(nodes: list[dict]) -> set[str]:
    found = set()
    for node in nodes:
        found.add(node["name"].strip())
        found |= _operators(node.get("children", []))
    return found
