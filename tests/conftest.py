"""Shared fixtures: a real Prefect server for flow tests, the bundled sample archive."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample" / "archive"


@pytest.fixture(autouse=True, scope="session")
def _no_terminal_width():
    """Piped chipcost output follows COLUMNS when it is set (docs: "Tables that fit"). The test
    runner's own terminal width, which readline exports to child processes, must not narrow
    the tables of every command a test runs; a test that wants a width sets COLUMNS itself.
    Set, then deleted: that unsets it below Python too, where readline put it."""
    for name in ("COLUMNS", "LINES"):
        os.environ[name] = "0"
        del os.environ[name]


@pytest.fixture(scope="session")
def prefect_server():
    """One temporary Prefect server (SQLite) for the whole session: flow tests run for real."""
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
