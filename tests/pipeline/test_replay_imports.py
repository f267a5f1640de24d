"""A replay only parses archived payloads: `chipcost collect --replay` never imports the fetch
clients (httpx, botocore, boto3, urllib3) nor the retry layer (tenacity), whose import alone
costs a fifth of a second."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from tests import warehouses
from tests.paths import ROOT

FETCH_CLIENTS = ("httpx", "botocore", "boto3", "urllib3", "tenacity")

# `chipcost collect --replay ARCHIVE --db DB` as the console script runs it, in a process of
# its own (this one has imported the clients for other tests); then the clients it imported.
REPLAY = """
import sys
from chipcost.cli.entry import main
archive, db, watched = sys.argv[1:]
sys.argv = ["chipcost", "collect", "--replay", archive, "--db", db]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
clients = sorted({name.split(".")[0] for name in sys.modules} & set(watched.split(",")))
print("exit", code, "clients", ",".join(clients) or "none")
"""


def test_a_replay_imports_no_fetch_client(tmp_path):
    run = warehouses.sample_runs()[0]
    shutil.copytree(run, tmp_path / "archive" / run.name)
    env = {
        **os.environ,
        "CHIPCOST_DATA_DIR": str(tmp_path / "data"),
        "PREFECT_LOGGING_LEVEL": "CRITICAL",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    args = [str(tmp_path / "archive"), str(tmp_path / "w.duckdb"), ",".join(FETCH_CLIENTS)]
    done = subprocess.run(
        [sys.executable, "-c", REPLAY, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = done.stdout.strip().splitlines()
    assert said and said[-1] == "exit 0 clients none", (done.stdout, done.stderr[-3000:])
