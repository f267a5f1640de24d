"""What only the lake warehouse does (DuckLake, catalog in a real PostgreSQL started by the
tests): writers at once, migrations racing, a load killed midway, its maintenance, its
catalog's and data path's errors. What it shares with a DuckDB file is in test_conformance.py."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from chipcost.core.errors import ChipcostError, WarehouseError
from chipcost.core.settings import Warehouse
from chipcost.pipeline import collect
from chipcost.pipeline.collect import WarehouseSession
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.db import SCHEMA_VERSION, connect, schema_version
from chipcost.warehouse.load import load_run
from chipcost.warehouse.readonly import run_readonly
from tests.helpers import day, record, run_of
from tests.lake_support import copy_of, replay, replay_run, settings_for


@pytest.fixture(scope="module")
def read_lake(pg_server, lake_template, tmp_path_factory):
    """One lake (migrated, seeded, no runs) for the module's tests that only read it: each
    test's own copy cost a database and an attach more."""
    return copy_of(pg_server, lake_template, tmp_path_factory.mktemp("lake") / "lake-data")


@pytest.fixture(scope="module")
def loaded_lake(pg_server, lake_template, tmp_path_factory):
    """One lake with one run loaded (one H100-SXM price, 55.04) for the tests that only
    read it."""
    lake = copy_of(pg_server, lake_template, tmp_path_factory.mktemp("lake") / "lake-data")
    con = open_warehouse(lake)
    try:
        load_run(con, run_of([record()], day(0)))
    finally:
        con.close()
    return lake


def _data_files(lake: Warehouse, *tables: str) -> list[int]:
    """How many data files each table has, read at one attach."""
    con = connect(lake, read_only=True)
    try:
        listed = "SELECT count(*) FROM ducklake_list_files('lake', ?)"
        return [con.execute(listed, [table]).fetchall()[0][0] for table in tables]
    finally:
        con.close()


def test_a_collection_maintains_the_lake_once_when_it_ends(
    lake, tmp_path, sample_runs, monkeypatch
):
    # Each load writes its own Parquet files; DuckLake's CHECKPOINT (half a second and more)
    # merges them, once as the collection ends rather than after every load.
    settings = settings_for(lake, tmp_path)
    opened = []

    def counted(*args, **kwargs):
        opened.append(args)
        return open_warehouse(*args, **kwargs)

    monkeypatch.setattr(collect, "open_warehouse", counted)
    with WarehouseSession(settings) as session:
        for run_dir in sample_runs[:2]:
            replay_run(settings, session, run_dir, None)
        # Lake readers read beside a writer: the session attaches once, not once a run.
        assert len(opened) == 1
        session.close()
        during = _data_files(lake, "price_history", "observations")
    after = _data_files(lake, "price_history", "observations")
    assert min(during) >= 2
    assert all(a < d for a, d in zip(after, during, strict=True)), (during, after)


def test_a_reader_sees_the_last_commit_while_a_load_is_open(lake):
    writer = open_warehouse(lake)
    load_run(writer, run_of([record()], day(0)))
    writer.execute("BEGIN TRANSACTION")
    writer.execute("UPDATE price_history SET price_per_hour = 1.0")
    writer.execute("INSERT INTO runs SELECT * FROM runs")
    reader = connect(lake, read_only=True)  # not refused, not waiting
    try:
        assert reader.execute("SELECT price_per_hour FROM price_history").fetchall() == [(55.04,)]
        assert reader.execute("SELECT count(*) FROM runs").fetchall() == [(1,)]
    finally:
        reader.close()
        writer.execute("ROLLBACK")
        writer.close()


def test_two_collectors_of_different_sources_both_commit(lake):
    runs = [run_of([record()], day(1), run_id="a"), run_of([record()], day(1), run_id="b")]
    runs[1].sources[0].source = "other-source"
    runs[1].sources[0].records = [
        r.__class__(**{**r.__dict__, "source": "other-source"}) for r in runs[1].sources[0].records
    ]
    barrier, errors = threading.Barrier(2), []

    def collect(run) -> None:
        con = open_warehouse(lake)
        try:
            barrier.wait()
            load_run(con, run)
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            con.close()

    threads = [threading.Thread(target=collect, args=(run,)) for run in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    con = connect(lake, read_only=True)
    try:
        assert con.execute("SELECT run_id FROM runs ORDER BY 1").fetchall() == [("a",), ("b",)]
        sources = con.execute("SELECT DISTINCT source FROM price_history ORDER BY 1").fetchall()
        assert sources == [("aws-pricing-api",), ("other-source",)]
    finally:
        con.close()


KILLED_LOAD = """
import os, sys
from chipcost.core.settings import Warehouse
from chipcost.pipeline.collect import WarehouseSession
from chipcost.pipeline.seed import open_warehouse
con = open_warehouse(Warehouse(sys.argv[1], sys.argv[2]))
con.execute("BEGIN TRANSACTION")
con.execute("DELETE FROM price_history")
con.execute("INSERT INTO runs SELECT * FROM runs")
os._exit(9)  # killed mid-load: no commit, no rollback
"""


def test_a_load_killed_midway_leaves_the_last_snapshot(lake):
    con = open_warehouse(lake)
    load_run(con, run_of([record()], day(0)))
    con.close()
    done = subprocess.run(
        [sys.executable, "-c", KILLED_LOAD, lake.url, lake.lake_data], capture_output=True
    )
    assert done.returncode == 9, done.stderr
    con = open_warehouse(lake)
    try:
        assert con.execute("SELECT count(*) FROM price_history").fetchall() == [(1,)]
        load_run(con, run_of([record(price_per_hour=60.0)], day(1)))  # the next run recovers
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(2,)]
    finally:
        con.close()


def test_two_migrations_at_once_both_end_current(empty_lake):
    barrier = threading.Barrier(2)
    assert _twice_at_once(lambda: (barrier.wait(), connect(empty_lake).close())) == []
    _each_migration_applied_once(empty_lake)


def _twice_at_once(action) -> list[Exception]:
    """`action` run in two threads at once; what each raised."""
    errors: list[Exception] = []

    def run() -> None:
        try:
            action()
        except Exception as exc:  # returned
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_two_processes_applying_a_version_bump_at_once_apply_it_once(lake, monkeypatch):
    """A migration that changes no table (099 only moves the version) appends one row: two
    migrators inside it at once would both commit (DuckLake commits appends side by side)
    but for the row each also rewrites. Both are held inside it until the other is too."""
    from chipcost.warehouse import db
    from chipcost.warehouse import lake as lake_module

    # 100 moves the version only; 101, 103 and 104 after it add a column, a table and a
    # column, taken out to be added again
    bump = 100
    con = duckdb_connection(lake)
    try:
        con.execute("DELETE FROM schema_version WHERE version >= ?", [bump])
        con.execute("ALTER TABLE throughput DROP COLUMN deployment")
        con.execute("DROP TABLE price_marks")
        con.execute("ALTER TABLE rejects DROP COLUMN offer")
    finally:
        con.close()
    newest = next(sql for version, _, sql in db.migrations() if version == bump)
    inside, adapt = threading.Barrier(2, timeout=60), lake_module.adapt

    def held(sql: str) -> str:
        if sql == newest:
            try:
                inside.wait()
            except threading.BrokenBarrierError:
                pass  # the other applied it and this one retried: nothing to wait for
        return adapt(sql)

    monkeypatch.setattr(lake_module, "adapt", held)
    assert _twice_at_once(lambda: connect(lake).close()) == []
    _each_migration_applied_once(lake)


def test_a_version_another_process_committed_since_the_first_look_is_not_applied_again(
    lake, monkeypatch
):
    """The first look read the version before the last one; the other process's commit of the
    last one came before this one's transaction began: it is seen there, and skipped."""
    from chipcost.warehouse import db

    monkeypatch.setattr(db, "_first_look", lambda con: (SCHEMA_VERSION - 1, 0))
    connect(lake).close()
    _each_migration_applied_once(lake)


def duckdb_connection(lake: Warehouse):
    """The lake attached for writing, without chipcost's migration on opening."""
    from chipcost.warehouse.lake import connect_lake

    return connect_lake(lake)


def _each_migration_applied_once(lake: Warehouse) -> None:
    con = connect(lake, read_only=True)
    try:
        rows = con.execute("SELECT version FROM schema_version ORDER BY 1").fetchall()
        assert [r[0] for r in rows] == sorted({r[0] for r in rows})  # each applied once
        assert schema_version(con) == SCHEMA_VERSION
    finally:
        con.close()


def test_a_first_migration_committed_meanwhile_is_not_taken_for_someone_elses(
    empty_lake, monkeypatch
):
    # The window two first migrations race through, held open: this one has read the
    # version (none yet) when another commits its tables. Read apart, the tables without
    # the version looked like another application's database.
    from chipcost.warehouse import db

    read_version = db.schema_version

    def version_then_another_migrates(con):
        found = read_version(con)
        monkeypatch.setattr(db, "schema_version", read_version)
        connect(empty_lake).close()  # the other process's whole migration commits
        return found

    monkeypatch.setattr(db, "schema_version", version_then_another_migrates)
    connect(empty_lake).close()
    _each_migration_applied_once(empty_lake)


def test_postgres_down_is_one_line_naming_what_to_do(pg_server, tmp_path):
    from tests.pg_server import free_port

    url = "ducklake:postgres:" + pg_server.conninfo("nowhere", port=free_port())
    with pytest.raises(WarehouseError) as error:
        connect(Warehouse(url, str(tmp_path / "d")))
    message = str(error.value)
    assert "not reachable" in message and "\n" not in message
    # On 7dfc559 the mask took the colon after the password ("password=<redacted> PostgreSQL").
    assert "password=***: PostgreSQL is not reachable" in message
    assert "lake-test-pw" not in message


def test_an_unknown_host_is_named_as_the_conninfo_s_host(pg_server, tmp_path):
    url = "ducklake:postgres:" + pg_server.conninfo("chipcost").replace(
        "host=127.0.0.1", "host=no-such-host.invalid"
    )
    with pytest.raises(WarehouseError) as error:
        connect(Warehouse(url, str(tmp_path / "d")), read_only=True)
    assert "(the host name is not known here); fix the conninfo's host" in str(error.value)


def test_a_role_postgres_does_not_know_is_named(pg_server, tmp_path):
    """On 7dfc559 a server that trusts the host said DuckDB's raw 'FATAL: role "bob" does not
    exist' (one that asks for a password says it refused the user or password, above)."""
    role = f"nobody_{abs(hash(str(tmp_path))) % 10**6}"
    url = f"ducklake:postgres:dbname=postgres host=127.0.0.1 port={pg_server.port} user={role}"
    with pg_server.hba_line(f"host all {role} 127.0.0.1/32 trust"):
        with pytest.raises(WarehouseError) as error:
            connect(Warehouse(url, str(tmp_path / "d")), read_only=True)
    assert f"PostgreSQL has no role {role}: fix the conninfo's user (or create the role" in str(
        error.value
    )


def test_a_connection_pg_hba_refuses_is_named(pg_server, tmp_path):
    role = f"refused_{abs(hash(str(tmp_path))) % 10**6}"
    url = f"ducklake:postgres:dbname=postgres host=127.0.0.1 port={pg_server.port} user={role}"
    with pg_server.hba_line(f"host all {role} 127.0.0.1/32 reject"):
        with pytest.raises(WarehouseError) as error:
            connect(Warehouse(url, str(tmp_path / "d")), read_only=True)
    assert "PostgreSQL's pg_hba.conf does not admit this host, user and database" in str(
        error.value
    )


def test_a_wrong_password_is_named_and_not_shown(pg_server, tmp_path):
    url = "ducklake:postgres:" + pg_server.conninfo(pg_server.new_database(), password="nope")
    with pytest.raises(WarehouseError, match="refused the user or password") as error:
        connect(Warehouse(url, str(tmp_path / "d")))
    assert "nope" not in str(error.value)


def test_an_unwritable_data_path_is_named_and_nothing_is_written(pg_server, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    url = "ducklake:postgres:" + pg_server.conninfo(pg_server.new_database())
    with pytest.raises(WarehouseError, match="CHIPCOST_LAKE_DATA"):
        connect(Warehouse(url, str(blocker / "lake")))
    good = Warehouse(url, str(tmp_path / "ok"))
    connect(good).close()  # the next run, with a usable path, creates the lake
    assert Path(good.lake_data).is_dir()


def test_a_reader_of_a_lake_never_created_is_told_to_migrate(pg_server, tmp_path):
    url = "ducklake:postgres:" + pg_server.conninfo(pg_server.new_database())
    with pytest.raises(WarehouseError, match="chipcost migrate|not a chipcost warehouse"):
        connect(Warehouse(url, str(tmp_path / "d")), read_only=True)


def test_two_collects_replaying_the_same_runs_load_each_once(lake, tmp_path, sample_runs):
    # DuckLake lets two transactions that only append commit together: both collects loaded
    # every run (16 runs for 8, each current price four times). Each load now rewrites one
    # row first, so the later conflicts, is rerun, and finds the run loaded. One run shows it
    # as well as several: each is its own load.
    runs, sources = sample_runs[:1], ["aws-pricing-api", "runpod"]
    barrier, errors = threading.Barrier(2), []

    def collect(name: str) -> None:
        settings = settings_for(lake, tmp_path / name)
        try:
            barrier.wait()
            replay(settings, runs, sources)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=collect, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    once = tmp_path / "once.duckdb"
    replay(settings_for(Warehouse(str(once)), tmp_path / "once"), runs, sources)
    counts = (
        "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM source_runs), "
        "(SELECT count(*) FROM observations), (SELECT count(*) FROM price_history), "
        "(SELECT count(*) FROM current_prices)"
    )
    con = connect(lake, read_only=True)
    try:
        both = con.execute(counts).fetchall()
        attempts = con.execute("SELECT count(*) FROM attempts").fetchall()
    finally:
        con.close()
    alone = connect(once, read_only=True)
    try:
        assert both == alone.execute(counts).fetchall()
    finally:
        alone.close()
    assert both[0][0] == 1 and attempts == [(1,)]  # the other collect's found it loaded


@pytest.mark.parametrize(
    "query",
    [
        "select * from postgres_query('__ducklake_metadata_lake', 'select current_user')",
        "select * from __ducklake_metadata_lake.public.ducklake_snapshot",
        "select * from __ducklake_metadata_lake.ducklake_snapshot",
        "select * from duckdb_secrets()",
        "select * from query('select * from postgres_query(''x'', ''select 1'')')",
        "explain select * from postgres_execute('__ducklake_metadata_lake', 'select 1')",
        "with c as (select 1) select * from c, (select * from POSTGRES_QUERY('x', 'y'))",
    ],
)
def test_sql_on_a_lake_cannot_reach_its_catalog_database(read_lake, query):
    # The catalog is an attached PostgreSQL database: postgres_query ran any SQL there as the
    # catalog's user (pg_read_file('/etc/passwd') as postgres), past the sandbox.
    with pytest.raises(ChipcostError, match="reaches past it"):
        run_readonly(read_lake, query)
    counted = run_readonly(read_lake, "select count(*) as n from lake.main.runs")
    assert counted["n"].to_list() == [0]


def test_a_reader_of_a_lake_being_migrated_is_told_to_wait_for_it(lake):
    # Writers migrate a lake one version a transaction: a reader between two of them saw only
    # "run chipcost migrate", while a migration was running.
    con = open_warehouse(lake)
    con.execute("DELETE FROM schema_version WHERE version > 5")  # as after the first step
    con.close()
    with pytest.raises(WarehouseError) as refused:
        connect(lake, read_only=True)
    assert "has schema version 5; this chipcost needs" in str(refused.value)
    assert str(refused.value).endswith(
        "a collect or migrate may be upgrading it right now: if one is running, try again "
        "once it is done"
    )


def test_another_data_path_names_the_setting_and_the_lakes_own(read_lake, tmp_path):
    # DuckDB's own words told the operator to set OVERRIDE_DATA_PATH, which chipcost does not
    # take: the variable to fix is CHIPCOST_LAKE_DATA.
    elsewhere = Warehouse(read_lake.url, str(tmp_path / "other-data"))
    with pytest.raises(WarehouseError) as refused:
        connect(elsewhere, read_only=True)
    own = read_lake.lake_data.rstrip("/") + "/"
    assert f"keeps its data at {own}, not at {elsewhere.lake_data}: set CHIPCOST_LAKE_DATA to " in (
        str(refused.value)
    )
    assert "OVERRIDE_DATA_PATH" not in str(refused.value)


def test_a_writer_given_another_data_path_is_refused_and_creates_nothing(read_lake, tmp_path):
    # On 7dfc559 `CHIPCOST_LAKE_DATA=/tmp/wrong chipcost migrate` was refused but first made
    # the empty directory.
    wrong = tmp_path / "wrong" / "deeper"
    with pytest.raises(WarehouseError, match="keeps its data at .*: set CHIPCOST_LAKE_DATA to"):
        connect(Warehouse(read_lake.url, str(wrong)))
    assert not (tmp_path / "wrong").exists()


def test_a_role_without_access_to_the_catalog_is_told_what_to_grant(read_lake, pg_server):
    """On 368c4bd a wrong role was DuckDB's raw "Failed to attach DuckLake MetaData"."""
    role = f"reader_{abs(hash(read_lake.url)) % 10**6}"
    pg_server.psql(f"CREATE ROLE {role} LOGIN PASSWORD 'reader-pw'")
    dbname = read_lake.url.split("dbname=")[1].split()[0]
    url = f"ducklake:postgres:dbname={dbname} host=127.0.0.1 port={pg_server.port} user={role} "
    with pytest.raises(WarehouseError) as error:
        connect(Warehouse(url + "password=reader-pw", read_lake.lake_data), read_only=True)
    message = str(error.value)
    assert "its PostgreSQL role may not use the lake's catalog (permission denied for" in message
    assert "GRANT SELECT ON ALL TABLES IN SCHEMA public TO <role>" in message
    assert "reader-pw" not in message


def test_a_reader_needs_no_data_path(loaded_lake):
    reader = connect(Warehouse(loaded_lake.url, ""), read_only=True)
    try:
        assert reader.execute("SELECT count(*) FROM price_history").fetchall() == [(1,)]
    finally:
        reader.close()


def test_an_extension_file_changed_since_its_check_is_checked_again(
    loaded_lake, tmp_path, monkeypatch
):
    """DuckDB's signature check runs once per file per process: a file replaced since (here
    by one whose signature, the last 256 bytes, is scribbled over) is checked again and
    refused."""
    from chipcost.warehouse import lake as lake_module

    shipped = lake_module.extension_file(*lake_module.EXTENSIONS[0])
    copy = tmp_path / shipped.name
    copy.write_bytes(shipped.read_bytes())
    package = lake_module.EXTENSIONS[0][0]
    real = lake_module.extension_file
    monkeypatch.setattr(
        lake_module,
        "extension_file",
        lambda pkg, name: copy if pkg == package else real(pkg, name),
    )
    monkeypatch.setattr(lake_module, "_checked", set())

    def read() -> int:
        reader = connect(Warehouse(loaded_lake.url, ""), read_only=True)
        try:
            return reader.execute("SELECT count(*) FROM price_history").fetchall()[0][0]
        finally:
            reader.close()

    assert read() == 1  # checked, and loaded
    assert read() == 1  # the same file: loaded without the check
    raw = bytearray(copy.read_bytes())
    raw[-100] ^= 0xFF
    # Replaced as an installer replaces a file (the loaded one stays mapped, untouched).
    replacement = tmp_path / "replacement"
    replacement.write_bytes(bytes(raw))
    replacement.replace(copy)
    with pytest.raises(WarehouseError, match="signature"):
        read()


def test_a_missing_extension_says_the_install_that_works_from_a_clone():
    # On 7dfc559 it said pip install 'chipcost[lake]': chipcost is not on PyPI, and that
    # skipped constraints.txt.
    from chipcost.warehouse.lake import extension_file

    with pytest.raises(WarehouseError) as missing:
        extension_file("duckdb_extension_not_here", "not_here")
    said = str(missing.value)
    assert "the DuckDB extension not_here is not installed" in said
    assert "in chipcost's clone run scripts/setup.sh lake" in said
    assert "pip install -c constraints.txt '.[lake]'" in said and "chipcost[lake]" not in said
