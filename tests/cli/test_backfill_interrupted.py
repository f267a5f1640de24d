"""What `chipcost backfill` says after a Ctrl-C, read against a real warehouse: a version whose
load committed in the instant before the command counted it (the signal came between the
two) is said to be loaded, as it is; one loaded by an earlier command is not this command's."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from chipcost.cli.commands.backfill import _after_interrupt
from chipcost.core.settings import Warehouse
from chipcost.pipeline.backfill import LOADED, Outcome
from chipcost.pipeline.backfill_files import Version
from tests import warehouses
from tests.helpers import record, run_of

OLDER = Version("20240101000000", datetime(2024, 1, 1, tzinfo=UTC), None, "/v1/index.json")
NEWER = Version("20240301000000", datetime(2024, 3, 1, tzinfo=UTC), None, "/v2/index.json")


def _backfilled(tmp_path, version: Version, started: datetime) -> Warehouse:
    """A warehouse holding the backfill run of `version`, begun at `started`."""
    run = replace(
        run_of([record()], version.begin),
        run_id=f"{version.stamp}-backfill",
        started_at=started,
        mode="backfill",
        archive_run=version.stamp,
    )
    return Warehouse(str(warehouses.of_runs(tmp_path / "w.duckdb", [run])))


def test_a_version_committed_before_it_was_counted_is_said_loaded(tmp_path):
    began = datetime.now(UTC)
    warehouse = _backfilled(tmp_path, NEWER, began + timedelta(seconds=5))
    said = _after_interrupt(warehouse, [Outcome(OLDER, LOADED)], [OLDER, NEWER], began)
    assert said.startswith(f"2 versions loaded ({OLDER.version} … {NEWER.version}) into "), said
    assert said.endswith("Run the same command again: it resumes where it stopped")


def test_a_version_not_committed_is_not_said_loaded(tmp_path):
    began = datetime.now(UTC)
    warehouse = _backfilled(tmp_path, OLDER, began + timedelta(seconds=5))
    said = _after_interrupt(warehouse, [Outcome(OLDER, LOADED)], [OLDER, NEWER], began)
    assert said.startswith(f"1 version loaded ({OLDER.version}) into "), said


def test_a_version_an_earlier_command_loaded_is_not_this_commands(tmp_path):
    began = datetime.now(UTC)
    warehouse = _backfilled(tmp_path, NEWER, began - timedelta(days=1))
    said = _after_interrupt(warehouse, [], [NEWER], began)
    assert said.startswith(f"no version was loaded: {warehouse} is as it was"), said


def test_a_warehouse_that_cannot_be_read_says_what_was_counted(tmp_path):
    missing = Warehouse(str(tmp_path / "none" / "w.duckdb"))
    said = _after_interrupt(missing, [Outcome(OLDER, LOADED)], [OLDER, NEWER], datetime.now(UTC))
    assert said.startswith(f"1 version loaded ({OLDER.version}) into "), said
