"""The suite's one warehouse factory: real DuckDB files, each kind made once per test process.

A warehouse file opened for the first time gets its schema and its reference data (chips,
instance types, throughput figures: chipcost.pipeline.seed), about a second of CPU; a replay
of the sample archive takes several. Each kind is made once per test run, by the same
chipcost code a test would run, and each use gets a copy of the file (milliseconds): a test
writes to its own copy, never to a file another test reads. A run spread over workers shares
one folder of them (MADE_ENV, set by the runner before the workers start): the first worker
to want a kind makes it under a lock, the others wait for it and copy. A test of the seeding
itself, or of what a first open does, opens a new file with `open_warehouse` instead.

The fixtures over these (tests/conftest.py): `con`, a writer on a new warehouse of the test's
own; `golden_db`, a copy of the report tests' warehouse (tests/report_warehouse.py).
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from chipcost.core.record import PriceRecord
from chipcost.core.runs import RunResult

# The run's shared folder of made warehouses, when its runner made one (tests/conftest.py).
MADE_ENV = "CHIPCOST_TEST_WAREHOUSES"
_made: list[Path] = []


def made_folder() -> Path:
    """The folder of made warehouses: the run's shared one, else this process's own (removed
    when the process ends)."""
    if not _made:
        if shared := os.environ.get(MADE_ENV):
            folder = Path(shared)
        else:
            folder = Path(tempfile.mkdtemp(prefix="chipcost-test-warehouses-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _made.append(folder)
    return _made[0]


@contextmanager
def locked(name: str) -> Iterator[None]:
    """One process at a time makes (or finds made) the kind `name`."""
    with open(made_folder() / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _made_once(name: str, make: Callable[[Path], object]) -> Path:
    """`made_folder()/name.duckdb`, made by `make(path)` unless a worker made it already."""
    path = made_folder() / f"{name}.duckdb"
    with locked(name):
        if not path.exists():
            building = made_folder() / f"{name}.building.duckdb"
            building.unlink(missing_ok=True)
            make(building)
            building.rename(path)
    return path


def _copy(made: Path, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(made, path)
    return path


@functools.cache
def _seeded() -> Path:
    from chipcost.pipeline.seed import open_warehouse

    return _made_once("seeded", lambda path: open_warehouse(path).close())


def new(path: Path) -> Path:
    """A warehouse at `path` as a first open leaves it: schema and reference data, no runs."""
    return _copy(_seeded(), path)


def of_runs(path: Path, runs: Iterable[RunResult]) -> Path:
    """A new warehouse at `path` with `runs` loaded, in order, as a replay loads them (one
    checkpoint at the end, not one a run)."""
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.db import checkpoint
    from chipcost.warehouse.load import load_run

    con = open_warehouse(new(path))
    try:
        for run in runs:
            load_run(con, run, checkpointed=False)
        checkpoint(con)
    finally:
        con.close()
    return path


def made(name: str, make: Callable[[Path], object], path: Path) -> Path:
    """A copy at `path` of the warehouse kind `name`, made by `make(file)` once per test run:
    a test file's own fixed data (the same every time it is made), copied for each use as
    `golden` and `sample` are. `name` is unique in the suite: the test module's name."""
    return _copy(_made_once(name, make), path)


def of_records(path: Path, records: list[PriceRecord]) -> Path:
    """A new warehouse at `path` with one run of `records`, observed on day 0."""
    from tests.helpers import day, run_of

    return of_runs(path, [run_of(records, day(0))])


@functools.cache
def _golden() -> Path:
    from tests import report_warehouse

    return _made_once("golden", lambda path: of_runs(path, report_warehouse.golden_runs()))


def golden(path: Path) -> Path:
    """The report tests' warehouse (tests/report_warehouse.py: seven days, known moves)."""
    return _copy(_golden(), path)


def sample_runs() -> list[Path]:
    """The bundled sample archive's runs, oldest first."""
    from tests.conftest import SAMPLE

    return sorted(p for p in SAMPLE.iterdir() if p.is_dir())


@functools.cache
def _replayed(first: int | None, last: int | None) -> Path:
    from tests.collecting import collect

    runs = sample_runs()
    runs = runs[:first] if first else runs[-last:] if last else runs
    name = f"sample-{first}-{last}"

    def make(path: Path) -> None:
        archive, data = made_folder() / name, made_folder() / f"{name}-data"
        for folder in (archive, data):  # a worker that died making it may have left them
            shutil.rmtree(folder, ignore_errors=True)
        for run in runs:
            shutil.copytree(run, archive / run.name)
        collect(replay=str(archive), db=str(new(path)), data_dir=str(data))

    return _made_once(name, make)


def sample(path: Path, *, first: int | None = None, last: int | None = None) -> Path:
    """The bundled sample archive replayed (`chipcost collect --replay`) into a warehouse at
    `path`: every run, its `first` runs (the `archive_copy` fixture's) or its `last` runs."""
    return _copy(_replayed(first, last), path)
