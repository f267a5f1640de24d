"""What `chipcost backfill` says after a Ctrl-C, read against a real warehouse: a version whose
load committed in the instant before the command counted it (the signal came between the
two) is said to be loaded, as it is; one loaded by an earlier command is not this command's,
nor one whose load failed."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from chipcost.cli.commands.backfill import _after_interrupt
from chipcost.core.runs import FAILED, OK
from chipcost.core.settings import Settings
from chipcost.pipeline.backfill import LOADED, SOURCE, Outcome
from chipcost.pipeline.backfill_files import Version
from tests import warehouses
from tests.helpers import record, run_of

OLDER = Version("20240101000000", datetime(2024, 1, 1, tzinfo=UTC), None, "/v1/index.json")
NEWER = Version("20240301000000", datetime(2024, 3, 1, tzinfo=UTC), None, "/v2/index.json")


def _backfilled(tmp_path, version: Version, started: datetime, status: str = OK) -> Settings:
    """A warehouse holding the backfill run of `version` (its aws-bulk source `status`),
    begun at `started`."""
    run = run_of([record()], version.begin, status=status)
    bulk = replace(run.sources[0], source=SOURCE.name)
    run = replace(
        run,
        run_id=f"{version.stamp}-backfill",
        started_at=started,
        mode="backfill",
        archive_run=version.stamp,
        sources=[bulk],
    )
    db = warehouses.of_runs(tmp_path / "w.duckdb", [run])
    return Settings(data_dir=tmp_path, db_path=db)


def test_a_version_committed_before_it_was_counted_is_said_loaded(tmp_path):
    began = datetime.now(UTC)
    settings = _backfilled(tmp_path, NEWER, began + timedelta(seconds=5))
    said = _after_interrupt(settings, [Outcome(OLDER, LOADED)], [OLDER, NEWER], began)
    assert said.startswith(f"2 versions loaded ({OLDER.version} … {NEWER.version}) into "), said
    assert said.endswith("Run the same command again: it resumes where it stopped")


def test_a_version_not_committed_is_not_said_loaded(tmp_path):
    began = datetime.now(UTC)
    settings = _backfilled(tmp_path, OLDER, began + timedelta(seconds=5))
    said = _after_interrupt(settings, [Outcome(OLDER, LOADED)], [OLDER, NEWER], began)
    assert said.startswith(f"1 version loaded ({OLDER.version}) into "), said


def test_a_version_an_earlier_command_loaded_is_not_this_commands(tmp_path):
    began = datetime.now(UTC)
    settings = _backfilled(tmp_path, NEWER, began - timedelta(days=1))
    said = _after_interrupt(settings, [], [NEWER], began)
    assert said.startswith(f"no version was loaded: {settings.warehouse} is as it was"), said


def test_a_version_whose_load_failed_is_not_said_loaded(tmp_path):
    began = datetime.now(UTC)
    settings = _backfilled(tmp_path, NEWER, began + timedelta(seconds=5), status=FAILED)
    said = _after_interrupt(settings, [], [NEWER], began)
    assert said.startswith(f"no version was loaded: {settings.warehouse} is as it was"), said


def test_a_warehouse_that_cannot_be_read_says_what_was_counted(tmp_path):
    missing = Settings(data_dir=tmp_path, db_path=tmp_path / "none" / "w.duckdb")
    said = _after_interrupt(missing, [Outcome(OLDER, LOADED)], [OLDER, NEWER], datetime.now(UTC))
    assert said.startswith(f"1 version loaded ({OLDER.version}) into "), said
