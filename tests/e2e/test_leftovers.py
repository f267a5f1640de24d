"""Nothing outlives its run: `chipcost collect --prefect` killed with SIGKILL leaves no server
behind (one that finishes leaves none either: tests/e2e/test_prefect_gone.py); a collection that
cannot write says so before its server starts (a process of its own: a root test's child loses
the capability to write anywhere)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests import procs, shared_prefect
from tests.conftest import SAMPLE
from tests.permissions import without_override

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
SERVER_MODULE = "chipcost.cli.prefect_server"
FIRST_RUN = str(sorted(p for p in SAMPLE.iterdir() if p.is_dir())[0])

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def own_env(tmp_path: Path) -> dict[str, str]:
    """No PREFECT_API_URL: the command starts its temporary server, in a Prefect home of its own
    (its database migrated, as after a first run)."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(
        PREFECT_HOME=str(shared_prefect.migrated_home(tmp_path / "prefect")),
        DO_NOT_TRACK="1",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        # Were Prefect to start its own server, it should get as long as chipcost's does.
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120",
    )
    return env


def wait_for_server(command: subprocess.Popen, said: Path, seconds: float = 240) -> int:
    """The pid of the command's temporary server, once it answers (`said`: its stderr)."""
    end = time.monotonic() + seconds
    with httpx.Client() as client:  # one for every poll (each new one loads the CA bundle)
        while time.monotonic() < end:
            assert command.poll() is None, (
                f"the command ended (exit {command.returncode}) before its server answered: "
                + said.read_text()[-2000:]
            )
            for pid in procs.descendants(command.pid):
                port = server_port(procs.cmdline(pid))
                if port:
                    try:
                        if client.get(f"http://127.0.0.1:{port}/api/health").status_code == 200:
                            return pid
                    except httpx.TransportError:
                        pass
            time.sleep(0.5)
    raise AssertionError(f"no temporary server answered within {seconds} s")


def server_port(args: list[str]) -> str | None:
    """The port of a Prefect server process: chipcost's own, or one Prefect started itself."""
    for flag in (SERVER_MODULE, "--port"):
        if flag in args[:-1]:
            return args[args.index(flag) + 1]
    return None


@pytest.fixture
def env(tmp_path):
    """The command's environment; whatever it leaves running is ended after the test."""
    env = own_env(tmp_path)
    yield env
    for pid in procs.with_environment("PREFECT_HOME", env["PREFECT_HOME"]):
        os.kill(pid, signal.SIGKILL)


def test_sigkill_of_collect_leaves_no_process(tmp_path, env):
    with (tmp_path / "stderr").open("w") as stderr:  # the child keeps its own copy
        command = subprocess.Popen(
            [
                CHIPCOST,
                "collect",
                "--prefect",
                "--replay",
                str(SAMPLE),
                "--db",
                str(tmp_path / "w.duckdb"),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        server = wait_for_server(command, said=tmp_path / "stderr")
        helpers = procs.descendants(command.pid)
        assert server in helpers
        os.kill(command.pid, signal.SIGKILL)
        command.wait(timeout=30)
    finally:
        if command.poll() is None:
            command.kill()
    assert procs.gone(helpers) == [], f"still running after the command was killed: {helpers}"
    assert procs.with_environment("PREFECT_HOME", env["PREFECT_HOME"]) == []


@pytest.fixture
def read_only_data(tmp_path):
    """A data directory no one may write to (beside a Prefect home that may be written)."""
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "prefect").mkdir()
    data.chmod(0o555)
    yield tmp_path
    data.chmod(0o755)


def collect_without_override(read_only_data: Path, *args: str) -> subprocess.CompletedProcess:
    """`chipcost collect ARGS` as a user who cannot write past the read-only directories: its
    data directory and Prefect home under `read_only_data`, no Prefect server configured."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(
        PREFECT_HOME=str(read_only_data / "prefect"),
        CHIPCOST_DATA_DIR=str(read_only_data / "data"),
    )
    return subprocess.run(
        [CHIPCOST, "collect", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=without_override,
    )


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--replay", FIRST_RUN], "cannot write to the warehouse's directory"),
        (["--source", "runpod"], "cannot write to the warehouse's directory"),
    ],
)
def test_a_read_only_data_directory_is_said_before_prefect_starts(read_only_data, args, named):
    data = read_only_data / "data"
    done = collect_without_override(read_only_data, "--prefect", *args)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert named in done.stderr and str(data) in done.stderr
    assert "--db" in done.stderr
    # Prefect never started: its temporary server would have made a database here.
    assert not list((read_only_data / "prefect").rglob("*.db"))


def test_a_read_only_archive_is_said_before_a_live_collect(read_only_data):
    data = read_only_data / "data"
    writable = read_only_data / "db"
    writable.mkdir()
    done = collect_without_override(
        read_only_data, "--source", "runpod", "--db", str(writable / "w.duckdb")
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert f"cannot write to the archive directory {data}" in done.stderr
    assert "--data-dir" in done.stderr
