"""The warehouse's file: a path checked before DuckDB opens it (a directory, no parent, a
file that is not DuckDB's), a damage said with what to do, and the lock a collection holds."""

from __future__ import annotations

import fcntl
import os
import re
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from chipcost.core.commands import rebuilt
from chipcost.core.disk import NO_ROOM_WORDS, no_room
from chipcost.core.errors import ChipcostError, WarehouseBusy, WarehouseError
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.settings import (
    ARCHIVE_ENV,
    DB_ENV,
    DB_FILENAME,
    WAREHOUSE_ENV,
    Settings,
    Warehouse,
    named,
    process_variable,
)

# What DuckDB says when the file itself is damaged: cut short, scribbled over, not DuckDB.
DAMAGE_SIGNS = (
    "not a valid duckdb database file",
    "could not read enough bytes",
    "corrupt database file",
    "checksum",
    "failed to deserialize",
    "serialization error",
    "database has been invalidated",
    "internal error",
)
# What a write to the warehouse that failed leaves: its transaction rolled back, and what a
# collection archived is loaded by the next one.
WAREHOUSE_KEPT = (
    "the warehouse keeps what was committed before it; runs archived but not loaded are "
    "loaded by the next `chipcost collect`"
)
# The file this process opened last: a damage found by a later query names it.
_opened: list[Path] = []


def full_disk(error: BaseException) -> str | None:
    """The disk a write to the warehouse found full, as damaged() says it: 'the disk holding
    PATH (the file system at MOUNT) is full (REASON)', without what to do, for a caller with a
    next step of its own (a replay's: run the same command again); None when `error` (or its
    message, as a Prefect flow's failure carries it) says no such failure."""
    text = str(error)
    if not text.endswith(WAREHOUSE_KEPT):
        return None
    for words in NO_ROOM_WORDS:
        said = f" is full ({words})"
        if (end := text.find(said)) >= 0:
            return text[: end + len(said)]
    return None


def opened(path: Path) -> None:
    """The file connect() opened: damaged_after_open names it."""
    _opened[:] = [path]


def damaged(path: Path | Warehouse | None, error: BaseException) -> WarehouseError | None:
    """A WarehouseError saying what to do, when DuckDB's error says the file is damaged; a
    Warehouse's voice names the option that gave it as the asker did (--db, db=). A write
    that failed for lack of room (which invalidates the database: "database has been
    invalidated") is said as a full disk, not a damage."""
    if not isinstance(error, duckdb.Error):
        return None
    if (full := no_room(error, str(path) if path else None)) is not None:
        return WarehouseError(f"{full}; {WAREHOUSE_KEPT}")
    text = " ".join(str(error).split())
    if path and (other := _other_storage(path, text)) is not None:
        return other
    if not any(sign in text.lower() for sign in DAMAGE_SIGNS):
        return None
    voice = path.voice if isinstance(path, Warehouse) else COMMAND_LINE
    where = f"the warehouse {path}" if path else "the warehouse"
    advice = (
        "restore from backup or rebuild from the archive: "
        f"{rebuilt('<data dir>/archive', 'NEW.duckdb')}, then move it in place "
        '(docs/operations.md, "Re-parsing after a parser fix")'
    )
    if DAMAGE_SIGNS[0] in text.lower():  # perhaps not damaged: perhaps not the warehouse
        return WarehouseError(
            f"cannot open {path} as a DuckDB file ({text[:300]}): check {voice.option('db')} "
            f"(or {DB_ENV}); "
            f"if it is the warehouse, it is damaged: {advice}"
        )
    return WarehouseError(f"{where} is damaged ({text[:300]}): {advice}")


# What DuckDB says of a file written in a storage format it does not read (a newer DuckDB's,
# or one from before 1.0): "Trying to read a database file with version number 999, but we
# can only read versions between 64 and 68. The database file was created with ...".
_STORAGE_VERSION = re.compile(
    r"database file with version number (\d+), but we can only read versions between "
    r"(\d+) and (\d+)"
)
_WRITTEN_BY = re.compile(
    r"created with DuckDB version (v\d+(?:\.\d+)*(?:(?:,| or) v\d+(?:\.\d+)*)*)"
)


def _other_storage(path: Path | Warehouse, text: str) -> WarehouseError | None:
    """The file is DuckDB's, written by a DuckDB whose storage version this chipcost's DuckDB
    cannot read: said so, with the way forward (re-created from its archive, docs/deploy.md),
    not DuckDB's advice to migrate it with another DuckDB."""
    if (found := _STORAGE_VERSION.search(text)) is None:
        return None
    version, low, high = found.groups()
    written = _WRITTEN_BY.search(text)
    by = f", DuckDB {written.group(1)}'s" if written else ""
    file = path.path if isinstance(path, Warehouse) else Path(path)
    return WarehouseError(
        f"the warehouse {path} was written by a DuckDB storage version this chipcost cannot "
        f"read (its storage version {version}{by}; chipcost's DuckDB {duckdb.__version__} "
        f"reads {low} to {high}): re-create it from its archive with "
        f"`{rebuilt(_archive_of(path), shlex.quote(str(file.with_name('NEW.duckdb'))))}` "
        f"(the archive keeps every payload), then move the new file in place of {file}; do not "
        "upgrade DuckDB separately: chipcost pins the DuckDB its lake extensions are built for "
        '(docs/deploy.md, "Why DuckDB 1.5.5 and not 2.0")'
    )


def _archive_of(path: Path | Warehouse) -> str:
    """The archive chipcost keeps for this warehouse, where the warehouse says it:
    CHIPCOST_ARCHIVE, else the archive directory of the data directory a default warehouse
    file lies in; else the data directory's archive, unnamed (--data-dir, or its variable,
    is the command's, not the warehouse's)."""
    try:
        if archive := process_variable(ARCHIVE_ENV):
            return shlex.quote(str(archive))
    except ChipcostError:  # a malformed value: said by the command's settings, not here
        pass
    if isinstance(path, Warehouse) and path.given_by == "":
        return shlex.quote(str(path.path.parent / "archive"))
    return "<data dir>/archive"


def unopenable(warehouse: Warehouse, error: duckdb.Error) -> ChipcostError:
    # A lock held by another process was waited for (and named) by open_waiting.
    return damaged(warehouse, error) or WarehouseError(
        f"cannot open {warehouse.path} as a DuckDB file: {error}"
    )


def damaged_after_open(error: BaseException) -> WarehouseError | None:
    """damaged() for a DuckDB error a query raised after connect(), naming the file opened."""
    return damaged(_opened[0] if _opened else None, error)


def check_parent(path: Path) -> None:
    if not path.parent.exists():
        raise WarehouseError(
            f"cannot create the warehouse {path}: the directory {path.parent} does not exist "
            f"(create it, or fix {COMMAND_LINE.name('db')} / {DB_ENV})"
        )


def check_writable(settings: Settings) -> None:
    """A collection can create or update the warehouse at settings.db_path."""
    if settings.is_lake:
        return
    path = settings.db_path
    if path.is_dir():
        raise a_directory(settings.warehouse)
    if path.parent != settings.data_dir:
        check_parent(path)
    if path.is_file():
        _check_readable(path)


# A DuckDB database file: a checksum, then these four bytes (its header's magic).
_DUCKDB_MAGIC = (8, b"DUCK")
# What a file that is not one most often is, by its first bytes: said instead.
_OTHER_FILES = ((b"SQLite format 3\0", "a SQLite database"), (b"PAR1", "a Parquet file"))


def check_duckdb_file(warehouse: Warehouse) -> None:
    """Refuse a --db file that is not a DuckDB database (a CSV, a Parquet or SQLite file)
    before DuckDB opens it: it would read a SQLite file through an extension it fetches from
    the network, and a writer would leave a lock beside any of them."""
    path = warehouse.path
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return  # a new warehouse, or one the open names the problem of
    at, magic = _DUCKDB_MAGIC
    if not head or head[at : at + len(magic)] == magic:
        return
    kind = next((name for start, name in _OTHER_FILES if head.startswith(start)), "")
    if not kind and path.suffix.lower() in (".duckdb", ".db"):
        return  # a warehouse's name: more likely one damaged, which the open names so
    where = named(warehouse.given_by, path) if warehouse.given_by else f"the warehouse {path}"
    raise WarehouseError(
        f"{where} is {kind or 'not a DuckDB file'}{', not a DuckDB file' if kind else ''}: give "
        "the path of a chipcost warehouse (a .duckdb file `chipcost collect` made), or a new "
        "path to create one"
    )


def a_directory(warehouse: Warehouse) -> WarehouseError:
    """The warehouse's path is a directory: named as the user gave it (--db, which variable,
    or the default in the data directory)."""
    path, given_by = warehouse.path, warehouse.given_by
    if given_by == warehouse.voice.name("db"):
        todo = "give the path of a .duckdb file"
    elif given_by:
        todo = f"set it to the path of a .duckdb file (e.g. {path / DB_FILENAME}), or unset it"
    else:
        todo = f"move it away, or give a .duckdb file with {warehouse.voice.option('db')} or "
        todo += WAREHOUSE_ENV
    where = named(given_by, path) if given_by else f"the warehouse {path}"
    return WarehouseError(f"{where} is a directory: {todo}")


def _check_readable(path: Path) -> None:
    """A damaged file is refused before a collection starts; a busy one is left to the run."""
    try:
        duckdb.connect(str(path), read_only=True).close()
    except duckdb.Error as exc:
        if (damage := damaged(path, exc)) is not None:
            raise damage from exc


@contextmanager
def run_lock(db_path: Path | Warehouse) -> Iterator[None]:
    """Hold <db>.lock for a whole collection, so two collectors never interleave. A lake needs
    none: each load is one DuckLake transaction, and writers commit side by side."""
    if isinstance(db_path, Warehouse):
        if db_path.is_lake:
            yield
            return
        check_duckdb_file(db_path)
        db_path = db_path.path
    lock_path = Path(str(db_path) + ".lock")
    check_parent(lock_path)
    handle = open(lock_path, "a+")  # noqa: SIM115 - held open for the lock's lifetime
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            handle.seek(0)
            detail = f" ({holder})" if (holder := handle.read().strip()) else ""
            raise WarehouseBusy(
                f"the warehouse {db_path} is in use by another run{detail}: wait for it to "
                "finish and try again"
            ) from exc
        handle.truncate(0)  # "a+" writes at the end, wherever the position is
        handle.write(f"process {os.getpid()}, started {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC")
        handle.flush()
        try:
            yield
        finally:  # free again, with no holder named (a run killed outright leaves its line)
            handle.truncate(0)
    finally:
        handle.close()
