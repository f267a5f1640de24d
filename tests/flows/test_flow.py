"""The collect flow on a real Prefect server: the pipeline's steps as task runs, an artifact
per run, and a failure as a Failed flow run (the pipeline itself: tests/pipeline)."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil

import pytest

from chipcost.flows.collect import CollectFailed, collect, run_collect
from tests.paths import ROOT
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


def test_a_flow_run_with_a_conflict_beside_a_source_loaded_fails_the_rest_loaded(tmp_path):
    """RunPod's payload of a run loaded before changed (its manifest with it), Lambda's run
    not loaded yet: Lambda loads, RunPod is a conflict, and the flow run is Failed."""
    stamp = "2026-11-21T060000Z"
    folder, db = tmp_path / "archive", str(tmp_path / "w.duckdb")
    for source in ("runpod", "lambda"):
        shutil.copytree(ROOT / "sample" / "archive" / stamp / source, folder / stamp / source)
    first = collect(
        replay=str(folder), db=db, data_dir=str(tmp_path), sources=["runpod"], return_state=True
    )
    assert first.is_completed()
    runpod = folder / stamp / "runpod"
    data = gzip.decompress((runpod / "0001.json.gz").read_bytes())
    data = data.replace(b'"secure": 2.59', b'"secure": 1.11')
    (runpod / "0001.json.gz").write_bytes(gzip.compress(data))
    manifest = json.loads((runpod / "manifest.json").read_text())
    [entry] = [p for p in manifest["payloads"] if p["name"] == "0001.json.gz"]
    entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (runpod / "manifest.json").write_text(json.dumps(manifest))

    state = collect(replay=str(folder), db=db, data_dir=str(tmp_path), return_state=True)
    assert state.is_failed()
    assert f"(runpod in {stamp}): the first load stands" in state.message
    failed = state.result(raise_on_failure=False)
    assert isinstance(failed, CollectFailed)  # what run_collect raises, with the runs loaded
    [outcome] = failed.outcomes
    assert outcome.run.status == "partial" and outcome.summary.records > 0
    assert {s.source: s.status for s in outcome.run.sources} == {"lambda": "ok", "runpod": "failed"}
