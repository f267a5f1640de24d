"""`run`: the command line in this process (tests.cli_runner), with a data directory of the
test's own and Prefect kept quiet."""

from __future__ import annotations

import os

import pytest

from tests.cli_runner import Ran, chipcost

__all__ = ["Ran", "run"]


@pytest.fixture
def run(monkeypatch, tmp_path):
    """Run `chipcost ARGS` in this process (a subprocess each would take seconds to start);
    `env` is added to this process's environment for the command."""
    monkeypatch.setenv("CHIPCOST_DATA_DIR", str(tmp_path / "data"))
    # What `chipcost collect` sets for itself: set here so that the test undoes it after.
    quiet = {
        "PREFECT_LOGGING_LEVEL": "CRITICAL",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    for name, value in quiet.items():
        monkeypatch.setenv(name, os.environ.get(name, value))

    def invoke(*args: str, env: dict[str, str] | None = None) -> Ran:
        return chipcost(*args, env={**os.environ, **(env or {})})

    return invoke
