"""What `chipcost collect` says after a Ctrl-C of a replay: the runs loaded, and what is left
to load, if anything (the process and its signal: tests/e2e/test_crash.py)."""

from __future__ import annotations

from chipcost.cli.commands.collect import _after_interrupt
from chipcost.core.settings import Settings

RUNS = ["2026-11-14T060000Z", "2026-11-15T060000Z"]


def test_a_replay_stopped_after_every_run_loaded_says_nothing_is_left(tmp_path):
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    said = _after_interrupt(settings, len(RUNS), RUNS)
    # on ad7e6775: "2 of 2 runs loaded ...; nothing of the run under way. Run the same command
    # again to load the rest", with no run under way and none left
    assert said == (
        f"every run was loaded: 2 of 2 runs ({RUNS[0]} … {RUNS[1]}) into {settings.warehouse}, "
        "each whole; nothing left to load"
    )


def test_a_replay_stopped_midway_says_the_same_command_loads_the_rest(tmp_path):
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    said = _after_interrupt(settings, len(RUNS), RUNS[:1])
    assert said == (
        f"1 of 2 runs loaded ({RUNS[0]}) into {settings.warehouse}, each whole; nothing of the "
        "run under way. Run the same command again to load the rest (loaded runs are skipped)"
    )
