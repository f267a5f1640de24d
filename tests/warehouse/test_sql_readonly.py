"""`chipcost sql` only reads: every way to write, reach files or change settings is refused."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.warehouse.readonly import run_readonly
from tests.cli_runner import chipcost as run_chipcost
from tests.helpers import loaded_warehouse, record


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sql") / "w.duckdb"
    return loaded_warehouse(path, [record(), record(region="us-west-2", price_per_hour=57.2)])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# {out} is a path in the test's own directory: nothing may appear there.
REFUSED_BY_KIND = [
    ("insert into chips (chip) values ('x')", "an INSERT"),
    ("update price_history set price_per_hour = 0", "an UPDATE"),
    ("delete from runs", "a DELETE"),
    ("drop table runs", "a DROP"),
    ("create table x as select 1", "a CREATE"),
    ("alter table runs add column x int", "an ALTER"),
    ("attach '{out}' as other", "an ATTACH"),
    ("detach other", "a DETACH"),
    ("copy price_history to '{out}'", "a COPY"),
    ("copy (select * from runs) to '{out}' (format parquet)", "a COPY"),
    ("export database '{out}'", "an EXPORT"),
    ("install httpfs", "an INSTALL or LOAD"),
    ("load httpfs", "an INSTALL or LOAD"),
    ("force install httpfs", "an INSTALL or LOAD"),
    ("set threads = 1", "a SET"),
    ("reset threads", "a SET"),
    ("pragma enable_profiling", "a PRAGMA"),
    ("pragma force_checkpoint", "a PRAGMA"),
    # DuckDB parses it as a CALL; named as written (on a81b4ee "a CALL statement is refused")
    ("checkpoint", "a CHECKPOINT"),
    ("force checkpoint", "a CHECKPOINT"),
    ("call pragma_version()", "a CALL"),
    ("vacuum", "a VACUUM"),
    ("begin transaction", "a TRANSACTION"),
    ("explain analyze copy (select 1) to '{out}'", "an EXPLAIN of a COPY"),
    ("explain analyze insert into chips (chip) values ('x')", "an EXPLAIN of an INSERT"),
]


@pytest.mark.parametrize(("statement", "kind"), REFUSED_BY_KIND)
def test_writing_statements_are_refused_by_kind(db, tmp_path, statement, kind):
    out = tmp_path / "out"
    before = digest(db)
    with pytest.raises(ChipcostError, match=f"{kind} statement is refused"):
        run_readonly(db, statement.format(out=out))
    assert not out.exists()
    assert digest(db) == before


@pytest.mark.parametrize(
    "statements",
    [
        "select 1; drop table runs",
        "select 1; select 2",
        "select 1; copy runs to 'x.csv'",
    ],
)
def test_more_than_one_statement_is_refused(db, statements):
    with pytest.raises(ChipcostError, match="exactly one SQL statement"):
        run_readonly(db, statements)


@pytest.mark.parametrize(
    "statement",
    [
        "select * from read_csv('{probe}')",
        "select * from read_text('{probe}')",
        "select * from glob('{dir}/*')",
        "select * from read_parquet('{dir}/*.parquet')",
        "select * from query('copy (select 1) to ''{out}''')",
    ],
)
def test_a_select_cannot_reach_files(db, tmp_path, statement):
    """Reads pass the statement check; the sandboxed session still reaches no file."""
    probe = tmp_path / "probe.csv"
    probe.write_text("a\n1\n")
    out = tmp_path / "out.csv"
    query = statement.format(probe=probe, dir=tmp_path, out=out)
    with pytest.raises(ChipcostError) as raised:
        run_readonly(db, query)
    assert "Traceback" not in str(raised.value)
    assert not out.exists()


def test_reading_the_query_reaches_no_file_and_installs_nothing(db, tmp_path, monkeypatch):
    """DuckDB expands IMPORT DATABASE as it parses it (it reads the folder's schema.sql) and a
    PRAGMA of an extension's installs the extension: the query is read as sandboxed as it runs,
    so a file's first words never reach a parse error and no extension is fetched."""
    (tmp_path / "schema.sql").write_text("db_password=hunter2 and more\n")
    (tmp_path / "load.sql").write_text("")
    home = tmp_path / "home"  # where DuckDB would install an extension
    monkeypatch.setenv("HOME", str(home))
    for query in (f"import database '{tmp_path}'", "pragma create_fts_index('runs', 'a', 'b')"):
        with pytest.raises(ChipcostError) as raised:
            run_readonly(db, query)
        assert "hunter2" not in str(raised.value) and "db_password" not in str(raised.value)
    assert not (home / ".duckdb").exists()


def test_file_access_is_explained(db, tmp_path):
    probe = tmp_path / "probe.csv"
    probe.write_text("a\n1\n")
    with pytest.raises(ChipcostError, match="reads only the warehouse"):
        run_readonly(db, f"select * from read_csv('{probe}')")


@pytest.mark.parametrize(
    ("query", "rows"),
    [
        ("select count(*) as n from price_history", 1),
        ("from current_prices", 2),
        ("with x as (select * from runs) select * from x", 1),
        ("explain select * from runs", None),
        ("explain analyze select count(*) from observations", None),
        ("select * from duckdb_tables() where table_name = 'runs'", 1),
        ("describe price_history", None),
        ("select current_setting('TimeZone') as tz", 1),
    ],
)
def test_reads_still_answer(db, query, rows):
    frame = run_readonly(db, query)
    assert frame.height >= 1
    if rows is not None:
        assert frame.height == rows


def test_settings_stay_locked_inside_a_query(db):
    frame = run_readonly(db, "select current_setting('enable_external_access') as access")
    assert frame["access"].to_list() == [False]


def test_cli_refuses_with_one_clear_line(db, tmp_path):
    out = tmp_path / "x.parquet"
    result = run_chipcost("sql", f"copy runs to '{out}'", "--db", str(db))
    assert result.returncode == 2  # refused: the asker's to change
    assert "a COPY statement is refused" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_the_query_and_the_freshness_notes_share_one_open(db, monkeypatch):
    from chipcost.warehouse import reader, readonly

    opened = []
    real = reader.connect
    monkeypatch.setattr(reader, "connect", lambda *a, **k: opened.append(a) or real(*a, **k))
    result = readonly.read_rows(db, "select count(*) as n from price_history", stale_days=2)
    assert result.rows == [(2,)]
    assert result.freshness is not None and result.freshness.sources  # the loaded source
    assert len(opened) == 1


def test_freshness_that_cannot_be_read_is_not_called_a_failed_query(db, monkeypatch):
    import duckdb

    from chipcost.warehouse import readonly

    def broken(*args, **kwargs):
        raise duckdb.CatalogException("Table with name runs does not exist!")

    monkeypatch.setattr(readonly, "freshness", broken)
    with pytest.raises(ChipcostError, match="the query ran, but the warehouse's sources") as info:
        readonly.read_rows(db, "select 1", stale_days=2)
    assert "query failed" not in str(info.value)
