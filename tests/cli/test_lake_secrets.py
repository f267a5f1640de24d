"""The lake's password stays secret: `chipcost sql` refuses the introspection that shows how
the lake is attached, and every failure masks the password, in conninfo and URL forms. Walked
with a known password against a real PostgreSQL.

On main at 368c4bd `duckdb_databases()`, `pragma_database_list` and `duckdb_settings()` showed
the whole conninfo, and `postgresql://user:pw@host/db` was never masked.
"""

from __future__ import annotations

import os

import pytest

from chipcost.core.errors import WarehouseError
from chipcost.core.settings import Warehouse
from chipcost.warehouse.db import connect
from tests.cli_runner import chipcost
from tests.helpers import loaded_warehouse, record
from tests.lake_support import copy_of
from tests.pg_server import PASSWORD

INTROSPECTION = [
    "SELECT * FROM duckdb_databases()",
    "SELECT * FROM pragma_database_list",
    "SELECT path FROM duckdb_databases() WHERE database_name = 'lake'",
    "SELECT * FROM duckdb_settings()",
    "SELECT current_setting('allowed_paths')",
    "SELECT current_setting('allowed_' || 'paths')",
    "SELECT (SELECT list(path) FROM duckdb_databases()) AS x",
    # the PRAGMA statement that is the table function (a SELECT to DuckDB)
    "PRAGMA database_list",
    "pragma  database_list;",
]


@pytest.fixture(scope="module")
def loaded_lake(pg_server, lake_template, tmp_path_factory):
    """One lake with one run, for the module's tests: they only read it or fail to open it."""
    lake = copy_of(pg_server, lake_template, tmp_path_factory.mktemp("lake") / "lake-data")
    loaded_warehouse(lake, [record()])
    return lake


@pytest.mark.parametrize("query", INTROSPECTION)
def test_sql_refuses_what_shows_the_conninfo(loaded_lake, query):
    env = {**os.environ, "CHIPCOST_LAKE_DATA": loaded_lake.lake_data}
    done = chipcost("sql", query, "--db", loaded_lake.url, "--format", "csv", env=env)
    assert done.returncode == 2 and "reaches past it" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr


def test_sql_still_reads_the_lake(loaded_lake):
    env = {**os.environ, "CHIPCOST_LAKE_DATA": loaded_lake.lake_data}
    done = chipcost("sql", "select count(*) as n from price_history", "--db", loaded_lake.url,
                    "--format", "csv", env=env)  # fmt: skip
    assert done.returncode == 0 and done.stdout.splitlines() == ["n", "1"]


def test_an_unreachable_lake_masks_its_password_in_every_form(pg_server, tmp_path):
    dead_port = pg_server.port + 1
    forms = [
        "ducklake:postgres:" + pg_server.conninfo("nolake", port=dead_port),
        f"ducklake:postgres:postgresql://postgres:{PASSWORD}@127.0.0.1:{dead_port}/nolake",
    ]
    for url in forms:
        warehouse = Warehouse(url, str(tmp_path / "data"))
        assert PASSWORD not in str(warehouse)
        with pytest.raises(WarehouseError) as error:
            connect(warehouse, read_only=True)
        assert PASSWORD not in str(error.value) and "not reachable" in str(error.value)
        env = {**os.environ, "CHIPCOST_WAREHOUSE": url, "CHIPCOST_LAKE_DATA": str(tmp_path)}
        done = chipcost("prices", env=env)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert PASSWORD not in done.stdout + done.stderr


def test_a_wrong_password_is_named_without_the_password(loaded_lake):
    wrong = "wrong-" + PASSWORD
    url = loaded_lake.url.replace(f"password={PASSWORD}", f"password={wrong}")
    with pytest.raises(WarehouseError) as error:
        connect(Warehouse(url, loaded_lake.lake_data), read_only=True)
    assert wrong not in str(error.value) and PASSWORD not in str(error.value)


@pytest.mark.parametrize(
    "text",
    [
        f"Unable to connect to Postgres at dbname=lake host=h user=u password={PASSWORD} port=1",
        f"ducklake:postgres:password='{PASSWORD}' dbname=x",
        f"postgresql://postgres:{PASSWORD}@127.0.0.1:5432/lake: connection refused",
        f'Failed to execute query "ROLLBACK" on postgres://u:{PASSWORD}@h/db',
    ],
)
def test_every_message_masks_a_password(text):
    from chipcost.core.clean import masked
    from chipcost.core.errors import ChipcostError

    assert PASSWORD not in masked(text)
    assert PASSWORD not in str(ChipcostError(text, details=[text]))
