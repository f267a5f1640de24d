"""A write with no room left ends in one line naming the disk and the path, exits non-zero and
leaves nothing half-written: the warehouse's DuckDB log (`collect --replay` into a warehouse,
`migrate` of a new one), an archived payload, a set of report files.

What it simulates: a full disk, by /dev/full, the device every write to which fails with ENOSPC
("No space left on device"), put where the write goes: the warehouse's write-ahead log
(<file>.wal) a symbolic link to it, which DuckDB writes through when it commits; an archived
payload's temporary file the same; a write to it in the middle of a report's set of files. (A
small full file system needs root to mount; a file size limit, RLIMIT_FSIZE, fails with EFBIG,
not ENOSPC.)"""

from __future__ import annotations

import errno
import gzip
import json
import os
from pathlib import Path

import duckdb
import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.disk import mount_of, no_room
from chipcost.core.errors import ChipcostError
from chipcost.core.outputs import written_whole
from tests.cli_runner import chipcost

FULL = Path("/dev/full")
pytestmark = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "CHIPCOST_DATA_DIR": str(tmp_path / "data"), "CHIPCOST_TRACEBACK": "0"}


def _one_line_naming_the_disk(result, path: Path, kept: str = "nothing of the write was kept"):
    """The line said, naming `path`'s disk and saying `kept` (what is left of the write)."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    said = errors[0]
    assert f"the disk holding {path} (the file system at {mount_of(path)}) is full" in said
    assert "No space left on device" in said and kept in said
    assert "damaged" not in said  # DuckDB invalidates the database: not a damage
    return said


def _tables(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()


def test_migrate_of_a_new_warehouse_on_a_full_disk(tmp_path):
    db = tmp_path / "w.duckdb"
    wal = tmp_path / "w.duckdb.wal"
    wal.symlink_to(FULL)
    result = chipcost("migrate", "--db", str(db), env=_env(tmp_path))
    _one_line_naming_the_disk(result, wal)
    wal.unlink()  # room again: the warehouse is made whole, from nothing
    again = chipcost("migrate", "--db", str(db), env=_env(tmp_path))
    assert again.returncode == 0, again.stderr
    assert _tables(db)["schema_version"] > 0


def test_a_replay_on_a_full_disk_loads_nothing_and_the_next_loads_it(tmp_path, sample_runs):
    db = tmp_path / "w.duckdb"
    made = chipcost("migrate", "--db", str(db), env=_env(tmp_path))
    assert made.returncode == 0, made.stderr
    before = _tables(db)
    wal = tmp_path / "w.duckdb.wal"
    wal.symlink_to(FULL)
    run = str(sample_runs[0])
    result = chipcost("collect", "--replay", run, "--db", str(db), env=_env(tmp_path))
    # A replay's own next step, not a live collection's pending runs (it leaves none); a run
    # loaded before the disk filled: tests/cli/test_replay_full_disk.py
    said = _one_line_naming_the_disk(result, wal, f"nothing was loaded: {db} is as it was")
    assert said.endswith(
        f": nothing was loaded: {db} is as it was. Free some space on that disk, then run the "
        "same command again to load them"
    )
    wal.unlink()
    assert _tables(db) == before  # nothing of the run, nothing half of it
    again = chipcost("collect", "--replay", run, "--db", str(db), env=_env(tmp_path))
    assert again.returncode == 0, again.stderr
    assert _tables(db)["observations"] > before["observations"]


def test_an_archived_payload_on_a_full_disk_leaves_no_part_of_it(tmp_path):
    writer = ArchiveWriter(str(tmp_path / "archive"), "2026-11-26T101010Z", "lambda")
    writer.write(b'{"first": 1}', "https://example.com/1")
    folder = tmp_path / "archive" / "2026-11-26T101010Z" / "lambda"
    manifest = (folder / "manifest.json").read_bytes()
    part = folder / "0002.json.gz.part"
    part.symlink_to(FULL)
    with pytest.raises(OSError) as failed:
        writer.write(b'{"second": 2}', "https://example.com/2")
    assert failed.value.errno == errno.ENOSPC
    assert sorted(p.name for p in folder.iterdir()) == ["0001.json.gz", "manifest.json"]
    assert (folder / "manifest.json").read_bytes() == manifest  # lists the first alone
    assert json.loads(gzip.decompress((folder / "0001.json.gz").read_bytes())) == {"first": 1}
    said = no_room(failed.value)
    assert said and f"the disk holding {folder / '0002.json.gz'} (the file system at" in said


def test_a_report_on_a_full_disk_writes_none_of_its_files(tmp_path):
    page, table = tmp_path / "report.html", tmp_path / "changes.csv"
    table.write_text("the previous report's\n")
    with pytest.raises(ChipcostError) as failed, written_whole([page, table]) as (html, csv):
        html.write_text("<html>a whole page</html>")
        csv.write_text("a,b\n")
        FULL.write_text("the disk fills as the report is written")
    said = str(failed.value)
    assert "is full (No space left on device)" in said and "nothing of the write was kept" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["changes.csv"]
    assert table.read_text() == "the previous report's\n"


def test_a_read_written_to_a_full_device_says_so_in_one_line(tmp_path, golden):
    """The standard output on /dev/full: one line, exit 1, and no claim that nothing was
    kept (a redirected output keeps what was written before the disk filled)."""
    import subprocess
    import sys

    command = [str(Path(sys.executable).with_name("chipcost")), "prices", "--by", "offer"]
    with FULL.open("w") as full:
        done = subprocess.run(
            [*command, "--format", "csv", "--db", str(golden)], env=_env(tmp_path),
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=300,
        )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: a disk is full (No space left on device): the write failed; free some space "
        "and run again"
    ], done.stderr


def test_a_redirected_output_on_a_nearly_full_disk_is_named(tmp_path, monkeypatch):
    """A write with no file named, the standard output a file on a disk with no room left:
    that file and its disk are named, and what was written there said to be cut short."""
    import sys

    from chipcost.core import disk

    out = (tmp_path / "out.csv").open("w")
    monkeypatch.setattr(sys, "stdout", out)
    room = os.statvfs_result((4096, 4096, 100, 0, 0, 10, 0, 0, 0, 255))
    monkeypatch.setattr(disk.os, "fstatvfs", lambda fd: room)
    try:
        said = no_room(OSError(errno.ENOSPC, "No space left on device"))
    finally:
        out.close()
    assert said == (
        f"the disk holding the standard output, {tmp_path / 'out.csv'} (the file system at "
        f"{mount_of(tmp_path / 'out.csv')}), is full (No space left on device): what was "
        "written there is cut short; free some space there, or write elsewhere, and run again"
    )


def test_remove_run_on_a_full_disk_names_it_and_changes_nothing(tmp_path, sample_runs):
    """On 57591a84 remove-run said DuckDB's words and advised checking permissions."""
    db = tmp_path / "w.duckdb"
    loaded = chipcost(
        "collect", "--replay", str(sample_runs[0]), "--db", str(db), env=_env(tmp_path)
    )
    assert loaded.returncode == 0, loaded.stderr
    listed = chipcost("sources", "--runs", "--format", "json", "--db", str(db), env=_env(tmp_path))
    run_id = json.loads(listed.stdout)[0]["run_id"]
    before = _tables(db)
    wal = tmp_path / "w.duckdb.wal"
    wal.symlink_to(FULL)
    result = chipcost("remove-run", run_id, "--db", str(db), env=_env(tmp_path))
    _one_line_naming_the_disk(result, wal)
    assert f"run {run_id} was not removed: " in result.stderr
    wal.unlink()
    assert _tables(db) == before


def test_a_checkpoint_with_no_room_is_said_as_the_full_disk(tmp_path, caplog):
    """A load committed to the log whose checkpoint finds the disk full: said as the disk, the
    log keeping the load, not as DuckDB's FATAL words."""
    from chipcost.warehouse import db

    class Full:
        def execute(self, sql):
            raise duckdb.IOException(
                "FATAL Error: Failed to create checkpoint because of error: Could not write "
                f'file "{tmp_path}/w.duckdb": No space left on device'
            )

    with caplog.at_level("WARNING"):
        db._checkpoint(Full(), "checkpoint after the load failed (the load is committed)")
    said = caplog.records[-1].getMessage()
    assert said == (
        "checkpoint after the load failed (the load is committed): the disk holding "
        f"{tmp_path}/w.duckdb (the file system at {mount_of(tmp_path / 'w.duckdb')}) is full "
        "(No space left on device): the log (.wal) keeps it; free some space there, or write "
        "elsewhere, and run again"
    )
