"""Replaying what is loaded changes nothing users read: tables, `prices` and the report."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import pytest

from chipcost.archive import parse_stamp
from chipcost.pipeline.collection import CollectFailed
from tests import warehouses
from tests.cli_runner import chipcost
from tests.collecting import collect
from tests.helpers import rows
from tests.paths import ROOT

READ_TABLES = ("runs", "source_runs", "observations", "price_history", "rejects")
# The report names the moment it was written, and the moment its health line judged staleness.
GENERATED = re.compile(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")
JUDGED = re.compile(r"(Now|Sources now) \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)")
# great-tables gives each table a random id per rendering (two renderings of one warehouse
# differ there): numbered in order of appearance before comparing.
TABLE_ID = re.compile(r'<div id="([a-z]+)"')


def stable(text: str) -> str:
    text = JUDGED.sub(r"\1 (<now>)", GENERATED.sub("generated <now>", text))
    for n, table_id in enumerate(dict.fromkeys(TABLE_ID.findall(text))):
        text = re.sub(rf"\b{table_id}\b", f"table-{n}", text)
    return text


def what_users_read(db: Path, out: Path) -> dict[str, object]:
    """Every table users read, `chipcost prices` and `chipcost report` (stdout and files)."""
    seen: dict[str, object] = {t: rows(db, f"SELECT * FROM {t} ORDER BY ALL") for t in READ_TABLES}
    for name, args in {
        "prices": ["prices", "--db", str(db)],
        "report": ["report", "--db", str(db), "--out", str(out)],
    }.items():
        done = chipcost(*args, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        assert "section is left out" not in done.stderr, done.stderr
        seen[name] = done.stdout
    for file in sorted(out.iterdir()):
        seen[file.name] = stable(file.read_text("utf-8"))
        file.unlink()
    return seen


def test_a_second_replay_changes_nothing_users_read(tmp_path, sample_runs):
    # The sample's first two runs (a second run's history on the first's), replayed once for
    # the test run (`chipcost collect --replay`, tests/warehouses.py), then again here.
    archive = tmp_path / "archive"
    for run in sample_runs[:2]:
        shutil.copytree(run, archive / run.name)
    db = warehouses.sample(tmp_path / "w.duckdb", first=2)
    before = what_users_read(db, tmp_path / "report")
    outcomes = collect(replay=str(archive), db=str(db), data_dir=str(tmp_path))
    assert {o.run.status for o in outcomes} == {"already_loaded"}
    assert {s.status for o in outcomes for s in o.run.sources} == {"already_loaded"}
    after = what_users_read(db, tmp_path / "report")
    assert after.keys() == before.keys()
    for name in before:
        assert after[name] == before[name], f"{name} changed after a second replay"
    # The attempts are kept, apart from the runs.
    assert rows(db, "SELECT archive_run, outcome FROM attempts ORDER BY archive_run") == [
        (run.name, "already_loaded") for run in sorted(archive.iterdir())
    ]


def test_a_source_loaded_late_leaves_no_already_loaded_rows(tmp_path, archive_copy):
    run_dir = sorted(archive_copy.iterdir())[0]
    payload = sorted((run_dir / "runpod").glob("*.gz"))[0]
    good = payload.read_bytes()
    payload.write_bytes(gzip.compress(b"{not json")[:-4])  # corrupt: runpod fails
    db = warehouses.new(tmp_path / "w.duckdb")
    collect(replay=str(run_dir), db=str(db), data_dir=str(tmp_path))
    payload.write_bytes(good)  # restored from a backup: runpod loads, the others are loaded
    [outcome] = collect(replay=str(run_dir), db=str(db), data_dir=str(tmp_path))
    statuses = {s.source: s.status for s in outcome.run.sources}
    assert statuses.pop("runpod") == "ok" and set(statuses.values()) == {"already_loaded"}
    assert rows(db, "SELECT count(*) FROM source_runs WHERE status = 'already_loaded'") == [(0,)]
    # Each source's latest word (what the report's health shows) is about its own load.
    latest = rows(
        db,
        "SELECT s.source, arg_max(s.status, r.finished_at) FROM source_runs s JOIN runs r "
        "USING (run_id) GROUP BY s.source",
    )
    assert {status for _, status in latest} == {"ok"}


def test_a_replay_whose_sources_all_fail_is_dated_by_its_archived_run(tmp_path, archive_copy):
    run_dir = sorted(archive_copy.iterdir())[-1]
    for source in run_dir.iterdir():
        if source.name != "runpod":
            shutil.rmtree(source)
    for payload in (run_dir / "runpod").glob("*.gz"):
        payload.write_bytes(b"not gzip")
    db = warehouses.new(tmp_path / "w.duckdb")
    with pytest.raises(CollectFailed, match="every source failed"):
        collect(replay=str(run_dir), db=str(db), data_dir=str(tmp_path))
    assert rows(db, "SELECT status, observed_at FROM runs") == [
        ("failed", parse_stamp(run_dir.name))
    ]
