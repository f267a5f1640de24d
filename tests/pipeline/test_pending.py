"""Pending-run markers: per warehouse, oldest first, nothing but a run stamp trusted."""

from __future__ import annotations

import os
from concurrent.futures import Future

import pytest

from chipcost.core.settings import Settings
from chipcost.pipeline.pending import clear_pending, mark_pending, pending_runs
from tests.cli_runner import chipcost


def test_pending_runs_are_this_warehouses_oldest_first(tmp_path):
    mine = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    other = Settings(data_dir=tmp_path, db_path=tmp_path / "other.duckdb")
    assert pending_runs(mine) == []
    for stamp in ("2026-11-22T060000Z", "2026-11-20T060000Z"):
        mark_pending(mine, stamp)
    mark_pending(other, "2026-11-21T060000Z")
    archive = tmp_path / "archive"
    assert pending_runs(mine) == [archive / "2026-11-20T060000Z", archive / "2026-11-22T060000Z"]
    assert pending_runs(other) == [archive / "2026-11-21T060000Z"]
    clear_pending(mine, "2026-11-20T060000Z")
    clear_pending(mine, "2026-11-20T060000Z")  # twice is harmless
    assert pending_runs(mine) == [archive / "2026-11-22T060000Z"]


def test_a_marker_that_is_not_one_is_left_alone(tmp_path):
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    mark_pending(settings, "2026-11-22T060000Z")
    markers = tmp_path / "pending"
    (markers / "..%2f..%2fetc.json").write_text("{}")
    (markers / "2026-11-23T060000Z.json").write_text("not json")
    assert pending_runs(settings) == [tmp_path / "archive" / "2026-11-22T060000Z"]


@pytest.mark.parametrize(
    "command", [["collect", "--pending"], ["collect", "--source", "ecb-rates"]]
)
def test_a_file_where_the_markers_go_is_named_with_what_to_do(tmp_path, command):
    # It was "error: DIR/pending: File exists", and `collect --pending` said "no pending runs".
    (tmp_path / "pending").write_text("not a folder")
    # A live collect stops before it fetches (the port is closed should it not).
    env = {**os.environ, "CHIPCOST_DATA_DIR": str(tmp_path)}
    env["CHIPCOST_ECB_RATES_URL"] = "http://127.0.0.1:9/eurofxref-hist-90d.xml"
    done = chipcost(*command, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    [said] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert f"{tmp_path / 'pending'} is not a folder" in said and "move or remove" in said
    assert (tmp_path / "pending").read_text() == "not a folder"


def test_a_stopped_run_stays_pending_only_where_something_of_it_was_archived(tmp_path):
    """A stop during the fetch (collection._live), every fetch ended: a run with a source's
    payloads archived stays pending for the next collect to load; one with nothing archived
    is cleared."""
    import shutil

    from chipcost.pipeline.collection import _drop_if_empty
    from tests.paths import ROOT

    ended = Future()
    ended.set_result(None)

    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    kept, empty = "2026-11-21T060000Z", "2026-11-22T060000Z"
    for stamp in (kept, empty):
        mark_pending(settings, stamp)
    shutil.copytree(
        ROOT / "sample" / "archive" / kept / "lambda", tmp_path / "archive" / kept / "lambda"
    )
    (tmp_path / "archive" / empty).mkdir()  # made, nothing of it kept
    for stamp in (kept, empty):
        _drop_if_empty(settings, stamp, [ended])
    assert pending_runs(settings) == [tmp_path / "archive" / kept]


class _Stopped:
    """A fetch's future as a stop leaves it: the wait on its result interrupted (the signal's
    KeyboardInterrupt in the main thread), the fetch itself ended or still winding down."""

    def __init__(self, ended: bool) -> None:
        self.ended = ended

    def result(self) -> None:
        raise KeyboardInterrupt

    def done(self) -> bool:
        return self.ended


class _StoppedRunner:
    def __init__(self, ended: bool) -> None:
        self.ended = ended

    def source(self, *given: object) -> _Stopped:
        return _Stopped(self.ended)


@pytest.mark.parametrize(("ended", "pending"), [(True, 0), (False, 1)], ids=["ended", "running"])
def test_a_stopped_runs_marker_is_cleared_only_once_every_fetch_has_ended(tmp_path, ended, pending):
    """Nothing archived when the stop came: cleared if every fetch had ended. A fetch still
    winding down may yet archive the page it read; the marker was cleared all the same, and
    the stop said nothing fetched was waiting of a run that then held a source: now it stays
    (the next collect drops a run that holds nothing, with a note)."""
    from chipcost.core.network import Network
    from chipcost.extract import registry
    from chipcost.pipeline.collection import _live
    from chipcost.pipeline.pending import Outcome, outcomes

    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    with pytest.raises(KeyboardInterrupt):
        _live(settings, _StoppedRunner(ended), None, [registry()["lambda"]], Network(), fetch=True)
    assert len(pending_runs(settings)) == pending
    if pending:  # the marker kept says the stop cut its source short, for its pending load
        [run] = pending_runs(settings)
        assert outcomes(settings, run.name) == {"lambda": Outcome("asked", stopped=True)}
