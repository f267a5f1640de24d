"""A run is named whole, and an archived run loads once: `remove-run` takes only a run's full id
or stamp, and an archived run replayed with a payload changed is a conflict said in the
collect summary (the first load stands), which `remove-run` of the first load then undoes.
Real DuckDB files, loaded by `collect --replay` from copies of the sample archive."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from tests.cli_runner import chipcost
from tests.paths import ROOT

STAMP = "2026-11-21T060000Z"
SOURCES = ("runpod", "lambda")


def _archive(folder: Path, stamp: str = STAMP) -> Path:
    """A copy of the sample archive's run `stamp`, RunPod's and Lambda's payloads alone."""
    for source in SOURCES:
        shutil.copytree(ROOT / "sample" / "archive" / stamp / source, folder / stamp / source)
    return folder


def _change_price(folder: Path, old: bytes, new: bytes, name: str = "0001.json.gz") -> None:
    """RunPod's payload `name` with `old` made `new`, its manifest's digest and size with it:
    the run rewritten whole, as a restore of another copy would leave it."""
    source = folder / STAMP / "runpod"
    data = gzip.decompress((source / name).read_bytes())
    assert old in data
    data = data.replace(old, new)
    (source / name).write_bytes(gzip.compress(data))
    manifest = json.loads((source / "manifest.json").read_text())
    [entry] = [p for p in manifest["payloads"] if p["name"] == name]
    entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (source / "manifest.json").write_text(json.dumps(manifest))


def _replay(folder: Path, db: Path, *more: str):
    return chipcost("collect", "--replay", str(folder), "--db", str(db), *more)


def _runs(db: Path) -> list[tuple[str, str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT run_id, status FROM runs ORDER BY finished_at").fetchall()


def _runpod_prices(db: Path) -> set[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return set(
            con.execute(
                "SELECT instance_type, pricing_model, price_per_hour, valid_from, valid_to "
                "FROM price_history WHERE source = 'runpod'"
            ).fetchall()
        )


@pytest.fixture
def loaded(tmp_path) -> tuple[Path, Path]:
    """(the archive, a warehouse it was replayed into once)."""
    folder, db = _archive(tmp_path / "archive"), tmp_path / "w.duckdb"
    assert _replay(folder, db).returncode == 0
    return folder, db


@pytest.mark.parametrize(
    "given",
    [
        "2026",  # a year: on 697f5e5 it removed the run
        "2026-11",
        "2026-11-27",
        "2026-11-21T06",
        "2026-11-21T060000",  # a stamp cut short of its Z
        f"{STAMP}-",
        " ",
    ],
)
def test_remove_run_refuses_a_part_of_a_name_saying_what_it_takes(loaded, given):
    _, db = loaded
    before = _runs(db)
    done = chipcost("remove-run", given, "--db", str(db))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    said = " ".join(done.stderr.split())
    assert "remove-run takes a run's full id" in said and "or its whole stamp" in said
    assert "`chipcost sources --runs` lists" in said
    assert len(done.stderr.strip().splitlines()) == 1
    assert _runs(db) == before


def test_remove_run_takes_the_full_id_the_stamp_and_the_id_without_its_suffix(tmp_path):
    folder = _archive(tmp_path / "archive")
    _archive(folder, "2026-11-20T060000Z")
    db = tmp_path / "w.duckdb"
    assert _replay(folder, db).returncode == 0
    [(older, _), (newer, _)] = sorted(_runs(db))
    assert chipcost("remove-run", newer, "--db", str(db)).returncode == 0  # the full id
    stamp = older.rsplit("-", 1)[0]  # the id without its suffix
    assert chipcost("remove-run", stamp, "--db", str(db)).returncode == 0
    assert _runs(db) == []
    assert _replay(folder, db).returncode == 0
    assert chipcost("remove-run", STAMP, "--db", str(db)).returncode == 0  # the archive run
    assert len(_runs(db)) == 1


@pytest.mark.parametrize(
    ("old", "new", "payload", "moves"),
    [
        (b'"secure": 2.59', b'"secure": 1.11', "0001.json.gz", True),  # a price
        (b'"community": 1.92', b'"community": 1.93', "0001.json.gz", True),
        # the other payload, whose price this source does not read: its bytes changed all the same
        (b'"securePrice": 2.59', b'"securePrice": 9.99', "0002.json.gz", False),
    ],
)
def test_a_run_replayed_with_a_payload_changed_is_a_conflict_and_the_first_load_stands(
    loaded, old, new, payload, moves
):
    """On 697f5e5 the second replay was "ok": both prices observed at one moment, the history
    kept the first, and removing the first load dropped the offers the second counted."""
    folder, db = loaded
    first = _runpod_prices(db)
    [(first_id, _)] = _runs(db)
    _change_price(folder, old, new, payload)
    done = _replay(folder, db)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    said = " ".join((done.stdout + done.stderr).split())
    assert f"runpod: conflict: archive run {STAMP} was loaded before (run {first_id})" in said
    assert f"{STAMP}/runpod/{payload}" in said and "the first load stands" in said
    assert f"`chipcost remove-run {first_id}`" in said
    assert _runpod_prices(db) == first  # nothing of the second load stored
    with duckdb.connect(str(db), read_only=True) as con:
        counted = con.execute(
            "SELECT count(*) FROM observations o JOIN runs r USING (run_id) WHERE r.run_id <> ?",
            [first_id],
        ).fetchone()
    assert counted == (0,)
    # Removing the first load says what it removes, and a replay then loads the new payloads.
    dry = chipcost("remove-run", first_id, "--dry-run", "--db", str(db))
    assert "2 ok (lambda, runpod)" in dry.stdout, dry.stdout
    assert chipcost("remove-run", first_id, "--db", str(db)).returncode == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM price_history").fetchone() == (0,)
    again = _replay(folder, db)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "conflict" not in again.stdout + again.stderr
    assert (_runpod_prices(db) != first) is moves


def test_a_conflict_beside_a_source_loaded_fails_the_collect_the_rest_loaded(tmp_path):
    """RunPod loaded alone, its payload changed, then the whole run replayed: Lambda loads and
    RunPod is a conflict. The collect exited 0 there (only a run whose every source failed
    failed it), though the data asked for was refused."""
    folder, db = _archive(tmp_path / "archive"), tmp_path / "w.duckdb"
    assert _replay(folder, db, "--source", "runpod").returncode == 0
    [(first_id, _)] = _runs(db)
    _change_price(folder, b'"secure": 2.59', b'"secure": 1.11')
    done = _replay(folder, db)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    said = " ".join(done.stderr.split())
    assert (
        f"error: 1 source of archived runs loaded before from other payloads was not loaded "
        f"(runpod in {STAMP}): the first load stands" in said
    )
    assert "every source failed" not in said
    # The summary as for any partial run: the conflict, Lambda ok, the warehouse to read.
    summary = " ".join(done.stdout.split())
    assert f"runpod failed: runpod: conflict: archive run {STAMP}" in summary
    assert f"`chipcost remove-run {first_id}`" in summary
    assert "partial" in summary and "lambda" in summary
    assert f"warehouse: {db}" in summary and "nothing was loaded" not in summary
    with duckdb.connect(str(db), read_only=True) as con:
        sources = con.execute(
            "SELECT source, status FROM source_runs WHERE run_id <> ? ORDER BY source",
            [first_id],
        ).fetchall()
    assert sources == [("lambda", "ok"), ("runpod", "failed")]
    # Replayed again: Lambda is already loaded, RunPod still in conflict: exit 1 again.
    again = _replay(folder, db)
    assert again.returncode == 1 and "conflict" in again.stderr, again.stdout + again.stderr


def test_a_run_replayed_unchanged_is_already_loaded_not_a_conflict(loaded):
    folder, db = loaded
    done = _replay(folder, db)
    assert done.returncode == 0 and "conflict" not in done.stdout + done.stderr
    assert len(_runs(db)) == 1


def test_a_load_finding_the_run_loaded_meanwhile_with_other_payloads_loads_nothing(tmp_path):
    """Two collects of one archived run at once: the one whose transaction sees the other's
    load, its payloads different, fails the source as the same conflict."""
    from dataclasses import replace

    from tests.helpers import day, record, run_of
    from tests.warehouses import of_runs

    def archived(price: float, digest: str, run_id: str):
        run = run_of([record(price_per_hour=price)], day(0), run_id=run_id)
        [source] = run.sources
        return replace(run, archive_run=STAMP, sources=[replace(source, payload_digest=digest)])

    db = of_runs(tmp_path / "w.duckdb", [archived(98.0, "a" * 64, f"{STAMP}-first")])
    second = archived(12.0, "b" * 64, f"{STAMP}-second")
    con = duckdb.connect(str(db))
    try:
        from chipcost.warehouse.load import load_run

        summary = load_run(con, second)
        prices = con.execute("SELECT price_per_hour FROM price_history").fetchall()
    finally:
        con.close()
    [source] = second.sources
    assert source.status == "failed" and summary.records == 0
    assert f"conflict: archive run {STAMP} was loaded before (run {STAMP}-first)" in source.message
    assert prices == [(98.0,)]
