"""Pending-run markers: per warehouse, oldest first, nothing but a run stamp trusted."""

from __future__ import annotations

from chipcost.core.settings import Settings
from chipcost.pipeline.pending import clear_pending, mark_pending, pending_runs


def test_pending_runs_are_this_warehouses_oldest_first(tmp_path):
    mine = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    other = Settings(data_dir=tmp_path, db_path=tmp_path / "other.duckdb")
    assert pending_runs(mine) == []
    for stamp in ("2026-11-22T060000Z", "2026-11-20T060000Z"):
        mark_pending(mine, stamp)
    mark_pending(other, "2026-11-21T060000Z")
    archive = tmp_path / "archive"
    assert pending_runs(mine) == [archive / "2026-11-20T060000Z", archive / "2026-11-22T060000Z"]
    assert pending_runs(other) == [archive / "2026-11-21T060000Z"]
    clear_pending(mine, "2026-11-20T060000Z")
    clear_pending(mine, "2026-11-20T060000Z")  # twice is harmless
    assert pending_runs(mine) == [archive / "2026-11-22T060000Z"]


def test_a_marker_that_is_not_one_is_left_alone(tmp_path):
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    mark_pending(settings, "2026-11-22T060000Z")
    markers = tmp_path / "pending"
    (markers / "..%2f..%2fetc.json").write_text("{}")
    (markers / "2026-11-23T060000Z.json").write_text("not json")
    assert pending_runs(settings) == [tmp_path / "archive" / "2026-11-22T060000Z"]
