"""The chipcost command on a lake warehouse (real PostgreSQL): the issue's acceptance check.

The commands run in this process (tests.cli_runner); a second process loads where a read
beside another process's load is the point.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from chipcost.core.settings import Warehouse
from chipcost.warehouse.db import connect
from tests import warehouses
from tests.cli_runner import chipcost
from tests.lake_support import history
from tests.paths import ROOT


def test_replay_into_the_lake_and_read_prices_while_another_replay_loads(
    lake, tmp_path, sample_runs
):
    env = {
        **os.environ,
        "CHIPCOST_WAREHOUSE": lake.url,
        "CHIPCOST_LAKE_DATA": lake.lake_data,
        "CHIPCOST_DATA_DIR": str(tmp_path / "data"),
    }
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(sample_runs[0], first / sample_runs[0].name)
    shutil.copytree(sample_runs[1], second / sample_runs[1].name)
    done = chipcost("collect", "--replay", str(first), env=env)
    assert done.returncode == 0, done.stderr
    assert "password=***" in done.stdout and "lake-test-pw" not in done.stdout
    # The second replay stalls inside its load's open transaction (tests/stall.py) until the
    # marker goes: a read then happens mid-load for certain.
    marker = tmp_path / "loading"
    loading = subprocess.Popen(
        [sys.executable, "-m", "tests.stall", str(marker), "chipcost"]
        + ["collect", "--replay", str(second)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reads = 0
    try:
        deadline = time.monotonic() + 900
        while loading.poll() is None:
            assert time.monotonic() < deadline, "the second replay never finished"
            if not marker.exists():
                time.sleep(0.05)
                continue
            answer = chipcost("prices", "--chip", "H100-SXM", env=env)
            assert answer.returncode == 0, answer.stderr
            assert "H100" in answer.stdout
            reads += 1
            marker.unlink()  # let this load commit
    finally:
        marker.unlink(missing_ok=True)
        out, err = loading.communicate(timeout=900)
    assert loading.returncode == 0, err
    assert reads == 1, f"read during {reads} of the one load"
    # The same two runs replayed into a file, in one collect.
    file = Warehouse(str(warehouses.sample(tmp_path / "file.duckdb", first=2)))
    lake_con, file_con = connect(lake, read_only=True), connect(file, read_only=True)
    try:
        assert history(lake_con) == history(file_con)
    finally:
        lake_con.close()
        file_con.close()


def test_a_lake_is_read_without_its_data_path_and_written_only_with_it(lake):
    """On 368c4bd reading commands refused a lake without CHIPCOST_LAKE_DATA, which they do
    not need: its catalog keeps the data path."""
    env = {**os.environ, "CHIPCOST_LAKE_DATA": lake.lake_data}
    assert chipcost("migrate", "--warehouse", lake.url, env=env).returncode == 0
    env = {**os.environ, "CHIPCOST_WAREHOUSE": lake.url}
    env.pop("CHIPCOST_LAKE_DATA", None)
    read = chipcost("sql", "select count(*) as n from price_history", env=env)
    assert read.returncode == 0, read.stderr
    result = chipcost("migrate", env=env)
    assert result.returncode != 0
    assert "needs CHIPCOST_LAKE_DATA to write" in result.stderr
    assert "Traceback" not in result.stderr and "lake-test-pw" not in result.stderr


def test_migrate_creates_the_lake_from_the_warehouse_option(empty_lake):
    env = {**os.environ, "CHIPCOST_LAKE_DATA": empty_lake.lake_data}
    result = chipcost("migrate", "--warehouse", empty_lake.url, env=env)
    assert result.returncode == 0, result.stderr
    assert "schema version" in result.stdout and "lake-test-pw" not in result.stdout


def test_sql_and_sources_read_the_lake_and_its_freshness(lake, tmp_path, monkeypatch):
    from tests.helpers import loaded_warehouse, record

    loaded_warehouse(lake, [record()])
    # A file warehouse where the default one would be: the lake's commands must not read it.
    env = {**os.environ, "CHIPCOST_LAKE_DATA": lake.lake_data, "CHIPCOST_DATA_DIR": str(tmp_path)}
    result = chipcost("sql", "select count(*) as n from price_history", "--db", lake.url, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:4] == ["n", "─", "1", "1 row"]
    # The note on the lake's source (its only run is long past: stale), not on another file.
    assert "stale" in result.stdout + result.stderr and "aws-pricing-api" in result.stdout
    assert not (tmp_path / "chipcost.duckdb").exists()
    listed = chipcost("sources", env={**env, "CHIPCOST_WAREHOUSE": lake.url})
    assert listed.returncode == 0, listed.stderr
    assert "aws-pricing-api" in listed.stdout and "stale" in listed.stdout
    # history and the Python API read the lake too, not the file a file warehouse would be.
    shown = chipcost(
        "history", "--chip", "H100-SXM", "--no-chart", env={**env, "CHIPCOST_WAREHOUSE": lake.url}
    )
    assert shown.returncode == 0, shown.stderr
    assert "H100-SXM: cheapest USD per chip-hour by day" in shown.stdout
    import chipcost as api

    for name in ("CHIPCOST_LAKE_DATA", "CHIPCOST_DATA_DIR"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.setenv("CHIPCOST_WAREHOUSE", lake.url)
    assert (api.history("H100-SXM").height, api.prices().height) == (1, 1)
    # So do the price explorer and the throughput commands, which write.
    lake_env = {**env, "CHIPCOST_WAREHOUSE": lake.url}
    site = chipcost("site", "--out", str(tmp_path / "site"), env=lake_env)
    assert site.returncode == 0, site.stderr
    assert "H100-SXM" in (tmp_path / "site" / "offers.csv").read_text()
    added = chipcost(
        "throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b",
        "--workload", "inference", "--tokens-per-second", "1500", env=lake_env,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    mine = chipcost("throughput", "list", "--origin", "user", "--format", "csv", env=lake_env)
    assert "user-1,H100-SXM" in mine.stdout.replace('"', ""), mine.stdout + mine.stderr
    assert not (tmp_path / "chipcost.duckdb").exists()
