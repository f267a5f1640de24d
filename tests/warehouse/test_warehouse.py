"""Warehouse invariants: history only on change, idempotent, atomic, clear errors."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import chipcost.warehouse.load as load_module
from chipcost.core.errors import WarehouseBusy, WarehouseError
from chipcost.core.runs import FAILED
from chipcost.warehouse.db import SCHEMA_VERSION, connect, schema_version
from chipcost.warehouse.db_file import run_lock
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of

PUBLIC_NAMES = {
    "runs",
    "source_runs",
    "observations",
    "price_history",
    "rejects",
    "chips",
    "throughput",
    "current_prices",
    "per_chip_prices",
    "cost_per_token",
    "price_changes",
}


def count(con, sql: str) -> int:
    return con.execute(sql).fetchall()[0][0]


def snapshot(con) -> dict[str, list]:
    return {
        table: con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
        for table in ("runs", "source_runs", "observations", "price_history", "rejects")
    }


def test_fresh_warehouse_has_every_public_name(con):
    names = {
        r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()
    }
    assert PUBLIC_NAMES <= names
    assert schema_version(con) == SCHEMA_VERSION
    assert count(con, "SELECT count(*) FROM chips WHERE chip = 'H100-SXM'") == 1


def test_history_grows_with_changes_not_days(con):
    offers = [record(), record(region="us-west-2", price_per_hour=57.0)]
    for n in range(5):
        load_run(con, run_of(offers, day(n)))
    assert count(con, "SELECT count(*) FROM price_history") == 2
    assert count(con, "SELECT count(*) FROM observations") == 10
    last_seen = con.execute("SELECT max(last_seen_at) FROM price_history").fetchall()[0][0]
    assert last_seen == day(4)


def test_price_change_closes_old_row_and_opens_new(con):
    load_run(con, run_of([record()], day(0)))
    load_run(con, run_of([record()], day(1)))
    summary = load_run(con, run_of([record(price_per_hour=50.0)], day(2)))
    assert (summary.new, summary.changed, summary.withdrawn) == (0, 1, 0)
    rows = con.execute(
        "SELECT price_per_hour, valid_from, valid_to, end_reason FROM price_history "
        "ORDER BY valid_from"
    ).fetchall()
    assert rows == [(55.04, day(0), day(2), "changed"), (50.0, day(2), None, None)]
    change = con.execute(
        "SELECT old_price_per_hour, new_price_per_hour, change_pct FROM price_changes "
        "WHERE change = 'changed'"
    ).fetchall()[0]
    assert change == (55.04, 50.0, pytest.approx(-9.16, abs=0.01))


def test_same_day_twice_adds_no_history(con):
    load_run(con, run_of([record()], day(0)))
    before = count(con, "SELECT count(*) FROM price_history")
    summary = load_run(con, run_of([record()], day(0).replace(hour=18), run_id="second"))
    assert summary.history_changes == 0
    assert count(con, "SELECT count(*) FROM price_history") == before


def test_offer_missing_from_a_successful_run_is_withdrawn(con):
    load_run(con, run_of([record(), record(region="eu-west-1")], day(0)))
    summary = load_run(con, run_of([record()], day(1)))
    assert summary.withdrawn == 1
    assert con.execute(
        "SELECT region, valid_to, end_reason FROM price_history WHERE valid_to IS NOT NULL"
    ).fetchall() == [("eu-west-1", day(1), "withdrawn")]
    assert count(con, "SELECT count(*) FROM price_changes WHERE change = 'withdrawn'") == 1
    assert count(con, "SELECT count(*) FROM current_prices") == 1


def test_failed_source_withdraws_nothing(con):
    load_run(con, run_of([record()], day(0)))
    load_run(con, run_of([record()], day(1), status=FAILED))
    assert count(con, "SELECT count(*) FROM current_prices") == 1


def test_an_older_observation_takes_its_place_in_history(con):
    """An old run loaded late is put in its place among the runs (the history from its day
    restated): the price it saw held until the newer run's, which stays current. On 2487f4c
    it changed nothing here, and an offer only it listed was opened and never closed."""
    load_run(con, run_of([record()], day(5)))
    summary = load_run(con, run_of([record(price_per_hour=60.0)], day(1)))
    assert (summary.new, summary.changed, summary.withdrawn) == (1, 0, 0)
    assert con.execute("SELECT price_per_hour FROM current_prices").fetchall() == [(55.04,)]
    spans = con.execute(
        "SELECT price_per_hour, valid_from, valid_to, end_reason FROM price_history "
        "ORDER BY valid_from"
    ).fetchall()
    assert spans == [(60.0, day(1), day(5), "changed"), (55.04, day(5), None, None)]


def test_failed_load_leaves_previous_state(con, monkeypatch):
    load_run(con, run_of([record()], day(0)))
    before = snapshot(con)

    def explode(*args, **kwargs):
        raise RuntimeError("killed mid-load")

    monkeypatch.setattr(load_module, "_insert_new", explode)
    with pytest.raises(RuntimeError):
        load_run(con, run_of([record(price_per_hour=1.0), record(region="x")], day(1)))
    assert snapshot(con) == before


def test_per_chip_view_divides_by_chips(con):
    load_run(con, run_of([record()], day(0)))
    assert con.execute("SELECT price_per_chip_hour FROM per_chip_prices").fetchall()[0][0] == (
        pytest.approx(55.04 / 8)
    )


def test_second_collector_gets_a_clear_message(tmp_path):
    db = tmp_path / "w.duckdb"
    with run_lock(db):
        with pytest.raises(WarehouseBusy, match="in use by another run"):
            with run_lock(db):
                pass


def test_a_backup_under_flock_waits_for_the_collection_and_holds_it_off(tmp_path):
    """docs/operations.md, "Backups": `flock <db>.lock cp <db> BACKUP` takes the lock the
    collection holds (both are flock(2)), so the copy waits for the run to end; while it
    copies, a collection is refused, and the file names no stale holder."""
    import subprocess
    import time

    db = tmp_path / "w.duckdb"
    db.write_text("the warehouse as the run leaves it")
    backup = tmp_path / "backup.duckdb"
    lock = Path(f"{db}.lock")
    copy = ["flock", str(lock), "cp", str(db), str(backup)]
    with run_lock(db):
        assert lock.read_text().startswith("process ")
        copying = subprocess.Popen(copy)
        time.sleep(1.0)
        assert copying.poll() is None and not backup.exists()  # waiting for the run
    assert copying.wait(timeout=30) == 0 and backup.exists()
    # Free again: on 7dfc559 the file kept "process 4742, started ..." after the run.
    assert lock.read_text() == ""
    holding = subprocess.Popen(["flock", str(lock), "sleep", "30"])
    try:
        while subprocess.run(["flock", "-n", str(lock), "true"]).returncode == 0:
            time.sleep(0.05)
        with pytest.raises(WarehouseBusy) as busy:
            with run_lock(db):
                pass
        assert str(busy.value) == (
            f"the warehouse {db} is in use by another run: wait for it to finish and try again"
        )
    finally:
        holding.kill()
        holding.wait()


def test_duckdb_lock_held_by_another_process_is_reported(tmp_path):
    import subprocess
    import sys

    db = tmp_path / "w.duckdb"
    connect(db).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb,sys,time; c=duckdb.connect({str(db)!r}); print('ready', flush=True); "
            "sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        python = Path(sys.executable).name
        with pytest.raises(WarehouseBusy, match=rf"in use by process {holder.pid} \({python} -c\)"):
            connect(db, read_only=True)
    finally:
        holder.communicate("", timeout=30)


@pytest.mark.parametrize(
    ("name", "read_only", "message"),
    [
        ("missing/w.duckdb", False, "does not exist"),
        ("absent.duckdb", True, "run `chipcost collect` first"),
        (".", False, "is a directory"),
    ],
)
def test_bad_db_paths_are_explained(tmp_path, name, read_only, message):
    with pytest.raises(WarehouseError, match=message):
        connect(tmp_path / name, read_only=read_only)


def test_foreign_duckdb_file_is_not_taken_over(tmp_path):
    path = tmp_path / "other.duckdb"
    other = duckdb.connect(str(path))
    other.execute("CREATE TABLE mine (x INTEGER)")
    other.close()
    with pytest.raises(WarehouseError, match="not a chipcost warehouse"):
        connect(path)


def test_text_file_is_not_a_warehouse(tmp_path):
    path = tmp_path / "notes.duckdb"
    path.write_text("hello")
    with pytest.raises(WarehouseError, match="cannot open"):
        connect(path)


def test_a_migration_that_died_after_creating_its_version_table_is_finished(tmp_path):
    # The version table is created before the first migration's transaction: a process that
    # died in between left a file with that table alone, empty. It is ours: the next writer
    # migrates it.
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE schema_version (version INTEGER, file VARCHAR, applied_at TIMESTAMPTZ)"
    )
    con.close()
    con = connect(path)
    try:
        assert schema_version(con) == SCHEMA_VERSION
    finally:
        con.close()


def test_the_chip_table_carries_the_fp4_peak(con):
    rows = con.execute(
        "SELECT chip, dense_fp4_tflops FROM chips WHERE chip IN ('B200', 'H100-SXM') ORDER BY chip"
    ).fetchall()
    assert rows == [("B200", 9000.0), ("H100-SXM", None)]


def test_a_run_loaded_late_never_replaces_a_newer_fact(con):
    """On the code before, AWS's interruption bucket of a run loaded after a newer one
    replaced the newer bucket (<5% of the 14th over >20% of the 21st)."""

    def advisor(when, bucket: str) -> None:
        run = run_of([record()], when)
        run.sources[0].facts = {
            "spot_interruptions": [
                {"region": "us-east-1", "instance_type": "p5.48xlarge", "os": "Linux",
                 "interruption": bucket, "interruption_max": 5.0, "savings_percent": 50.0,
                 "source": "aws-spot-advisor", "observed_at": when, "payload_ref": "a.json"}
            ]
        }  # fmt: skip
        load_run(con, run)

    advisor(day(7), ">20%")
    advisor(day(1), "<5%")
    kept = con.execute("SELECT interruption FROM spot_interruptions").fetchall()
    assert kept == [(">20%",)]
