"""`chipcost remove-run --dry-run` says what the removal would take out and restate, and
changes nothing: on a real warehouse (the bundled sample's first three runs replayed), the file
is byte for byte the same after it, and what it said is what the removal then does."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from tests import warehouses

MIDDLE = "2026-11-15T060000Z"  # a run before it and one after it: both loads are restated


@pytest.fixture
def db(tmp_path) -> Path:
    return warehouses.sample(tmp_path / "w.duckdb", first=3)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def number(said: str, pattern: str) -> int:
    found = re.search(pattern, said)
    assert found, (pattern, said)
    return int(found.group(1).replace(",", ""))


def history(path: Path) -> set[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return set(con.sql("SELECT * EXCLUDE (first_run_id, last_run_id) FROM price_history")
                   .fetchall())  # fmt: skip


def test_a_dry_run_says_what_would_change_and_changes_nothing(run, db):
    before = digest(db)
    with duckdb.connect(str(db), read_only=True) as con:
        [(run_id, observations)] = con.sql(
            f"SELECT r.run_id, count(o.run_id) FROM runs r LEFT JOIN observations o "
            f"USING (run_id) WHERE r.archive_run = '{MIDDLE}' GROUP BY r.run_id"
        ).fetchall()
    dry = run("remove-run", MIDDLE, "--dry-run", "--db", str(db))
    assert dry.returncode == 0, dry.stderr
    assert digest(db) == before
    assert not Path(f"{db}.wal").exists()
    said = " ".join(dry.stdout.split())
    assert said.startswith(f"dry run: nothing was changed in {db}"), said
    assert f"run {run_id} (archive run {MIDDLE}, observed 2026-11-15 06:00 UTC)" in said
    assert number(said, r"([\d,]+) observations and") == observations > 0
    assert "48 source runs: 48 ok (amddevcloud, aws-bulk" in said
    restated = number(said, r"([\d,]+) rows of its sources from 2026-11-15 06:00 UTC")
    assert "from the 1 later run that loaded them" in said
    assert f"`chipcost remove-run {run_id}` (without --dry-run) removes it" in said

    # What the removal then does is within what the dry run said.
    rows_before = history(db)
    done = run("remove-run", run_id, "--db", str(db))
    assert done.returncode == 0, done.stderr
    rows_after = history(db)
    assert 0 < len(rows_before - rows_after) <= restated
    with duckdb.connect(str(db), read_only=True) as con:
        left = con.execute("SELECT count(*) FROM observations WHERE run_id = ?", [run_id])
        assert left.fetchall() == [(0,)]


def test_a_dry_run_of_a_run_not_there_is_refused_as_the_removal_is(run, db):
    before = digest(db)
    gone = run("remove-run", "2020-01-01T000000Z", "--dry-run", "--db", str(db))
    assert gone.returncode == 2 and "`chipcost sources --runs` lists its runs" in gone.stderr
    assert "Traceback" not in gone.stderr and digest(db) == before


def test_a_run_of_one_offer_is_counted_in_the_singular(run, tmp_path):
    """A run that loaded one offer: each count by its number, dry run and removal. The removal
    said "the history of the 1 offers it touched", the dry run "1 source run(s)"."""
    from tests.helpers import day, record, run_of

    run_id = "2026-11-01T060000Z-single"
    db = warehouses.of_runs(tmp_path / "w.duckdb", [run_of([record()], day(0), run_id=run_id)])
    removed = shutil.copyfile(db, tmp_path / "removed.duckdb")
    done = run("remove-run", run_id, "--db", str(removed))
    said = " ".join(done.stdout.split())
    assert done.returncode == 0 and "the history of the 1 offer it touched is restated" in said
    dry = run("remove-run", run_id, "--dry-run", "--db", str(db))
    said = " ".join(dry.stdout.split())
    assert dry.returncode == 0 and "1 source run: 1 ok (aws-pricing-api)" in said, said
    assert "1 observation and 0 rejects" in said
    assert "price_history: 1 row of its sources from 2026-11-01 06:00 UTC on restated" in said
    assert "(cut back: no later run loaded them), 1 of them opened by this run" in said
    assert "the history of 1 offer it touched" in said
    assert "(s)" not in said
