"""Schema version 10 moves the no-op runs earlier versions wrote (second replays) to attempts."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from chipcost.core.runs import ALREADY_LOADED
from chipcost.warehouse.db import connect, migrations
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def as_before_version_10(db) -> None:
    """A warehouse as chipcost wrote it before attempts existed, after a second replay."""
    con = connect(db)
    load_run(con, run_of([record()], day(0), run_id="real"))
    # Version 10 and every later migration undone: their tables did not exist yet.
    for version, _, sql in migrations():
        for table in re.findall(r"CREATE TABLE (\w+)", sql) if version >= 10 else ():
            con.execute(f"DROP TABLE {table}")
        added = re.findall(r"ALTER TABLE (\w+) ADD COLUMN (\w+)", sql) if version >= 10 else ()
        for table, column in added:
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.execute("DELETE FROM schema_version WHERE version >= 10")
    con.execute(
        "INSERT INTO runs VALUES ('again', ?, ?, ?, 'replay', '2026-11-01T060000Z', false,"
        " 'ok', 0, 0, 0, '0.1.0')",
        [AT, AT, AT],
    )
    con.execute(
        "INSERT INTO source_runs VALUES ('again', 'aws-pricing-api', 'aws', ?, 'already loaded',"
        " 0, 0, 1, 0.1, NULL, '2026-11-01T060000Z', 'digest', [])",
        [ALREADY_LOADED],
    )
    con.close()


def test_no_op_runs_move_to_attempts(tmp_path):
    db = tmp_path / "w.duckdb"
    as_before_version_10(db)
    con = connect(db)  # migrates
    try:
        assert con.execute("SELECT run_id FROM runs").fetchall() == [("real",)]
        assert con.execute("SELECT DISTINCT status FROM source_runs").fetchall() == [("ok",)]
        assert con.execute("SELECT attempt_id, outcome, sources FROM attempts").fetchall() == [
            ("again", ALREADY_LOADED, ["aws-pricing-api"])
        ]
    finally:
        con.close()
