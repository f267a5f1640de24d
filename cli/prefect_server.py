"""The temporary Prefect server of one command: its child, and gone when the command dies.

Prefect starts a temporary server by itself when no API URL is set, and stops it at exit;
a command killed with SIGKILL (a scheduler's timeout, the OOM killer) never reaches exit, so
that server would run for ever. chipcost starts it instead, as `python -m
chipcost.cli.prefect_server PORT PARENT_PID`, which watches its parent two ways: the parent
holds the other end of its stdin, so end of file means the parent is gone, however it died;
and on Linux the kernel also sends it SIGTERM the moment its parent dies (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from chipcost.core.clean import without_credentials
from chipcost.core.errors import ChipcostError

# A busy 2-core machine took more than Prefect's own 20 s to start one.
STARTUP_SECONDS = 120.0
# After the parent died: time for the server to stop cleanly before it is ended.
GRACE_SECONDS = 10.0
PR_SET_PDEATHSIG = 1
# What Prefect sets for its own temporary server: no UI, and the server knows it is temporary.
SERVER_ENV = {
    "PREFECT_UI_ENABLED": "0",
    "PREFECT__SERVER_EPHEMERAL": "1",
    "PREFECT__SERVER_FINAL": "1",
}
# Unless the user says otherwise: a server that lives for one command does not phone home
# (offline, each attempt fails after a name lookup, in the server's log).
SERVER_DEFAULTS = {"PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
# Unless the user says otherwise, for a command that runs a flow: its own table and error line
# say what the flow's log says (the log still reaches the server), and no client telemetry.
# A request to a server that went away is retried once, 2 s later, not Prefect's five times
# with backoff to 32 s: a flow run makes four or five such requests on its way out (task and
# flow states), and a collect whose server died took 140 s to end. Prefect's internal
# services (the events worker) log each event they could not send: the command's own error
# line says what happened.
COMMAND_DEFAULTS = {
    "PREFECT_LOGGING_LEVEL": "CRITICAL",
    "PREFECT_INTERNAL_LOGGING_LEVEL": "CRITICAL",
    "DO_NOT_TRACK": "1",
    "PREFECT_CLIENT_MAX_RETRIES": "1",
}
# Imported by Prefect inside a flow's first call (it encodes the flow's parameters with
# FastAPI's jsonable_encoder): 0.12 s of the run, unless imported while the server starts.
FIRST_CALL_IMPORTS = ("fastapi.encoders",)
PORT_IN_USE = 3  # uvicorn's exit code when it could not bind
QUEUE_SERVICES = ("EventsWorker", "APILogWorker")
# The lines of the server's own output shown when it did not start (it is kept from the
# terminal otherwise: stopping it mid-flush logs tracebacks of its cancelled services).
SERVER_TAIL_LINES = 6


class ServerError(ChipcostError):
    """The temporary Prefect server did not start."""


class ServerGone(ChipcostError):
    """The Prefect server stopped answering while a command's flow ran."""


def command_defaults() -> None:
    """COMMAND_DEFAULTS into the environment: called before Prefect is first imported."""
    for name, value in COMMAND_DEFAULTS.items():
        os.environ.setdefault(name, value)
    # Prefect's queue services log under their class names, outside the `prefect` logger that
    # PREFECT_LOGGING_LEVEL sets: "EventsWorker - Still processing items: 9 items remaining"
    # reached the terminal while a command that failed early drained its events.
    for service in QUEUE_SERVICES:
        try:
            logging.getLogger(service).setLevel(os.environ["PREFECT_LOGGING_LEVEL"].upper())
        except ValueError:  # not a level name: Prefect's own settings will say so
            pass


@contextmanager
def temporary_server(meanwhile: Callable[[], object] = lambda: None) -> Iterator[str | None]:
    """Point Prefect at a server this process owns, unless an API URL is configured.

    The server takes seconds to import and start: it is spawned first, and `meanwhile` (the
    command's own imports of Prefect and the flow) runs while it starts, on the other core.
    """
    if os.environ.get("PREFECT_API_URL"):
        meanwhile()
        yield from _configured()
        return
    port, process = _spawn()
    try:
        meanwhile()
        _import_for_first_call()
        from prefect.settings import PREFECT_API_URL

        configured = bool(PREFECT_API_URL.value())  # in a profile, not in the environment
        if not configured:
            process, url = _started(port, process)
    except BaseException:
        _stop(process)
        raise
    if configured:
        _stop(process)
        yield from _configured()
        return
    yield from _pointed_at(process, url)


@contextmanager
def flow_server(
    doing: str, meanwhile: Callable[[], object], after: Callable[[], str] | None = None
) -> Iterator[None]:
    """A command's flow on the server PREFECT_API_URL names, else a temporary one (the
    command's defaults set first). The server going away mid-run is one line naming it and
    `doing` ("the collection"), and what `after` says the run left; Prefect's queued events
    are dropped rather than retried against nothing."""
    command_defaults()
    with temporary_server(meanwhile=meanwhile):
        try:
            yield
        except Exception as exc:
            if (reason := went_away(exc)) is None:
                raise
            discard_queued()
            left = f": {after()}; without --prefect it needs no server" if after else ""
            raise ServerGone(
                f"the Prefect server at {api_url()} stopped answering during {doing} "
                f"({reason}){left}"
            ) from None


def _configured() -> Iterator[None]:
    """The server PREFECT_API_URL names, once it answers: one that does not is said in one
    line before any flow runs (Prefect's own "Failed to reach API" came as its traceback)."""
    import httpx
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        problem = client.api_healthcheck()
    # Only no answer at all: a server that answers (even 401 or 404) is Prefect's to judge.
    if isinstance(problem, httpx.TransportError):
        raise ServerError(_unreachable(_reason(problem)))
    try:
        yield None
    except RuntimeError as exc:
        # It stopped answering between the check and the flow's first call.
        if not str(exc).startswith("Failed to reach API"):
            raise
        raise ServerError(_unreachable("")) from None


def went_away(exc: BaseException) -> str | None:
    """Why the Prefect server stopped answering (`Connection refused`), when `exc` says it
    did: a transport error of its client, or Prefect's own "Failed to reach API"."""
    import httpx

    if isinstance(exc, httpx.TransportError):
        return _reason(exc)
    if isinstance(exc, RuntimeError) and str(exc).startswith("Failed to reach API"):
        return "no answer"
    return None


def api_url() -> str:
    """The Prefect API URL in force, without credentials."""
    from prefect.settings import PREFECT_API_URL

    return without_credentials(str(PREFECT_API_URL.value()))


def _unreachable(reason: str) -> str:
    """No Prefect server at the configured URL: where the URL comes from, and what to do."""
    from prefect.context import get_settings_context
    from prefect.settings import PREFECT_API_URL

    url = without_credentials(str(PREFECT_API_URL.value()))
    if os.environ.get("PREFECT_API_URL"):
        where, unset = "PREFECT_API_URL", "unset PREFECT_API_URL"
    else:
        profile = get_settings_context().profile.name
        where = f"PREFECT_API_URL (Prefect profile {profile!r})"
        unset = "run `prefect config unset PREFECT_API_URL`"
    return (
        f"{where} is {url}, where no Prefect server answers{f' ({reason})' if reason else ''}: "
        f"start the server (`prefect server start`), or {unset} and chipcost starts a "
        "temporary one for the command"
    )


def _reason(exc: Exception) -> str:
    """'Connection refused' from '[Errno 111] Connection refused'; the class name if empty."""
    text = re.sub(r"^\[Errno -?\d+\] ", "", str(exc).strip()).splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def _import_for_first_call() -> None:
    """What Prefect imports only when a flow is first called, imported while the server starts."""
    for name in FIRST_CALL_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # a later Prefect that does without it: nothing to prepare
            pass


def _pointed_at(process: subprocess.Popen, url: str) -> Iterator[str]:
    from prefect.context import refresh_global_settings_context
    from prefect.settings import temporary_settings

    os.environ["PREFECT_API_URL"] = url
    refresh_global_settings_context()
    try:
        # No flow-run heartbeats to a server that ends with this command: nobody is left to
        # notice a run that stopped beating, and each flow run's end waits up to a second
        # for the heartbeat thread to wake.
        with temporary_settings(updates={"flows.heartbeat_frequency": None}):
            yield url
    finally:
        if process.poll() is None:  # a server that died takes nothing more
            _drain_prefect()
        _stop(process)
        os.environ.pop("PREFECT_API_URL", None)
        refresh_global_settings_context()


def _spawn() -> tuple[int, subprocess.Popen]:
    port = _free_port()
    output = tempfile.TemporaryFile()  # open for the server's life: closed by _stop
    process = subprocess.Popen(
        [sys.executable, "-m", "chipcost.cli.prefect_server", str(port), str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=output,
        stderr=subprocess.STDOUT,
        env={**SERVER_DEFAULTS, **os.environ, **SERVER_ENV},
        # Its own session: Ctrl-C reaches the command, which then stops the server itself.
        start_new_session=True,
    )
    process.output = output  # type: ignore[attr-defined]
    return port, process


def _last_words(process: subprocess.Popen) -> str:
    """What the server said last, for a message that it did not start: the unindented lines
    of its output (a traceback's frames are indented; its exception and uvicorn's own lines
    are not), the last few."""
    output = getattr(process, "output", None)
    if output is None or output.closed:
        return ""
    output.seek(0)
    lines = output.read().decode(errors="replace").splitlines()
    said = [line for line in lines if line.strip() and not line[0].isspace()]
    chained = ("The above exception", "During handling of the above")
    said = [
        line
        for line in said
        if "Traceback (most recent call last)" not in line and not line.startswith(chained)
    ]
    return "\n".join(said[-SERVER_TAIL_LINES:])


def _started(port: int, process: subprocess.Popen) -> tuple[subprocess.Popen, str]:
    """The spawned server once healthy; a port taken meanwhile is tried twice more."""
    for attempt in range(3):
        if attempt:
            port, process = _spawn()
        url = f"http://127.0.0.1:{port}/api"
        if _wait_healthy(process, url):
            return process, url
        exited = process.poll() is not None
        said = _last_words(process)
        _stop(process)
        if not (process.returncode == PORT_IN_USE and "address already in use" in said.lower()):
            break
    how = (
        f"exited with code {process.returncode} while starting"
        if exited
        else f"did not answer within {STARTUP_SECONDS:.0f} s"
    )
    raise ServerError(
        f"the temporary Prefect server {how}: run `prefect server start` and set "
        "PREFECT_API_URL to it, or check PREFECT_HOME and Prefect's server settings",
        details=tuple(said.splitlines()),
    )


def _wait_healthy(process: subprocess.Popen, url: str) -> bool:
    import httpx

    end = time.monotonic() + STARTUP_SECONDS
    with httpx.Client(timeout=5.0) as client:
        while time.monotonic() < end and process.poll() is None:
            try:
                if client.get(f"{url}/health").status_code == 200:
                    return True
            except httpx.TransportError:
                pass
            time.sleep(0.05)  # a poll refused while it starts costs next to nothing
    return False


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _drain_prefect() -> None:
    """Send the logs and events still queued while the server is there to take them."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (APILogWorker, EventsWorker):
        try:
            worker.drain_all(timeout=5)
        except Exception:  # noqa: BLE001 - nothing queued, or the server is gone: stop anyway
            pass


def discard_queued() -> None:
    """Drop what Prefect's queue services (events, logs) still hold for a server that went
    away: at exit they would send it item by item, each failing after its retry (24 s of a
    collect's exit, of the 36 s it took to end). Prefect has no public way to: on a Prefect
    laid out otherwise this does nothing, and the exit is only slower."""
    import queue

    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (APILogWorker, EventsWorker):
        try:
            with worker._instance_lock:
                instances = list(worker._instances.values())
            for instance in instances:
                while True:
                    try:
                        instance._queue.get_nowait()
                    except queue.Empty:
                        break
                    instance._queue.task_done()
                instance._stop()
        except Exception:  # noqa: BLE001 - see above: a slower exit, nothing worse
            pass


def _stop(process: subprocess.Popen) -> None:
    if process.stdin:
        process.stdin.close()
    process.terminate()
    try:
        process.wait(timeout=GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if (output := getattr(process, "output", None)) is not None:
        output.close()


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    threading.Thread(target=_watch_stdin, daemon=True).start()


def _watch_stdin() -> None:
    while sys.stdin.buffer.read(4096):
        pass
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE_SECONDS)
    os._exit(1)


def serve(port: int, parent: int) -> None:
    """The server process: Prefect's API app under uvicorn, as Prefect runs it itself."""
    _die_with_parent(parent)
    import uvicorn

    try:
        uvicorn.run(
            "prefect.server.api.server:create_app",
            factory=True,
            host="127.0.0.1",
            port=port,
            log_level="error",
            lifespan="on",
        )
    except SystemExit as exc:
        # uvicorn's startup failure (3: a port taken, or the app's startup failed). Ended
        # here, not by the interpreter's shutdown: the stdin watcher blocked in its read
        # made that abort ("could not acquire lock for <stdin>"), exit code -6 instead.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exc.code if isinstance(exc.code, int) else 1)
    # Stopped: exit without the collector's passes over Prefect's objects (0.3-0.9 s here),
    # which the command waits for.
    gc.freeze()


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
