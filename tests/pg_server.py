"""A throwaway PostgreSQL 15 cluster for the lake tests, removed after.

A run spread over workers has one for all of them: the runner starts it as soon as it is
configured (`start_shared`, in a thread while the workers start and collect their tests) and
hands its port and directory to the workers in the environment (SHARED_ENV); a worker's
`pg_server` fixture waits until it is up (`shared`). Each worker makes its own databases on
it (`new_database`: the process id is in every name). A run on one process starts its own
(`running`).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BIN = Path("/usr/lib/postgresql/15/bin")
PASSWORD = "lake-test-pw"
_names = itertools.count()
# The run's shared server, for the workers: "PORT DIRECTORY".
SHARED_ENV = "CHIPCOST_TEST_POSTGRES"
STARTUP_SECONDS = 180.0
# Written into the shared server's directory once it accepts connections, or once it failed.
READY, FAILED = "ready", "failed"


@dataclass(frozen=True)
class PgServer:
    port: int
    directory: Path

    def conninfo(self, dbname: str, password: str = PASSWORD, port: int | None = None) -> str:
        return (
            f"dbname={dbname} host=127.0.0.1 port={port or self.port} user=postgres "
            f"password={password}"
        )

    def psql(self, sql: str, database: str = "postgres") -> None:
        subprocess.run(
            [
                str(BIN / "psql"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                database,
                "-v",
                "ON_ERROR_STOP=1",
                "-q",
                "-c",
                sql,
            ],
            env={**os.environ, "PGPASSWORD": PASSWORD},
            check=True,
            capture_output=True,
        )

    @contextmanager
    def hba_line(self, line: str) -> Iterator[None]:
        """The server with `line` first in its pg_hba.conf (so it decides for what it matches),
        as long as the block lasts."""
        hba = self.directory / "data" / "pg_hba.conf"
        before = hba.read_text()
        hba.write_text(f"{line}\n{before}")
        self.psql("SELECT pg_reload_conf()")
        try:
            yield
        finally:
            hba.write_text(before)
            self.psql("SELECT pg_reload_conf()")

    def _ctl(self) -> list[str]:
        data = self.directory / "data"
        return [str(BIN / "pg_ctl"), "-D", str(data), "-l", str(self.directory / "log")]

    def start(self) -> None:
        # A throwaway cluster: nothing to survive a power cut, so no waiting on the disk.
        options = (
            f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 "
            "-c max_connections=200 -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off"
        )
        subprocess.run(
            _as_postgres([*self._ctl(), "-o", options, "-w", "start"]),
            check=True,
            capture_output=True,
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server; mode "immediate" is a crash (no shutdown, connections cut)."""
        subprocess.run(_as_postgres([*self._ctl(), "-m", mode, "-w", "stop"]), capture_output=True)

    def new_database(self, template: str | None = None) -> str:
        """A new database: empty, or a copy of `template` (which must have no connections)."""
        name = f"lake_{os.getpid()}_{next(_names)}"
        self.psql(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        return name


def available() -> bool:
    return (BIN / "initdb").is_file()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(args: list[str]) -> list[str]:
    # initdb refuses to run as root: the cluster belongs to the postgres user.
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _made(directory: Path, port: int) -> PgServer:
    """A new cluster in `directory` (the postgres user's when run as root), started on `port`."""
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(directory, user.pw_uid, user.pw_gid)
    data = directory / "data"
    pwfile = directory / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        os.chown(pwfile, pwd.getpwnam("postgres").pw_uid, -1)
    subprocess.run(
        _as_postgres(
            [
                str(BIN / "initdb"),
                "-D",
                str(data),
                "-A",
                "scram-sha-256",
                "-U",
                "postgres",
                f"--pwfile={pwfile}",
            ]
        ),
        check=True,
        capture_output=True,
    )
    server = PgServer(port, directory)
    server.start()
    return server


def _remove(server: PgServer) -> None:
    server.stop()
    shutil.rmtree(server.directory, ignore_errors=True)


@contextmanager
def running() -> Iterator[PgServer]:
    server = _made(Path(tempfile.mkdtemp(prefix="chipcost-pg-")), free_port())
    try:
        yield server
    finally:
        _remove(server)


def start_shared() -> tuple[threading.Thread, PgServer]:
    """The run's server, made in a thread: its port and directory go into the environment at
    once, and READY (or FAILED, with the error) into its directory once it is up."""
    server = PgServer(free_port(), Path(tempfile.mkdtemp(prefix="chipcost-pg-")))
    os.environ[SHARED_ENV] = f"{server.port} {server.directory}"

    def make() -> None:
        try:
            _made(server.directory, server.port)
        except Exception as exc:  # said to the workers, which fail their lake tests with it
            (server.directory / FAILED).write_text(f"{type(exc).__name__}: {exc}")
        else:
            (server.directory / READY).write_text("")

    thread = threading.Thread(target=make, name="test-postgres", daemon=True)
    thread.start()
    return thread, server


def stop_shared(thread: threading.Thread, server: PgServer) -> None:
    os.environ.pop(SHARED_ENV, None)
    thread.join()
    _remove(server)


def shared() -> PgServer | None:
    """The run's shared server once it is up, when the runner started one."""
    if not (given := os.environ.get(SHARED_ENV)):
        return None
    port, directory = given.split(" ", 1)
    server = PgServer(int(port), Path(directory))
    end = time.monotonic() + STARTUP_SECONDS
    while not (server.directory / READY).exists():
        if (failed := server.directory / FAILED).exists():
            raise RuntimeError(f"the test run's PostgreSQL did not start: {failed.read_text()}")
        if time.monotonic() > end:
            raise RuntimeError(f"the test run's PostgreSQL was not up in {STARTUP_SECONDS:.0f} s")
        time.sleep(0.05)
    return server
