"""A replay holds the warehouse from its first load to its last: each run its own transaction,
one checkpoint at the end; a crash keeps the runs it committed."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from chipcost.pipeline import collect as collect_module
from chipcost.pipeline import runners
from tests import warehouses
from tests.collecting import collect
from tests.helpers import rows
from tests.paths import ROOT

READ = "import duckdb, sys; duckdb.connect(sys.argv[1], read_only=True).close()"

# Replays an archive and dies the way a crash does (no close, so no checkpoint at close)
# once the second run's load begins.
REPLAY_AND_DIE = textwrap.dedent(
    """
    import os, sys
    from chipcost.pipeline import collect, runners
    from tests.collecting import collect as replay
    loads = []
    def dying(session, run):
        loads.append(run.archive_run)
        if len(loads) == 2:
            os._exit(0)
        return collect.load(session, run)
    runners.load = dying
    replay(replay=sys.argv[1], db=sys.argv[2], data_dir=sys.argv[3])
    """
)


def other_process_reads(path: Path) -> bool:
    done = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True)
    return done.returncode == 0


def test_a_replay_commits_each_run_and_checkpoints_once_at_its_end(
    tmp_path, archive_copy, monkeypatch
):
    db = tmp_path / "w.duckdb"
    wal = db.with_name(db.name + ".wal")
    seen = []

    def loading(session, run):
        summary = collect_module.load(session, run)
        committed = session.con.execute("SELECT archive_run FROM runs ORDER BY ALL").fetchall()
        seen.append((committed, wal.exists() and wal.stat().st_size > 0))
        seen[-1] += (other_process_reads(db),)
        return summary

    monkeypatch.setattr(runners, "load", loading)
    outcomes = collect(replay=str(archive_copy), db=str(db), data_dir=str(tmp_path))
    names = sorted(p.name for p in archive_copy.iterdir())
    assert [o.run.archive_run for o in outcomes] == names
    for n, (committed, in_wal, readable) in enumerate(seen, start=1):
        assert committed == [(name,) for name in names[:n]]  # each run committed as it loads
        assert in_wal and not readable  # not checkpointed yet; the file is held
    assert not wal.exists() or wal.stat().st_size == 0  # one checkpoint, at the end
    assert other_process_reads(db)
    assert rows(db, "SELECT count(*) FROM runs") == [(len(names),)]


def test_a_replay_that_dies_mid_way_keeps_its_committed_runs_and_loads_the_rest_again(
    tmp_path, archive_copy
):
    crashed, clean = tmp_path / "crashed.duckdb", tmp_path / "clean.duckdb"
    done = subprocess.run(
        [sys.executable, "-c", REPLAY_AND_DIE, str(archive_copy), str(crashed), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in archive_copy.iterdir())
    # The first run was committed (in the WAL only) before the process died: it is there.
    assert rows(crashed, "SELECT archive_run FROM runs") == [(names[0],)]
    again = collect(replay=str(archive_copy), db=str(crashed), data_dir=str(tmp_path))
    assert {s.status for s in again[0].run.sources} == {"already_loaded"}
    warehouses.sample(clean, first=len(names))  # the same runs replayed by a collect that lived
    # Nothing lost or doubled: the same history and observations as a replay that never died.
    for sql in (
        "SELECT * EXCLUDE (first_run_id, last_run_id) FROM price_history ORDER BY ALL",
        "SELECT * EXCLUDE (run_id) FROM observations ORDER BY ALL",
        "SELECT * EXCLUDE (run_id) FROM rejects ORDER BY ALL",
    ):
        assert rows(crashed, sql) == rows(clean, sql), sql
