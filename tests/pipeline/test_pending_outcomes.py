"""A pending run loaded from its marker records every source the live run asked for, as the live
run knew it: a source that failed, was skipped, was stopped or never began archived nothing,
and was lost (main at fc78b66b: the run read `ok`, the source `never run`). The marker keeps
each source's outcome as the run goes (pipeline/pending.py); `chipcost collect --pending` in
this process loads it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chipcost.core.settings import Settings
from chipcost.pipeline.pending import BEGUN, mark_pending, note_source, note_stop, pending_runs
from tests.aws_stubs import collector_env
from tests.cli_runner import chipcost
from tests.helpers import rows, words
from tests.holders import holding
from tests.paths import FIXTURES, ROOT
from tests.price_files_server import serve
from tests.warehouses import new

STAMP = "2026-11-21T060000Z"  # a sample run holding lambda's page


def _archived_lambda(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "sample" / "archive" / STAMP / "lambda", tmp_path / "archive" / STAMP / "lambda"
    )


def _pending(tmp_path: Path) -> tuple[Path, object]:
    db = tmp_path / "w.duckdb"
    done = chipcost("collect", "--pending", "--db", str(db), env=collector_env(tmp_path))
    return db, done


def test_a_stopped_runs_sources_that_archived_nothing_are_recorded(tmp_path):
    """lambda archived; runpod failed on its own; vastai begun and aws-spot-feed not begun when
    the stop came: the run is partial, each named with why."""
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    mark_pending(settings, STAMP, ["lambda", "runpod", "vastai", "aws-spot-feed"])
    _archived_lambda(tmp_path)
    note_source(settings, STAMP, "lambda", "ok", "12 records, 0 rejects")
    note_source(settings, STAMP, "runpod", "failed", "runpod: GET https://x answered 503")
    note_source(settings, STAMP, "vastai", BEGUN)
    note_stop(settings, STAMP)
    db, done = _pending(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "sources in this run: 4, 1 ok, 3 failed" in words(done.stdout), done.stdout
    assert rows(db, "SELECT status FROM runs") == [("partial",)]
    said = dict(rows(db, "SELECT source, status || ': ' || message FROM source_runs"))
    assert said["lambda"].startswith("ok: ")
    assert said["runpod"] == "failed: runpod: GET https://x answered 503"
    assert said["vastai"].startswith(
        "failed: vastai: stopped before its fetch ended, as the run was asked to stop"
    )
    assert said["aws-spot-feed"].startswith(
        "failed: aws-spot-feed: not begun: the run was asked to stop"
    )
    assert pending_runs(settings) == []


def test_a_marker_without_outcomes_still_loads(tmp_path):
    """A marker an earlier chipcost wrote (run, warehouse, pid, start: no sources) loads its
    archive as before."""
    _archived_lambda(tmp_path)
    (tmp_path / "pending").mkdir()
    body = {"run": STAMP, "warehouse": str((tmp_path / "w.duckdb").resolve()), "pid": 1}
    (tmp_path / "pending" / f"{STAMP}.json").write_text(json.dumps(body))
    db, done = _pending(tmp_path)
    assert done.returncode == 0, done.stderr
    assert rows(db, "SELECT source, status FROM source_runs") == [("lambda", "ok")]


@pytest.mark.parametrize("ended", [True, False], ids=["failed", "stopped"])
def test_a_run_with_nothing_archived(tmp_path, ended):
    """Nothing archived: a source that failed on its own is recorded, a failed run, as a live
    load records it; a run whose fetches were all cut short is dropped, as before."""
    settings = Settings(data_dir=tmp_path, db_path=new(tmp_path / "w.duckdb"))
    mark_pending(settings, STAMP, ["ecb-rates"])
    if ended:
        note_source(settings, STAMP, "ecb-rates", "failed", "ecb-rates: no such host")
    else:
        note_source(settings, STAMP, "ecb-rates", BEGUN)
        note_stop(settings, STAMP)
    db, done = _pending(tmp_path)
    if ended:
        assert done.returncode == 1, done.stdout + done.stderr  # every source failed
        assert rows(db, "SELECT archive_run, status FROM runs") == [(STAMP, "failed")]
        assert rows(db, "SELECT source, message FROM source_runs") == [
            ("ecb-rates", "ecb-rates: no such host")
        ]
        # Killed between the load's commit and clearing the marker: loaded once all the same.
        mark_pending(settings, STAMP, ["ecb-rates"])
        note_source(settings, STAMP, "ecb-rates", "failed", "ecb-rates: no such host")
        again = chipcost("collect", "--pending", "--db", str(db), env=collector_env(tmp_path))
        assert again.returncode == 0, again.stdout + again.stderr
        assert rows(db, "SELECT count(*) FROM source_runs") == [(1,)]
    else:
        assert done.returncode == 0, done.stderr
        assert rows(db, "SELECT count(*) FROM runs") == [(0,)]
    assert pending_runs(settings) == []


def test_a_live_runs_failed_source_is_recorded_when_its_load_comes_later(tmp_path):
    """The live run: aws-spot-feed fetched, ecb-rates answered 404, the load refused (the file
    held); `collect --pending` records ecb-rates failed with the live run's message."""
    db = new(tmp_path / "w.duckdb")
    with serve(FIXTURES) as server:
        env = {
            **collector_env(tmp_path),
            "CHIPCOST_AWS_SPOT_FEED_URL": f"{server.url}/aws-spot-feed/spot.js",
            "CHIPCOST_ECB_RATES_URL": f"{server.url}/ecb-rates/gone.xml",
            "CHIPCOST_LOCK_WAIT": "1",
        }
        with holding(db, read_only=True):
            refused = chipcost(
                "collect", "--source", "aws-spot-feed", "--source", "ecb-rates", "--db", str(db),
                env=env, cwd=ROOT,
            )  # fmt: skip
    assert refused.returncode == 1, refused.stderr
    loaded = chipcost("collect", "--pending", "--db", str(db), env=env, cwd=ROOT)
    assert loaded.returncode == 0, loaded.stderr
    assert rows(db, "SELECT status FROM runs") == [("partial",)]
    said = dict(rows(db, "SELECT source, status FROM source_runs"))
    assert said == {"aws-spot-feed": "ok", "ecb-rates": "failed"}
    [(message,)] = rows(db, "SELECT message FROM source_runs WHERE source = 'ecb-rates'")
    assert "answered 404" in message and f"ecb-rates: {message[:80]}" in words(refused.stderr)


def test_pending_for_another_warehouse_is_named_with_how_to_load_it(tmp_path):
    """`--pending --db OTHER` beside a run pending for w.duckdb (a full disk's "write
    elsewhere"): it said "no pending runs: every run archived for OTHER is loaded"; now the run,
    its warehouse and both ways to load it, the replay's loading it here."""
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    mark_pending(settings, STAMP, ["lambda"])
    _archived_lambda(tmp_path)
    other, env = tmp_path / "other.duckdb", collector_env(tmp_path)
    done = chipcost("collect", "--pending", "--db", str(other), env=env)
    assert done.returncode == 0, done.stderr
    said = words(done.stdout)
    assert said.startswith(f"no pending runs for {other}, but 1 run of {tmp_path} is pending")
    assert f"{STAMP} for {tmp_path / 'w.duckdb'}" in said
    assert f"chipcost collect --pending --data-dir {tmp_path} --db {tmp_path / 'w.duckdb'}" in said
    replay = f"chipcost collect --replay {tmp_path / 'archive' / STAMP} --db {other}"
    assert replay in said
    loaded = chipcost(*replay.split()[1:], env=env)
    assert loaded.returncode == 0, loaded.stderr
    assert rows(other, "SELECT archive_run FROM runs") == [(STAMP,)]
    assert pending_runs(settings) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_full_disk_names_the_pending_run_and_how_to_write_elsewhere(tmp_path):
    """The warehouse's log on a full disk (/dev/full, as tests/cli/test_disk_full.py): the live
    run's error names the run left pending and the replay that loads it elsewhere."""
    db = new(tmp_path / "w.duckdb")
    (tmp_path / "w.duckdb.wal").symlink_to("/dev/full")
    with serve(FIXTURES) as server:
        env = {
            **collector_env(tmp_path),
            "CHIPCOST_AWS_SPOT_FEED_URL": f"{server.url}/aws-spot-feed/spot.js",
        }
        done = chipcost("collect", "--source", "aws-spot-feed", "--db", str(db), env=env, cwd=ROOT)
    assert done.returncode == 1, done.stderr
    [run] = pending_runs(Settings(data_dir=tmp_path, db_path=db))
    [error] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert "is full (No space left on device)" in error
    assert f"Pending for {db}: {run.name}; to write elsewhere instead, " in error
    assert f"`chipcost collect --replay {run} --db OTHER.duckdb` loads it there" in error
