"""A file warehouse keeps price_history's open rows near its end (warehouse/history_steps.py
keep_open_rows_last): an open row far behind the newest rows is moved to the end, and what
every read sees stays the same; each load of a file warehouse does it."""

from __future__ import annotations

from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse import history_steps, load
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of

BEHIND = 10  # closed rows written after the two open ones


# the offer whose price stays, and the one whose price the loads below change
STILL = record(sku="A", chip="H200", instance_type="p5e.48xlarge")


def _with_open_rows_behind(path):
    """A warehouse whose two open rows (STILL's, B's) come first, then BEHIND closed rows of
    a withdrawn offer."""
    con = open_warehouse(path)
    load_run(con, run_of([STILL, record(sku="B")], day(0)))
    for n in range(BEHIND):
        con.execute(
            "INSERT INTO price_history SELECT * REPLACE (sku AS sku, 'p4d.24xlarge' AS "
            "instance_type, 'A100-40GB' AS chip, valid_from - INTERVAL (? + 1) DAY AS "
            "valid_from, valid_from - INTERVAL (?) DAY AS valid_to, 'withdrawn' AS end_reason) "
            "FROM price_history WHERE sku = 'B' AND valid_to IS NULL",
            [BEHIND - n, BEHIND - n - 1],
        )
    return con


def _seen(con) -> tuple:
    history = con.execute("SELECT * FROM price_history ORDER BY ALL").fetchall()
    return history, con.execute("SELECT * FROM current_prices ORDER BY ALL").fetchall()


def _open_rowids(con) -> list[int]:
    found = con.execute("SELECT rowid FROM price_history WHERE valid_to IS NULL ORDER BY 1")
    return [r[0] for r in found.fetchall()]


def test_open_rows_far_behind_go_to_the_end_and_every_read_sees_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(history_steps, "ROW_GROUP", 1)  # far: 6 rows behind (3 x 2 open)
    con = _with_open_rows_behind(tmp_path / "w.duckdb")
    try:
        assert _open_rowids(con) == [0, 1]
        before = _seen(con)
        con.execute("BEGIN")
        assert history_steps.keep_open_rows_last(con) == 2
        con.execute("COMMIT")
        newest = con.execute("SELECT max(rowid) FROM price_history").fetchone()[0]
        assert all(newest - rowid < 6 for rowid in _open_rowids(con))
        assert _seen(con) == before
        con.execute("BEGIN")
        assert history_steps.keep_open_rows_last(con) == 0  # near the end now
        con.execute("COMMIT")
    finally:
        con.close()


def test_rows_within_reach_of_the_end_stay(tmp_path):
    con = _with_open_rows_behind(tmp_path / "w.duckdb")  # 12 rows: one row group's worth
    try:
        con.execute("BEGIN")
        assert history_steps.keep_open_rows_last(con) == 0
        con.execute("COMMIT")
        assert _open_rowids(con) == [0, 1]
    finally:
        con.close()


def test_each_load_of_a_file_warehouse_keeps_them_last_moving_each_row_once(tmp_path, monkeypatch):
    con = _with_open_rows_behind(tmp_path / "w.duckdb")
    moved = []

    def counted(con):
        moved.append(history_steps.keep_open_rows_last(con))
        return moved[-1]

    monkeypatch.setattr(load, "keep_open_rows_last", counted)
    monkeypatch.setattr(history_steps, "ROW_GROUP", 1)
    try:
        load_run(con, run_of([STILL, record(sku="B", price_per_hour=60.0)], day(1)))
        newest = con.execute("SELECT max(rowid) FROM price_history").fetchone()[0]
        assert all(newest - rowid < 6 for rowid in _open_rowids(con))
        # the next load finds STILL's row near the end and leaves it: the rows a load adds
        # are numbered past every row of the file until it commits, so the move comes first
        load_run(con, run_of([STILL, record(sku="B", price_per_hour=61.0)], day(2)))
    finally:
        con.close()
    assert moved == [2, 0]
