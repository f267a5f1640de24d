"""The chipcost command as a user runs it (in this process: tests.cli_runner), real DuckDB."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.cli_runner import chipcost as run_chipcost
from tests.conftest import SAMPLE
from tests.helpers import day, record, run_of

# The console script in a process of its own, for the modules that import it from here (the
# notify flow's tests; spot backfill's credential lookup, which boto3 caches per process); this
# module's tests run it in-process.
CHIPCOST = str(Path(sys.executable).with_name("chipcost"))


def chipcost(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHIPCOST, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "w.duckdb"
    con = open_warehouse(warehouses.new(path))
    offers = [
        record(),
        record(region="us-west-2", price_per_hour=57.2),
        record(
            pricing_model="reserved",
            term="1yr",
            payment="all_upfront",
            plan="standard",
            price_per_hour=33.0,
            upfront=289080.0,
        ),
        record(
            instance_type="trn1.32xlarge", chip="Trainium1", chip_count=16.0, price_per_hour=21.5
        ),
    ]
    load_run(con, run_of(offers, day(0)))
    con.close()
    return path


def test_prices_for_a_chip(db):
    result = run_chipcost("prices", "--chip", "H100-SXM", "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert "p5.48xlarge" in result.stdout
    assert "us-west-2" in result.stdout and "reserved" in result.stdout
    assert "6.8800" in result.stdout  # 55.04 / 8 chips
    assert "trn1" not in result.stdout


def test_prices_with_an_unknown_chip_suggests_known_ones(db):
    result = run_chipcost("prices", "--chip", "H100-SMX", "--db", str(db))
    assert result.returncode == 2
    assert "unknown chip 'H100-SMX' (did you mean H100-SXM" in result.stderr
    assert "Traceback" not in result.stderr


def test_prices_without_a_warehouse_says_what_to_do(tmp_path):
    result = run_chipcost("prices", "--db", str(tmp_path / "none.duckdb"))
    assert result.returncode == 1
    assert "run `chipcost collect` first" in result.stderr
    assert "Traceback" not in result.stderr


def test_sql_answers(db):
    result = run_chipcost(
        "sql", "select count(*) as n from price_history", "--db", str(db), "--format", "csv"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["n", "4"]


@pytest.mark.parametrize(
    "statement",
    [
        "insert into chips (chip) values ('x')",
        "attach 'other.duckdb' as other",
        "copy price_history to 'out.csv'",
        "install httpfs",
        "select 1; drop table runs",
    ],
)
def test_sql_refuses_anything_but_reading(db, statement):
    result = run_chipcost("sql", statement, "--db", str(db))
    assert result.returncode == 2  # the asker's to change, as a usage error
    assert "Traceback" not in result.stderr
    assert "refused" in result.stderr or "exactly one" in result.stderr


# What a read must not import: Prefect, the cloud clients, the report's renderer, pandas
# (which DuckDB's client imports where it is installed, on a statement given Python
# parameters: warehouse/bound.py), rich (chipcost.cli.consoles writes every read's lines, on a
# terminal too: rich draws only collect's and backfill's progress), and, for the reads whose
# terminal table reads rows, polars. (hashlib comes with pydantic, which reads the settings.)
NEVER_READ = ("prefect", "boto3", "botocore", "httpx", "great_tables", "pandas", "pyarrow", "rich")
ROWS_ONLY = ("polars",)
# As on a terminal: styled (the stream itself is a pipe, as subprocess gives).
STYLED = {"FORCE_COLOR": "1"}


@pytest.mark.parametrize(
    ("args", "barred", "env"),
    [
        (["prices", "--chip", "H100-SXM", "--region", "us-east-1"], NEVER_READ + ROWS_ONLY, {}),
        (["prices", "--chip", "H100-SXM"], NEVER_READ + ROWS_ONLY, STYLED),
        (["prices"], NEVER_READ + ROWS_ONLY, {}),
        (["cost", "--model", "llama-3-70b", "--workload", "training"], NEVER_READ + ROWS_ONLY, {}),
        (["sql", "select count(*) from price_history"], NEVER_READ + ROWS_ONLY, STYLED),
        (["sql", "select 1", "--format", "csv"], NEVER_READ + ROWS_ONLY, {}),
        (["history", "--chip", "H100-SXM", "--no-chart"], NEVER_READ, {}),
        (["history", "--chip", "H100-SXM"], NEVER_READ, STYLED),
        (["index"], NEVER_READ, {}),
    ],
)
def test_a_read_imports_only_what_it_shows(db, tmp_path, args, barred, env):
    """Each read as a process of its own, with an importable pandas on the path (a stand-in:
    any import of it shows in sys.modules, as a real one's would): what it loaded."""
    (tmp_path / "pandas").mkdir()
    (tmp_path / "pandas" / "__init__.py").write_text("", encoding="utf-8")
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('LOADED', sorted({m.split('.')[0] for m in sys.modules})))\n"
        "sys.argv = ['chipcost', *sys.argv[1:]]\n"
        "from chipcost.cli.entry import main\n"
        "main()\n"
    )
    env = {**os.environ, **env, "PYTHONPATH": os.pathsep.join(
        p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p
    )}  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-c", code, *args, "--db", str(db)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    if env.get("FORCE_COLOR"):
        assert "\x1b[1m" in result.stdout  # the styled path was taken
    loaded = result.stdout.rsplit("LOADED", 1)[1]
    assert not [name for name in barred if f"'{name}'" in loaded], loaded


def test_a_replay_starts_no_prefect(tmp_path):
    """A one-off collection runs on a thread pool: Prefect is not even imported."""
    first_run = sorted(p for p in SAMPLE.iterdir() if p.is_dir())[0]
    db = tmp_path / "w.duckdb"
    code = (
        "import sys\n"
        f"sys.argv = ['chipcost', 'collect', '--replay', {str(first_run)!r}, '--db', {str(db)!r}]\n"
        "import chipcost.cli.entry\n"
        "try:\n    chipcost.cli.entry.main()\n    print('exit', 0)\nexcept SystemExit as exc:\n"
        "    print('exit', exc.code or 0)\n"
        "print('PREFECT LOADED' if 'prefect' in sys.modules else 'PREFECT NOT LOADED')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert "PREFECT NOT LOADED" in result.stdout, result.stdout + result.stderr
    assert "exit 0" in result.stdout and f"warehouse: {db}" in result.stdout, result.stderr


def test_collect_with_a_wrong_db_directory_is_explained(tmp_path):
    result = run_chipcost("collect", "--db", str(tmp_path / "no" / "such" / "w.duckdb"))
    assert result.returncode == 1
    assert "does not exist" in result.stderr
    assert "Traceback" not in result.stderr
