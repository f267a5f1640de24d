"""A live `chipcost collect` says each source's outcome as it finishes, and an unreachable
network at once: real sockets to hosts where nothing listens (connection refused)."""

from __future__ import annotations

import re
import socket

from chipcost.core.record import ParseResult
from chipcost.extract import Source, registry
from chipcost.extract._http import get, http_client
from chipcost.pipeline import collect as collect_module

# Hosts on the loopback network (each a host of its own to the client) where nothing listens.
HOSTS = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def unreachable(name: str, host: str, port: int) -> Source:
    def fetch(ctx):
        with http_client(name, ctx) as client:
            return [get(ctx, client, f"http://{host}:{port}/prices")]

    return Source(name, "aws", "a host where nothing listens", fetch, lambda p: ParseResult())


def test_an_unreachable_network_is_said_within_seconds_source_by_source(run, tmp_path, monkeypatch):
    port = closed_port()
    down = {f"down-{n}": unreachable(f"down-{n}", host, port) for n, host in enumerate(HOSTS)}
    real = registry()
    monkeypatch.setattr(collect_module, "registry", lambda: {**real, **down})
    done = run(
        "collect", *(f"--source={name}" for name in down), "--db", str(tmp_path / "w.duckdb")
    )
    assert done.returncode == 1
    # Each retry would wait 1, 2, 4 and 8 s: the network is judged down after the first, and
    # each source says it did not try again (how long that takes is benchmarks' business: a
    # timed assertion here flakes on a loaded machine).
    assert "error: the network is unreachable (" in done.stderr
    assert "failed to resolve or connect, none answered" in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.lstrip().startswith("failed")]
    assert sorted(line.split()[3].rstrip(":") for line in lines) == sorted(down)
    # each source's outcome, however the width wraps it (a URL is a line of its own): the
    # network is judged down, so not tried again
    text = " ".join(done.stderr.split())
    outcomes = re.findall(r"failed [\d.]+ s (down-\d+): (.*?)(?= failed [\d.]+ s |$)", text)
    assert sorted(name for name, _ in outcomes) == sorted(down), outcomes
    outcomes = [said for _, said in outcomes]
    assert all("not tried again, the network is unreachable" in o for o in outcomes), outcomes
    assert "Traceback" not in done.stderr
