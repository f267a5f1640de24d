"""Shared fixtures: a real Prefect server for flow tests, the bundled sample archive, new
warehouses (tests/warehouses.py)."""

from __future__ import annotations

import gc
import itertools
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

# Property tests keep no example database (it would be written into the repository, .hypothesis):
# a failure prints its example and the blob that replays it. No deadline: an example's time on
# a shared machine says nothing of the code (a 250 ms example under load was a "flaky" failure).
settings.register_profile("chipcost", database=None, print_blob=True, deadline=None)
settings.load_profile("chipcost")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample" / "archive"
_BUCKETS = itertools.count()


@pytest.fixture(autouse=True, scope="session")
def _no_terminal_width():
    """Piped chipcost output follows COLUMNS when it is set (docs: "Tables that fit"). The test
    runner's own terminal width, which readline exports to child processes, must not narrow
    the tables of every command a test runs; a test that wants a width sets COLUMNS itself.
    Set, then deleted: that unsets it below Python too, where readline put it."""
    for name in ("COLUMNS", "LINES"):
        os.environ[name] = "0"
        del os.environ[name]


_SHARED_SERVER = pytest.StashKey[tuple]()


_SHARED_WAREHOUSES = pytest.StashKey[Path]()


_SHARED_POSTGRES = pytest.StashKey[tuple]()


def pytest_configure(config):
    """A run spread over workers starts one Prefect server and one PostgreSQL for all of them,
    now, and gives them one folder of made warehouses (tests/warehouses.py)."""
    from tests import pg_server, shared_prefect, warehouses

    distributing = getattr(config.option, "numprocesses", None) and not hasattr(
        config, "workerinput"
    )
    if not distributing or config.option.collectonly:
        return
    if shared_prefect.URL_ENV not in os.environ:
        config.stash[_SHARED_SERVER] = shared_prefect.start()
    if warehouses.MADE_ENV not in os.environ:
        folder = Path(tempfile.mkdtemp(prefix="chipcost-test-warehouses-"))
        os.environ[warehouses.MADE_ENV] = str(folder)
        config.stash[_SHARED_WAREHOUSES] = folder
    if pg_server.SHARED_ENV not in os.environ and pg_server.available():
        config.stash[_SHARED_POSTGRES] = pg_server.start_shared()


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    """The workers of a distributed run collect one after the other. Collecting imports every
    test module and what it imports; in a new checkout the first import of each module also
    compiles it, and two workers importing the same modules at once compiled each twice (8 s
    of CPU of the 12 s a collection took there; 4 s once compiled)."""
    from tests import warehouses

    if hasattr(session.config, "workerinput") and os.environ.get(warehouses.MADE_ENV):
        with warehouses.locked("collection"):
            yield
    else:
        yield
    # What collection made (every module imported: polars, Prefect, pydantic's models, the
    # tests) lives to the end of the run: out of the cyclic collector's sight, and the young
    # generation collected every 50,000 allocations, not 700, the collector's passes over
    # them cost 4-6% of the suite's CPU (docs/performance.md, "The test suite").
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def pytest_unconfigure(config):
    if (started := config.stash.get(_SHARED_POSTGRES, None)) is not None:
        from tests import pg_server

        pg_server.stop_shared(*started)
    if (started := config.stash.get(_SHARED_SERVER, None)) is not None:
        from tests import shared_prefect

        shared_prefect.stop(*started)
    if (folder := config.stash.get(_SHARED_WAREHOUSES, None)) is not None:
        from tests import warehouses

        os.environ.pop(warehouses.MADE_ENV, None)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def prefect_server():
    """A real Prefect server (SQLite) for the whole session: flow tests run for real. The run's
    shared server when it has one (tests/shared_prefect.py), else Prefect's test harness."""
    from tests import shared_prefect

    if url := os.environ.get(shared_prefect.URL_ENV):
        with shared_prefect.pointed_at(url):
            yield
        return
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield


@pytest.fixture
def sample_runs() -> list[Path]:
    runs = sorted(p for p in SAMPLE.iterdir() if p.is_dir())
    assert runs, f"the sample archive {SAMPLE} is empty: run python -m chipcost.sample.build"
    return runs


@pytest.fixture
def archive_copy(tmp_path, sample_runs) -> Path:
    """A writable copy of the first three sample runs."""
    target = tmp_path / "archive"
    for run in sample_runs[:3]:
        shutil.copytree(run, target / run.name)
    return target


@pytest.fixture
def con(tmp_path):
    """A writer on a new warehouse of the test's own (schema and reference data, no runs)."""
    from chipcost.pipeline.seed import open_warehouse
    from tests import warehouses

    connection = open_warehouse(warehouses.new(tmp_path / "w.duckdb"))
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    """The report tests' warehouse (tests/report_warehouse.py), one copy for a module's tests:
    they read it. A test that writes takes a copy of its own (report_warehouse.build)."""
    from tests import warehouses

    return warehouses.golden(tmp_path_factory.mktemp("golden") / "w.duckdb")


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL 15 server (the lake's catalog): the run's shared one when its runner
    started one (tests/pg_server.py), else one of this session's own."""
    from tests import pg_server as pg

    if not pg.available():
        pytest.skip("PostgreSQL 15 is not installed (apt-get install postgresql-15)")
    if (shared := pg.shared()) is not None:
        yield shared
        return
    with pg.running() as server:
        yield server


@pytest.fixture(scope="session")
def lake_template(pg_server):
    """A lake migrated once per server, by the first test of the run that wants a `lake`."""
    from tests.lake_support import migrated_once

    return migrated_once(pg_server)


@pytest.fixture
def lake(pg_server, lake_template, tmp_path):
    """A migrated lake of its own: a copy of the template's database and data directory."""
    from tests.lake_support import copy_of

    return copy_of(pg_server, lake_template, tmp_path / "lake-data")


@pytest.fixture
def empty_lake(pg_server, tmp_path):
    """A lake never migrated, for the tests of a first migration: an empty database."""
    from chipcost.core.settings import Warehouse

    url = "ducklake:postgres:" + pg_server.conninfo(pg_server.new_database())
    return Warehouse(url, str(tmp_path / "lake-data"))


@pytest.fixture(scope="session")
def s3_endpoint():
    """moto's S3 server (a test double for S3) for the session."""
    from tests import s3_server

    with s3_server.running() as url:
        yield url


@pytest.fixture
def s3_bucket(s3_endpoint, tmp_path, monkeypatch) -> str:
    """A fresh bucket on the S3 test double, with the store's CHIPCOST_S3_* variables pointing
    at it, and no AWS credentials or endpoint anywhere boto3 looks (those are AWS's own)."""
    from tests import s3_server
    from tests.aws_stubs import clear_aws_env

    clear_aws_env(tmp_path, monkeypatch)
    for name, value in {**s3_server.ENV, s3_server.ENDPOINT_ENV: s3_endpoint}.items():
        monkeypatch.setenv(name, value)
    s3_server.forget_clients()
    name = f"chipcost-{os.getpid()}-{next(_BUCKETS)}"
    s3_server.client(s3_endpoint).create_bucket(Bucket=name)
    yield name
    s3_server.forget_clients()
