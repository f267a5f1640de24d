"""A committed load survives a torn WAL: the loader checkpoints it into the file."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import duckdb

from chipcost.warehouse.db import connect
from tests.paths import ROOT

# Loads one run, then dies the way a crash does: no close, so no checkpoint at close.
LOAD_AND_DIE = textwrap.dedent(
    """
    import os, sys
    from tests.helpers import day, record, run_of
    from chipcost.warehouse.db import connect
    from chipcost.warehouse.load import load_run
    con = connect(sys.argv[1])
    load_run(con, run_of([record(), record(region="us-west-2")], day(1)))
    os._exit(0)
    """
)


def test_a_torn_wal_does_not_drop_a_committed_run(tmp_path):
    db = tmp_path / "w.duckdb"
    connect(db).close()  # schema in the file itself
    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_DIE, str(db)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    wal = db.with_name(db.name + ".wal")
    if wal.exists() and wal.stat().st_size:
        # A tear: the end of the log lost, as a crash during a write or a full disk leaves it.
        with open(wal, "r+b") as handle:
            handle.truncate(wal.stat().st_size // 2)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(1,)]
        assert con.execute("SELECT count(*) FROM price_history").fetchall() == [(2,)]
    finally:
        con.close()
