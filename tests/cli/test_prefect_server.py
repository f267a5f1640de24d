"""The temporary server's environment: Prefect told it is temporary, no telemetry by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipcost.cli import prefect_server


def spawned_environment(monkeypatch, **env: str) -> dict[str, str]:
    """The environment the spawned server process really has (read from /proc)."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    _, process = prefect_server._spawn()
    try:
        raw = Path(f"/proc/{process.pid}/environ").read_bytes()
    finally:
        prefect_server._stop(process)
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
