"""A whole collection without Prefect: replays of recorded payloads on the thread runner."""

from __future__ import annotations

import gzip
import json
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from chipcost.core.errors import ParseError
from chipcost.extract import Source, registry
from chipcost.pipeline import collect as collect_module
from chipcost.pipeline import runners
from chipcost.pipeline.collection import CollectFailed
from tests import warehouses
from tests.collecting import collect


def query(db, sql: str):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@dataclass
class Replayed:
    archive: Path
    db: Path
    outcomes: list
    events: list[tuple[str, str]]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory) -> Replayed:
    """The sample's first three runs replayed into a new warehouse file, each parse and load
    noted as it starts and ends (the real steps, called through)."""
    folder = tmp_path_factory.mktemp("replay")
    for run in warehouses.sample_runs()[:3]:
        shutil.copytree(run, folder / "archive" / run.name)
    events, lock = [], threading.Lock()

    def note(*event):
        with lock:
            events.append(event)

    def parsing(sources, *, replay_dir, **kwargs):
        note("parse", replay_dir.name)
        return collect_module.replay_sources(sources, replay_dir=replay_dir, **kwargs)

    def loading(session, run):
        note("load", run.archive_run)
        summary = collect_module.load(session, run)
        note("loaded", run.archive_run)
        return summary

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runners, "replay_sources", parsing)
        patch.setattr(runners, "load", loading)
        db = folder / "w.duckdb"
        outcomes = collect(replay=str(folder / "archive"), db=str(db), data_dir=str(folder))
    return Replayed(folder / "archive", db, outcomes, events)


def test_replay_loads_every_run(replayed):
    db, outcomes = replayed.db, replayed.outcomes
    assert len(outcomes) == 3
    assert all(o.run.status == "ok" for o in outcomes)
    runs = query(db, "SELECT archive_run, mode, sample, status FROM runs ORDER BY observed_at")
    assert [r[0] for r in runs] == sorted(p.name for p in replayed.archive.iterdir())
    assert all(r[1:] == ("replay", True, "ok") for r in runs)
    # Nothing lost: every parsed record is an observation or a reject.
    for o in outcomes:
        source = o.run.sources[0]
        assert len(source.records) + len(source.rejects) > 0
    (observations,) = query(db, "SELECT count(*) FROM observations")[0]
    assert observations == sum(o.summary.records for o in outcomes)


def test_a_replay_parses_at_most_one_run_ahead_of_its_loads(replayed):
    """The next run is parsed while one loads, never two: a long replay holds two runs."""
    events = replayed.events
    runs = sorted(p.name for p in replayed.archive.iterdir())
    assert [o.run.archive_run for o in replayed.outcomes] == runs
    assert [name for kind, name in events if kind == "load"] == runs
    assert sorted(name for kind, name in events if kind == "parse") == runs
    for earlier, later in zip(runs, runs[2:], strict=False):
        assert events.index(("loaded", earlier)) < events.index(("parse", later)), events


def _broken_parse(payloads):
    raise ParseError("broken-test: layout changed")


def test_one_failing_source_does_not_take_down_the_others(tmp_path, archive_copy, monkeypatch):
    real = registry()
    broken = Source("broken-test", "aws", "always fails", fetch=lambda ctx: [], parse=_broken_parse)
    monkeypatch.setattr(collect_module, "registry", lambda: {**real, broken.name: broken})
    run_dir = sorted(archive_copy.iterdir())[0]
    shutil.copytree(run_dir / "aws-pricing-api", run_dir / "broken-test")
    manifest = run_dir / "broken-test" / "manifest.json"  # its own source's (docs/archive.md)
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"source": "broken-test"}))
    # Payloads without their manifest: lost, or a run stopped before writing it.
    (run_dir / "vastai" / "manifest.json").unlink()
    db = warehouses.new(tmp_path / "w.duckdb")
    outcomes = collect(replay=str(run_dir), db=str(db), data_dir=str(tmp_path))
    statuses = {s.source: (s.status, s.message) for s in outcomes[0].run.sources}
    assert statuses["broken-test"] == ("failed", "broken-test: layout changed")
    assert statuses["vastai"][0] == "failed"
    assert (
        "manifest.json is missing, though the payloads beside it are there"
        in (statuses["vastai"][1])
    )
    assert statuses["aws-pricing-api"][0] == "ok"
    assert outcomes[0].run.status == "partial"
    assert query(db, "SELECT count(*) FROM current_prices")[0][0] > 0


def test_a_collection_fails_when_every_source_fails(tmp_path, archive_copy):
    run_dir = sorted(archive_copy.iterdir())[0]
    first = sorted((run_dir / "aws-pricing-api").glob("*.gz"))[0]
    first.write_bytes(gzip.compress(b"{not json")[:-4])  # truncated gzip: corrupt file
    db = warehouses.new(tmp_path / "w.duckdb")
    # The sample holds other sources too: ask only for the one whose archive is corrupt.
    only = ["aws-pricing-api"]
    with pytest.raises(CollectFailed, match="every source failed") as failed:
        collect(replay=str(run_dir), db=str(db), data_dir=str(tmp_path), sources=only)
    assert "corrupt" in str(failed.value) and "aws-pricing-api" in str(failed.value)
    assert [o.run.status for o in failed.value.outcomes] == ["failed"]
    assert query(db, "SELECT status FROM runs")[0][0] == "failed"
    assert query(db, "SELECT count(*) FROM price_history")[0][0] == 0


def test_conflicts_name_each_source_refused_and_a_plain_failure_is_not_one():
    """What fails a collection that loaded the rest: the sources refused as conflicts, counted
    and named with their run, in the singular for one; a source that failed otherwise is a
    partial run's, not a conflict."""
    from dataclasses import replace

    from chipcost.core.runs import LoadSummary
    from chipcost.pipeline.collection import RunOutcome, conflicts
    from chipcost.warehouse.load import LoadedFrom, is_replay_conflict, replay_conflict
    from tests.helpers import day, run_of

    def outcome(day_number: int, *failed: tuple[str, str]):
        """A run whose sources failed with these messages, each said a conflict where it is
        replay_conflict's (as the collection marks the source it refuses so)."""
        run = run_of([], day(day_number))
        sources = [
            replace(
                run.sources[0], source=n, status="failed", message=m, conflict=": conflict:" in m
            )
            for n, m in failed
        ]
        return RunOutcome(replace(run, sources=sources), LoadSummary(0, 0, 0, 0, 0))

    first = LoadedFrom("a" * 64, "2026-11-20T060000Z-abc123")
    said = replay_conflict("runpod", "2026-11-21T060000Z", first, "2 payload(s)")
    down = ("lambda", "lambda: the fetch timed out")
    assert conflicts([outcome(0, down)]) is None
    # A failure that quotes a conflict's words is no conflict: the mark, not the message.
    quoted = replace(outcome(0, ("runpod", said)).run.sources[0], conflict=False)
    assert not is_replay_conflict(quoted)
    one = conflicts([outcome(0, ("runpod", said), down)])
    vastai = replay_conflict("vastai", "2026-11-22T060000Z", first, "1 payload(s)")
    runs = [outcome(0, ("runpod", said)), outcome(1, ("runpod", said), ("vastai", vastai))]
    assert one is not None and one.startswith(
        f"1 source of archived runs loaded before from other payloads was not loaded "
        f"(runpod in {day(0):%Y-%m-%dT%H%M%SZ}): the first load stands, and its message"
    )
    several = conflicts(runs)
    assert several is not None and several.startswith("3 sources of archived runs")
    assert "were not loaded" in several and "the first loads stand, and each message" in several
    assert f"vastai in {day(1):%Y-%m-%dT%H%M%SZ}" in several
