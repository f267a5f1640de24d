"""What `--db` names when it is no warehouse: another application's file (a CSV, a Parquet file,
a SQLite database, a DuckDB file without chipcost's tables) is named and left as it was; a path
with no warehouse is not created by `remove-run`; an empty `--db` (or `report --out`) is refused,
not taken as the default. The command line as its own process and through the in-process
runner."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from tests.cli_runner import chipcost
from tests.refusals import refused


def _other_files(folder: Path) -> dict[str, Path]:
    """A CSV, a SQLite database, a Parquet file and a DuckDB file of another application."""
    csv = folder / "prices.csv"
    csv.write_text("chip,price\nH100,2.0\n")
    lite = folder / "app.sqlite"
    with sqlite3.connect(lite) as con:
        con.execute("CREATE TABLE a (x)")
    parquet = folder / "p.parquet"
    other = folder / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE foo (x INT)")
        con.execute(f"COPY foo TO '{parquet}' (FORMAT parquet)")
    return {"csv": csv, "sqlite": lite, "parquet": parquet, "duckdb": other}


SAID = {
    "csv": "is not a DuckDB file",
    "sqlite": "is a SQLite database, not a DuckDB file",
    "parquet": "is a Parquet file, not a DuckDB file",
    "duckdb": "not a chipcost warehouse",
}


@pytest.mark.parametrize("kind", sorted(SAID))
@pytest.mark.parametrize("command", [["prices"], ["sources"], ["migrate"], ["remove-run", "X"]])
def test_another_applications_file_as_db_is_named_and_left_as_it_was(tmp_path, kind, command):
    """On 2487f4c a read of a DuckDB file without chipcost's tables was a traceback (DuckDB
    read the Python function `schema_version` for the missing table), a SQLite file made
    DuckDB fetch its SQLite extension from the network, a CSV or Parquet file was called "a
    DuckDB file but not a chipcost warehouse", and each writer left a .lock beside it."""
    path = _other_files(tmp_path)[kind]
    before = path.read_bytes()
    done = chipcost(*command, "--db", str(path))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    said = " ".join(done.stderr.split())
    assert SAID[kind] in said and str(path) in said, said
    assert "Extension" not in said
    assert path.read_bytes() == before
    assert not Path(f"{path}.lock").exists() or kind == "duckdb"


@pytest.mark.parametrize(
    "command", [["prices"], ["sql", "select 1"], ["sources"], ["site"], ["export"]]
)
def test_a_duckdb_file_of_another_application_says_what_to_do(tmp_path, run, command):
    """On 131508c0 every read, site and export said only "... is not a chipcost warehouse (no
    schema_version table)", with no next step."""
    path = _other_files(tmp_path)["duckdb"]
    out = ["--out", str(tmp_path / "out")] if command[0] in ("site", "export") else []
    done = run(*command, "--db", str(path), *out)
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, said
    assert f"--db {path} is not a chipcost warehouse" in said, said
    assert "point --db at the warehouse `chipcost collect` made" in said, said
    assert "`chipcost collect --db NEW.duckdb`" in said, said
    assert not (tmp_path / "out").exists()


def test_remove_run_on_a_mistyped_db_creates_nothing(tmp_path):
    """On 2487f4c it said "run 'X' is not in the warehouse" and left a new, empty 9 MB
    warehouse at the mistyped path."""
    typo = tmp_path / "wharehouse.duckdb"
    done = chipcost("remove-run", "X", "--db", str(typo))
    assert done.returncode == 1 and f"no warehouse at {typo}" in " ".join(done.stderr.split())
    assert not typo.exists() and not Path(f"{typo}.lock").exists()


def test_an_empty_warehouse_or_directory_is_refused_not_taken_as_the_default(tmp_path, run):
    # on a81b4ee `--db ''` read data/chipcost.duckdb and `report --out ''` wrote into the
    # current directory
    done = run("prices", "--db", "")
    assert done.returncode == 1 and "--db is empty" in done.stderr
    refused(run("report", "--out", "", "--dry-run"), "--out is empty")
