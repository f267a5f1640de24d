"""A collection's warehouse session lets readers in between runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chipcost.core.settings import Settings
from chipcost.pipeline.collect import WarehouseSession

READ = "import duckdb, sys; duckdb.connect(sys.argv[1], read_only=True).close()"


def other_process_reads(path: Path) -> bool:
    done = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True)
    return done.returncode == 0


def test_a_released_file_lets_another_process_read_and_is_opened_again_when_needed(tmp_path):
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    with WarehouseSession(settings) as session:
        session.con.execute("SELECT count(*) FROM runs").fetchall()
        assert not other_process_reads(settings.db_path)  # a DuckDB writer keeps readers out
        session.release()
        assert other_process_reads(settings.db_path)
        assert session.con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]
    assert other_process_reads(settings.db_path)
