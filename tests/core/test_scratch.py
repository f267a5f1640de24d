"""Scratch folders a killed process left are removed by the next one (chipcost.core.scratch):
a real process killed with SIGKILL after making its DuckDB spill folder, and the folders a
sweep must leave alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from chipcost.core.scratch import STALE_SECONDS, scratch, scratch_folder, sweep

# A process that makes its spill folder in TMPDIR, says where, and is killed before any exit
# handler runs.
KILLED = (
    "import os, signal; from chipcost.warehouse.reader import spill_directory; "
    "print(spill_directory(), flush=True); os.kill(os.getpid(), signal.SIGKILL)"
)


def _aged(folder: Path, seconds: float = STALE_SECONDS + 60) -> None:
    then = time.time() - seconds
    for path in (*folder.iterdir(), folder):
        os.utime(path, (then, then), follow_symlinks=False)


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return int(done.stdout)


def test_a_spill_folder_a_killed_read_left_is_removed_by_the_next(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", KILLED], env=env, capture_output=True, text=True)
    assert done.returncode == -9, done.stderr
    left = Path(done.stdout.strip())
    assert left.parent == tmp_path and left.is_dir()  # no exit handler ran
    (left / "duckdb_temp_block-1.block").write_bytes(b"x" * 1024)
    _aged(left)
    made = scratch_folder("chipcost-spill", tmp_path)
    assert not left.exists() and made.is_dir() and made.name.startswith("chipcost-spill-")


def test_a_sweep_leaves_what_is_not_a_dead_processs_stale_folder(tmp_path):
    dead = _dead_pid()
    stale = tmp_path / f"chipcost-measure-{dead}-abc"
    recent = tmp_path / f"chipcost-measure-{dead}-def"  # a process of another namespace, busy
    alive = tmp_path / f"chipcost-measure-{os.getppid()}-ghi"
    other = tmp_path / f"chipcost-spill-{dead}-jkl"  # another name
    mine = tmp_path / "chipcost-measure-notapid-x"
    for folder in (stale, recent, alive, other, mine):
        folder.mkdir()
        (folder / "f").write_text("x")
    for folder in (stale, alive, other, mine):
        _aged(folder)
    not_a_folder = tmp_path / f"chipcost-measure-{dead}-file"
    not_a_folder.write_text("x")
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / f"chipcost-measure-{dead}-link").symlink_to(target)
    assert sweep("chipcost-measure", tmp_path) == [stale]
    assert all(p.exists() for p in (recent, alive, other, mine, not_a_folder, target))


def test_a_scratch_block_removes_its_folder_on_every_way_out(tmp_path):
    try:
        with scratch(".chipcost-changes", tmp_path) as folder:
            (folder / "events.parquet").write_bytes(b"x")
            assert folder.name.startswith(f".chipcost-changes-{os.getpid()}-")
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert not folder.exists() and list(tmp_path.iterdir()) == []
