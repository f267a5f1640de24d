"""A stdout closed outright (`chipcost prices >&-`, no descriptor 1 at all: a pipe to DEVNULL is
one) takes nothing: the command does its work, says nothing, exits 0, no traceback. A process
of its own: Python starts it with sys.stdout None. (`chipcost report` with its stdout closed:
tests/reports/test_report_streams.py.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import warehouses

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("closed") / "w.duckdb", last=1))


@pytest.mark.parametrize("args", [["prices"], ["sources"]], ids=["prices", "sources"])
def test_a_stdout_closed_outright_takes_nothing_and_the_command_exits_0(db, tmp_path, args):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CHIPCOST_DATA_DIR": str(tmp_path)}
    shell = ["/bin/sh", "-c", 'exec "$@" >&-', "sh", CHIPCOST, *args, "--db", db]
    done = subprocess.run(shell, stderr=subprocess.PIPE, env=env | {"DO_NOT_TRACK": "1"})
    # on 8f824434: exit 1, a traceback ('NoneType' object has no attribute 'isatty')
    assert (done.returncode, done.stderr) == (0, b"")
