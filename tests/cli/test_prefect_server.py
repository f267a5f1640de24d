"""The temporary server's environment: Prefect told it is temporary, no telemetry by default."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chipcost.cli import prefect_server
from tests import procs
from tests.conftest import SAMPLE
from tests.helpers import without_progress

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))


def spawned_environment(monkeypatch, **env: str) -> dict[str, str]:
    """The environment the spawned server process really has (read from /proc)."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    _, process = prefect_server._spawn()
    try:
        # Popen can return before the kernel has laid out the new program's arguments and
        # environment: /proc then shows this process's own or nothing. Wait for the server's
        # command line, then for its environment.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if prefect_server.__name__ in procs.cmdline(process.pid):
                environment = _read_environ(Path(f"/proc/{process.pid}/environ"))
                if environment:
                    return environment
            time.sleep(0.01)
        raise AssertionError(f"the spawned server {process.pid} never showed its environment")
    finally:
        prefect_server._stop(process)


def _read_environ(path: Path) -> dict[str, str]:
    raw = path.read_bytes()
    pairs = (item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)
    return dict(pairs)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_the_temporary_server_sends_no_telemetry_unless_the_user_asks(monkeypatch):
    monkeypatch.delenv("PREFECT_SERVER_ANALYTICS_ENABLED", raising=False)
    env = spawned_environment(monkeypatch)
    assert env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert env["PREFECT__SERVER_EPHEMERAL"] == "1" and env["PREFECT_UI_ENABLED"] == "0"
    asked = spawned_environment(monkeypatch, PREFECT_SERVER_ANALYTICS_ENABLED="true")
    assert asked["PREFECT_SERVER_ANALYTICS_ENABLED"] == "true"


def test_flows_on_the_commands_own_server_send_no_heartbeats(monkeypatch):
    # Heartbeats tell a lasting server that a run still lives; this server ends with the
    # command, and each flow run's end waited for the heartbeat thread to wake. What a flow
    # sees is the settings chipcost points Prefect at once its server answers (_pointed_at):
    # read as a command reads them, in a context of no settings of its own (this test's
    # process may hold the suite's server in its context and as the process-wide settings,
    # put back after). Starting the real server is proved by tests/e2e and the test above.
    import contextvars

    import prefect.context
    from prefect.settings import get_current_settings as current

    for name in [n for n in os.environ if n.startswith("PREFECT_API")]:
        monkeypatch.delenv(name)
    url = "http://127.0.0.1:4299/api"
    suites = prefect.context.GLOBAL_SETTINGS_CONTEXT
    server = subprocess.Popen(["sleep", "60"], stdin=subprocess.PIPE)  # what the end stops

    def as_a_command() -> tuple:
        prefect.context.refresh_global_settings_context()
        before = (current().flows.heartbeat_frequency, current().api.url)
        with contextlib.contextmanager(prefect_server._pointed_at)(server, url) as given:
            inside = (given, os.environ["PREFECT_API_URL"], current().api.url)
            beats = current().flows.heartbeat_frequency
            running = server.poll() is None
        after = (current().flows.heartbeat_frequency, current().api.url)
        return before, inside, beats, running, after

    try:
        before, inside, beats, running, after = contextvars.Context().run(as_a_command)
    finally:
        server.kill()
        server.wait()
        prefect.context.GLOBAL_SETTINGS_CONTEXT = suites
    assert before[0] is not None and before[1] is None
    assert inside == (url, url, url) and running
    assert beats is None
    assert after == before and "PREFECT_API_URL" not in os.environ
    assert server.returncode == -signal.SIGTERM  # stopped by the context's end, not by kill


def test_a_server_that_cannot_start_says_why_in_its_own_words(monkeypatch, tmp_path):
    # Its database cannot be opened: the server exits while starting (uvicorn's 3, not an
    # abort of the interpreter), is not retried as a taken port would be, and the message
    # ends with what it said, not its traceback.
    database = f"sqlite+aiosqlite:///{tmp_path}/missing/dir/prefect.db"
    monkeypatch.setenv("PREFECT_SERVER_DATABASE_CONNECTION_URL", database)
    spawned = []
    spawn = prefect_server._spawn
    monkeypatch.setattr(prefect_server, "_spawn", lambda: spawned.append(1) or spawn())
    port, process = spawn()
    with pytest.raises(prefect_server.ServerError) as refused:
        prefect_server._started(port, process)
    error = refused.value
    assert error.headline.startswith("the temporary Prefect server exited with code 3 while")
    assert "unable to open database file" in "\n".join(error.details)
    assert not any("Traceback" in line or line.startswith(" ") for line in error.details)
    assert process.returncode == prefect_server.PORT_IN_USE and spawned == []


def test_prefects_queue_services_log_at_the_commands_level(monkeypatch):
    # "EventsWorker - Still processing items: 9 items remaining..." reached the terminal of a
    # command that failed early: those services log outside the `prefect` logger.
    import logging

    monkeypatch.delenv("PREFECT_LOGGING_LEVEL", raising=False)
    services = [logging.getLogger(name) for name in prefect_server.QUEUE_SERVICES]
    for logger in services:
        monkeypatch.setattr(logger, "level", logging.NOTSET)
    prefect_server.command_defaults()
    assert [logger.level for logger in services] == [logging.CRITICAL] * 2
    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "debug")
    prefect_server.command_defaults()
    assert [logger.level for logger in services] == [logging.DEBUG] * 2


def closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    "args",
    [
        ["collect", "--prefect", "--replay", str(SAMPLE)],
        ["backfill", "--prefect", "--since", "2025-01-01"],
    ],
    ids=["collect", "backfill"],
)
def test_a_configured_server_that_does_not_answer_is_one_line(tmp_path, args):
    # Prefect's own "RuntimeError: Failed to reach API" came as 140 lines of traceback.
    url = f"http://127.0.0.1:{closed_port()}/api"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(
        PREFECT_API_URL=url,
        PREFECT_HOME=str(tmp_path / "prefect"),
        CHIPCOST_DATA_DIR=str(tmp_path / "data"),
    )
    done = subprocess.run(
        [CHIPCOST, *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    error = without_progress(done.stderr)  # collect's progress lines come first
    said = " ".join(error.split())
    assert said.startswith(f"error: PREFECT_API_URL is {url}, where no Prefect server answers")
    assert "`prefect server start`" in said and "unset PREFECT_API_URL" in said
    assert len(error.strip().splitlines()) <= 3, done.stderr  # one line, wrapped
    # Nothing was loaded, nor made ready to load.
    assert not (tmp_path / "data" / "chipcost.duckdb").exists()


def test_a_server_that_stops_before_the_flow_starts_is_one_line_too(monkeypatch):
    # Between the check and the flow's first call: Prefect's RuntimeError becomes the message.
    from prefect.settings import PREFECT_API_URL, temporary_settings

    url = f"http://127.0.0.1:{closed_port()}/api"
    monkeypatch.setenv("PREFECT_API_URL", url)
    monkeypatch.setattr(
        "prefect.client.orchestration.SyncPrefectClient.api_healthcheck", lambda self: None
    )
    with temporary_settings(updates={PREFECT_API_URL: url}):
        with pytest.raises(prefect_server.ServerError, match=f"is {url}, where no Prefect"):
            with prefect_server.temporary_server():
                raise RuntimeError(f"Failed to reach API at {url}/")
        with pytest.raises(RuntimeError, match="something else"):
            with prefect_server.temporary_server():
                raise RuntimeError("something else")
