"""The collect flow on a real Prefect server: the pipeline's steps as task runs, an artifact
per run, and a failure as a Failed flow run (the pipeline itself: tests/pipeline)."""

from __future__ import annotations

import gzip

import pytest

from chipcost.flows.collect import CollectFailed, collect, run_collect
from tests.shared_prefect import artifacts_of, task_runs_of

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_a_replay_runs_as_a_flow_with_a_task_per_archived_run(tmp_path, archive_copy):
    db = tmp_path / "w.duckdb"
    state = collect(replay=str(archive_copy), db=str(db), data_dir=str(tmp_path), return_state=True)
    outcomes = state.result()
    runs = sorted(p.name for p in archive_copy.iterdir())
    assert [o.run.archive_run for o in outcomes] == runs
    assert all(o.run.status == "ok" for o in outcomes)

    tasks = task_runs_of(state)
    # One task run per archived run, named by its stamp, and one load per run.
    assert sorted(t.name for t in tasks if t.name in runs) == runs
    loads = [t for t in tasks if t.name.startswith("load-run")]
    assert len(loads) == len(runs) and all(t.state.is_completed() for t in loads)
    found = [a for a in artifacts_of(state) if a.key == "collect-summary"]
    assert len(found) == len(runs) and all(a.type == "table" for a in found)


def test_a_flow_run_fails_with_the_message_when_every_source_fails(tmp_path, archive_copy):
    run_dir = sorted(archive_copy.iterdir())[0]
    first = sorted((run_dir / "aws-pricing-api").glob("*.gz"))[0]
    first.write_bytes(gzip.compress(b"{not json")[:-4])  # truncated gzip: corrupt file
    db = tmp_path / "w.duckdb"
    only = ["aws-pricing-api"]
    state = collect(
        replay=str(run_dir), db=str(db), data_dir=str(tmp_path), sources=only, return_state=True
    )
    assert state.is_failed()
    assert "corrupt" in state.message and "aws-pricing-api" in state.message
    with pytest.raises(CollectFailed, match="every source failed") as failed:
        run_collect(replay=str(run_dir), db=str(db), data_dir=str(tmp_path), sources=only)
    assert [o.run.archive_run for o in failed.value.outcomes] == [run_dir.name]
