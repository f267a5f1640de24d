"""Exits as grep's (docs/cli.md): a pipe its reader closed ends the command quietly with 141
(128 + SIGPIPE), never 1, which says nothing matched; in `sql` a query with no rows exits 1 and
a query that does not parse, names a table the warehouse lacks or is refused exits 2; `report`
of a period without data writes nothing and exits 1."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import warehouses

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("exits") / "w.duckdb", last=1))


def _read_a_little_then_close(args: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run `chipcost ARGS` on a real pipe, read its first bytes and close the pipe, as
    `| head -c 64` does: the exit status and what it said on stderr."""
    done = subprocess.Popen(
        [CHIPCOST, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert done.stdout is not None and done.stderr is not None
    assert done.stdout.read(64)
    done.stdout.close()
    said = done.stderr.read()
    return done.wait(timeout=300), said


@pytest.mark.parametrize(
    "args",
    [
        # Each writes well past a pipe's buffer (64 KiB), so the close is always met.
        ["prices", "--limit", "5000"],
        ["prices", "--format", "csv"],
        ["prices", "--format", "json"],
        ["sql", "select * from range(200000)", "--format", "csv"],
    ],
    ids=["table", "csv", "json", "sql"],
)
def test_a_pipe_closed_by_its_reader_ends_quietly_with_sigpipe_s_status(db, tmp_path, args):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CHIPCOST_DATA_DIR": str(tmp_path)}
    env.update(DO_NOT_TRACK="1", COLUMNS="100")
    code, said = _read_a_little_then_close([*args, "--db", db], env)
    assert code == 141, said.decode(errors="replace")
    # Nothing said: a sample's note, perhaps, but no error, no traceback.
    assert b"Traceback" not in said and b"error" not in said.lower() and b"Broken" not in said


# A read that matches nothing, and the same read that matches: the same columns.
NOTHING = {
    "prices": ("--chip", "H100-SXM", "--max-price", "0.01"),
    "prices --by chip": ("--chip", "H100-SXM", "--max-price", "0.01", "--by", "chip"),
    "prices --by provider": ("--chip", "H100-SXM", "--max-price", "0.01", "--by", "provider"),
    "prices --by region": ("--chip", "H100-SXM", "--max-price", "0.01", "--by", "region"),
    "index --since": ("--chip", "H100-SXM", "--since", "2027-01-01"),
    "index commitment": ("--chip", "A10", "--pricing-model", "commitment"),
}


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize("case", list(NOTHING))
def test_a_read_matching_nothing_writes_its_header_or_an_empty_list_and_exits_1(run, db, case, fmt):
    command = case.split()[0]
    done = run(command, *NOTHING[case], "--format", fmt, "--db", db)
    assert done.returncode == 1 and "error: no " in done.stderr, done.stderr
    if fmt == "json":
        assert json.loads(done.stdout) == []
        return
    matching = [a for a in NOTHING[case] if a not in ("--max-price", "0.01")][:2]
    if command == "prices":
        matching = [*matching, *NOTHING[case][4:]]
    found = run(command, *matching, "--format", "csv", "--db", db)
    assert found.returncode == 0, found.stderr
    (header,) = csv.reader(io.StringIO(done.stdout))
    assert header == next(csv.reader(io.StringIO(found.stdout)))


def test_a_whole_answer_still_exits_0(run, db):
    done = run("prices", "--chip", "H100-SXM", "--limit", "2", "--db", db)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("query", "code", "said"),
    [
        ("select 1", 0, ""),
        ("select 1 where false", 1, "the query returned no rows"),
        ("selec 1", 2, "cannot parse the query"),
        ("select * from no_such_table", 2, "Table with name no_such_table does not exist"),
        ("select no_such_column from current_prices", 2, "no_such_column"),
        ("select 'x'::integer", 2, "Could not convert"),
        ("delete from price_history", 2, "a DELETE statement is refused"),
        ("select 1; select 2", 2, "give exactly one SQL statement"),
        ("select * from read_csv('/etc/passwd')", 2, "out of its reach"),
    ],
)
@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_sql_exits_say_which_outcome(run, db, query, code, said, fmt):
    done = run("sql", query, "--format", fmt, "--db", db)
    assert done.returncode == code, done.stderr
    assert said in " ".join(done.stderr.split()) and "Traceback" not in done.stderr
    if code == 2:  # the asker's to fix, said as every usage error
        assert done.stderr.startswith("chipcost sql: error: ") and not done.stdout


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("select 'a'::int", "Conversion Error: Could not convert string 'a' to INT32;"),
        ("select 1 where 'b'::int = 1", "Conversion Error: Could not convert string 'b' to INT32;"),
        ("selec 1", 'syntax error at or near "selec" LINE 1: selec 1 ^;'),
    ],
)
def test_sql_errors_quote_the_query_given_not_the_readers_rewrite(run, db, query, said):
    """On 131508c0 `sql "select 'a'::int"` quoted the reader's wrapper around the query
    (`LINE 1: SELECT #1 FROM (SELECT CAST('a' AS INTEGER)) AS unnamed_relation_...`); DuckDB's
    line of the query is kept where it is the user's own."""
    done = run("sql", query, "--db", db)
    line = " ".join(done.stderr.split())
    assert done.returncode == 2 and said in line, line
    assert "unnamed_relation" not in line and "CAST(" not in line, line


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("site",), "the warehouse has no current prices yet: run `chipcost collect`"),
        (
            ("sources", "--runs"),
            "the warehouse holds no runs yet: `chipcost collect` loads the first",
        ),
        (
            ("sources", "--runs", "--format", "csv"),
            "the warehouse holds no runs yet: `chipcost collect` loads the first",
        ),
        (("prices",), "the warehouse has no current prices yet: run `chipcost collect`"),
    ],
)
def test_an_empty_warehouse_matches_nothing_and_exits_1(run, tmp_path, args, said):
    """On 131508c0 `site` on a freshly migrated warehouse exited 0, writing a page of "0 offers
    of 0 chips", and `sources --runs` exited 0 listing no run."""
    db = tmp_path / "w.duckdb"
    assert run("migrate", "--db", str(db)).returncode == 0
    out = ("--out", str(tmp_path / "site")) if args[0] == "site" else ()
    done = run(*args, *out, "--db", str(db))
    assert done.returncode == 1 and done.stderr == f"error: {said}\n", done.stderr
    assert not (tmp_path / "site").exists()
    if "csv" in args:
        assert done.stdout.startswith("run_id,")  # the header: a pipe still parses


@pytest.mark.parametrize("delivery", [(), ("--dry-run",)], ids=["files", "dry-run"])
@pytest.mark.parametrize(
    ("since", "until"), [("2020-01-01", "2020-01-07"), ("2026-10-01", "2026-10-31")]
)
def test_a_report_of_a_period_without_data_writes_nothing_and_exits_1(
    run, db, tmp_path, delivery, since, until
):
    out = tmp_path / "reports"
    done = run("report", "--since", since, "--until", until, *delivery, "--out", str(out),
               "--db", db)  # fmt: skip
    assert done.returncode == 1, done.stderr
    said = f"no data from {since} to {until} (the warehouse holds 2026-11-21)"
    assert done.stderr == f"error: {said}: no report written\n" and not done.stdout
    assert not out.exists()


def test_a_report_of_a_period_with_data_is_written(run, db, tmp_path):
    done = run("report", "--dry-run", "--out", str(tmp_path), "--db", db)
    assert done.returncode == 0, done.stderr
    assert {p.suffix for p in tmp_path.iterdir()} == {".html", ".csv", ".eml"}
