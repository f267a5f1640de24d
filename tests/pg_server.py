"""A throwaway PostgreSQL 15 cluster for the lake tests: started per session, removed after."""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BIN = Path("/usr/lib/postgresql/15/bin")
PASSWORD = "lake-test-pw"
_names = itertools.count()


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


@contextmanager
def running() -> Iterator[PgServer]:
    directory = Path(tempfile.mkdtemp(prefix="chipcost-pg-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(directory, user.pw_uid, user.pw_gid)
    data = directory / "data"
    pwfile = directory / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        os.chown(pwfile, pwd.getpwnam("postgres").pw_uid, -1)
    port = free_port()
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
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)
