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


def test_the_runs_loaded_are_counted_as_every_count(tmp_path):
    """Through core/counting.counted: on b4f20479 '1 of 1 runs' and '1200 of 1500 runs'."""
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    assert _after_interrupt(settings, 1, RUNS[:1]).startswith("every run was loaded: 1 of 1 run (")
    many = [f"2026-11-14T{n:06d}Z" for n in range(1_200)]
    assert _after_interrupt(settings, 1_500, many).startswith("1,200 of 1,500 runs loaded (")


def test_a_replay_of_one_source_counts_the_runs_holding_it(tmp_path):
    """On 444acd6f `--replay ARCHIVE --source lambda` over two runs, one holding lambda, counted
    both: stopped after that run's load it said "1 of 2 runs loaded ... Run the same command
    again to load the rest", where nothing was left (the bar's total was 2 as well)."""
    import shutil

    from chipcost.cli.collect_progress import Shown, shown_on
    from chipcost.pipeline.collect import select_sources
    from chipcost.pipeline.collection import _holding
    from chipcost.pipeline.runners import LOADED, progress_log
    from tests.paths import ROOT

    archive = tmp_path / "archive"
    for run, source in zip(RUNS, ["lambda", "runpod"], strict=True):
        shutil.copytree(ROOT / "sample" / "archive" / run / source, archive / run / source)
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    shown = Shown(len(RUNS))
    with shown_on(shown, "replaying"):
        held = _holding(sorted(archive.iterdir()), select_sources(["lambda"]))
        progress_log.info("loaded", extra={LOADED: held[0].name})
    assert [d.name for d in held] == RUNS[:1] and shown.runs == 1
    assert _after_interrupt(settings, shown.runs, shown.loaded) == (
        f"every run was loaded: 1 of 1 run ({RUNS[0]}) into {settings.warehouse}, each whole; "
        "nothing left to load"
    )


def test_a_live_run_stopped_with_nothing_archived_says_nothing_is_waiting(tmp_path):
    """A marker whose run holds no archived source (stopped inside its first fetch) is no run
    to load: on 2ce24b91 the stop said 'What was fetched is archived ..., 1 run pending'."""
    import shutil

    from chipcost.pipeline.pending import mark_pending
    from tests.paths import ROOT

    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    mark_pending(settings, "2026-11-22T060000Z")
    assert _after_interrupt(settings, None, []).endswith(
        "Nothing fetched is waiting: run `chipcost collect` again"
    )
    mark_pending(settings, RUNS[0])  # this one holds a source's payloads
    shutil.copytree(ROOT / "sample" / "archive" / RUNS[0] / "lambda",
                    tmp_path / "archive" / RUNS[0] / "lambda")  # fmt: skip
    assert "1 run pending" in _after_interrupt(settings, None, [])
