"""`chipcost report` with its stdout cut short: a pipe its reader closed (`| head -1`) or a
stdout closed outright (`>&-`) cuts only what is printed, never the files, the .eml, the send
or its record. A process of its own, its stdout a real pipe or no descriptor at all; the SMTP
server a real one, started here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests import report_warehouse, smtp_server

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
SLUG = "2026-11-01_2026-11-07"


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    return report_warehouse.build(tmp_path_factory.mktemp("streams") / "w.duckdb")


@pytest.fixture
def db(golden, tmp_path) -> Path:
    """A copy of the golden warehouse: a send records its delivery in it."""
    return Path(shutil.copy(golden, tmp_path / "w.duckdb"))


@pytest.fixture
def inbox():
    box = smtp_server.Inbox()
    controller = smtp_server.start(box)
    yield box, controller.port
    controller.stop()


def _environment(tmp_path: Path, smtp_port: int | None = None) -> dict[str, str]:
    """Unbuffered as in the Docker image, where each line meets the closed pipe as it is
    written (buffered, the lines meet it at the end)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHIPCOST_SMTP_")}
    env |= {"PYTHONUNBUFFERED": "1", "CHIPCOST_DATA_DIR": str(tmp_path / "data")}
    if smtp_port is not None:
        env |= {"CHIPCOST_SMTP_HOST": "127.0.0.1", "CHIPCOST_SMTP_PORT": str(smtp_port)}
        env |= {"CHIPCOST_SMTP_TLS": "none", "CHIPCOST_SMTP_FROM": "r@example.com"}
    return env


def _to_a_closed_pipe(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`chipcost ARGS | true`: its stdout a pipe whose reader closed it before the first line,
    so every line meets it: the exit status and stderr."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [CHIPCOST, *args], stdout=write, stderr=subprocess.PIPE, env=env, timeout=300
        )
    finally:
        os.close(write)
    return done.returncode, done.stderr.decode(errors="replace")


def _with_stdout_closed(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`chipcost ARGS >&-`: no descriptor 1 at all (a pipe to DEVNULL is one): the exit
    status and stderr."""
    shell = ["/bin/sh", "-c", 'exec "$@" >&-', "sh", CHIPCOST, *args]
    done = subprocess.run(shell, stderr=subprocess.PIPE, env=env, timeout=300)
    return done.returncode, done.stderr.decode(errors="replace")


def _written(out: Path) -> set[str]:
    return {p.suffix for p in out.glob(f"chipcost-*_{SLUG}.*")}


def _deliveries(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT recipient, status FROM deliveries").fetchall()
    finally:
        con.close()


CUTS = {"closed pipe": (_to_a_closed_pipe, 141), "stdout closed": (_with_stdout_closed, 0)}


@pytest.mark.parametrize("cut", CUTS)
def test_a_dry_run_writes_its_eml_whatever_becomes_of_stdout(db, tmp_path, cut):
    run, code = CUTS[cut]
    out = tmp_path / "r"
    said_code, said = run(["report", "--dry-run", "--db", str(db), "--out", str(out)],
                          _environment(tmp_path))  # fmt: skip
    # on 8f824434: 141 (and 1 with a traceback for stdout closed), no .eml
    assert (said_code, said) == (code, "")
    assert _written(out) == {".html", ".csv", ".eml"}


@pytest.mark.parametrize("cut", CUTS)
def test_a_send_goes_out_and_is_recorded_whatever_becomes_of_stdout(db, tmp_path, inbox, cut):
    (box, port), (run, code) = inbox, CUTS[cut]
    out = tmp_path / "r"
    args = ["report", "--db", str(db), "--out", str(out), "--email", "a@example.com"]
    said_code, said = run(args, _environment(tmp_path, port))
    # on 8f824434: 141 with nothing sent and nothing recorded
    assert (said_code, said) == (code, "")
    assert [m.rcpt_tos for m in box.messages] == [["a@example.com"]]
    assert _deliveries(db) == [("a@example.com", "sent")]
    assert _written(out) == {".html", ".csv"}
