"""The lake warehouse: a DuckLake catalog in PostgreSQL, its data as Parquet files anywhere.

DuckDB cannot download extensions here or in locked-down containers: they come as Python
packages (the `lake` extra) and are installed from their files. A reader attaches the lake
read-only and sees the last committed snapshot; writers commit optimistically (DuckLake
retries a commit that does not conflict; a load that does conflict is rerun, see load.py).
"""

from __future__ import annotations

import importlib.util
import os
import re
import time
from pathlib import Path

import duckdb

from chipcost.core.clean import masked
from chipcost.core.commands import INSTALL_LAKE
from chipcost.core.errors import ChipcostError, WarehouseBusy, WarehouseError, WarehouseLost
from chipcost.core.settings import LAKE_DATA_ENV, LAKE_PREFIX, Warehouse, object_store

CATALOG = "lake"
# (Python package, extension name): the packages ship the extension built for this DuckDB.
EXTENSIONS = (
    ("duckdb_extension_ducklake", "ducklake"),
    ("duckdb_extension_postgres_scanner", "postgres_scanner"),
)
HTTPFS = ("duckdb_extension_httpfs", "httpfs")
# A commit that loses a race to another writer is retried this many times by DuckLake itself
# (when the two touched different things) before the load is rerun (conflicts).
COMMIT_RETRIES = 20
# DuckLake tables take no PRIMARY KEY or UNIQUE constraint; the loader keeps keys unique.
_TABLE_KEY = re.compile(r",\s*PRIMARY KEY\s*\([^)]*\)", re.IGNORECASE)
_COLUMN_KEY = re.compile(r"\s+PRIMARY KEY\b", re.IGNORECASE)
_RACE = re.compile(r"already exists|duplicate key", re.IGNORECASE)
ATTACH_ATTEMPTS = 4
_CONFLICT = re.compile(r"conflict|concurrent", re.IGNORECASE)
# What the postgres extension says when the catalog database goes away mid-write: stopped,
# restarted, its connection cut. The last is all a failed COMMIT may leave to read.
_LOST = re.compile(
    r"Unable to connect to Postgres|server closed the connection|terminating connection|"
    r"no connection to the server|could not receive data from server|SSL SYSCALL|"
    r'Failed to execute query "ROLLBACK"|connection to server at .* failed',
    re.IGNORECASE,
)


def is_lake(con: duckdb.DuckDBPyConnection) -> bool:
    """True when this connection's default catalog is the lake."""
    rows = con.execute(
        "SELECT type FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    return bool(rows) and rows[0][0] == "ducklake"


def adapt(sql: str) -> str:
    """A migration written for a DuckDB file, as the lake takes it (no key constraints)."""
    return _COLUMN_KEY.sub("", _TABLE_KEY.sub("", sql))


def is_conflict(error: Exception) -> bool:
    """A commit refused because another writer committed first: worth running again."""
    return isinstance(error, duckdb.TransactionException) or bool(_CONFLICT.search(str(error)))


def is_race(error: Exception) -> bool:
    """Another process created the same thing first (two migrations at once)."""
    return is_conflict(error) or bool(_RACE.search(str(error)))


def connect_lake(
    warehouse: Warehouse, *, read_only: bool = False, options: dict[str, object] | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the lake attached (read-only for readers) as the default;
    `options`, DuckDB's settings of the connection (its threads)."""
    data = warehouse.lake_data
    # A reader needs no data path: the catalog keeps the one its writers gave (a lake on
    # object storage still needs the store's settings, read with CHIPCOST_LAKE_DATA).
    if not data and not read_only:
        raise WarehouseError(
            f"warehouse {warehouse} needs {LAKE_DATA_ENV} to write: set it to the directory "
            "or s3://bucket/prefix where the lake keeps its Parquet files (reading commands "
            "need it only for a lake on object storage)"
        )
    local = not read_only and not data.startswith("s3://")
    if local:
        _check_data_dir(Path(data))
    for attempt in range(1, ATTACH_ATTEMPTS + 1):
        try:
            con = _attach(warehouse, read_only=read_only, options=options or {})
        except duckdb.Error as exc:
            # Two first connections both create the catalog tables: the loser retries and
            # finds them made.
            if attempt < ATTACH_ATTEMPTS and _RACE.search(str(exc)):
                time.sleep(0.3 * attempt)
                continue
            raise WarehouseError(_attach_message(warehouse, exc)) from exc
        # Made only once the catalog took this data path: a wrong one is refused and left
        # uncreated.
        if local:
            _make_data_dir(Path(data), con)
        return con
    raise AssertionError("unreachable")


def _attach(
    warehouse: Warehouse, *, read_only: bool, options: dict[str, object]
) -> duckdb.DuckDBPyConnection:
    data = warehouse.lake_data
    files = _extension_files(data)
    checked = [_identity(path) for path in files]
    # DuckDB checks an extension's signature on every LOAD, hashing the whole file: a third
    # of a CPU-second per open. Once it has passed here, the same unchanged file is loaded
    # without that check for the rest of the process (a collection opens the lake several
    # times). The sandbox of `chipcost sql` turns off loading altogether.
    again = all(identity in _checked for identity in checked)
    con = duckdb.connect(config={**options, "allow_unsigned_extensions": again})
    try:
        for path in files:
            con.execute(f"LOAD {_quote(str(path))}").fetchall()
        _checked.update(checked)
        if data.startswith("s3://"):
            _s3_secret(con, data)
        attach = [f"DATA_PATH {_quote(data.rstrip('/') + '/')}"] if data else []
        if read_only:
            attach.append("READ_ONLY")
        con.execute(f"ATTACH {_quote(warehouse.url)} AS {CATALOG} ({', '.join(attach)})")
        con.execute(f"USE {CATALOG}").fetchall()
        if not read_only:
            con.execute(f"SET ducklake_max_retry_count = {COMMIT_RETRIES}").fetchall()
    except BaseException:
        con.close()
        raise
    return con


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def extension_file(package: str, name: str) -> Path:
    """The extension file a package ships for the DuckDB installed here."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise WarehouseError(
            f"the DuckDB extension {name} is not installed: install chipcost's `lake` extra, "
            f"which brings {package.replace('_', '-')}: {INSTALL_LAKE}"
        )
    base = Path(next(iter(spec.submodule_search_locations)))
    path = base / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise WarehouseError(
            f"{package.replace('_', '-')} has no {name} extension for DuckDB "
            f"{duckdb.__version__}: install the release matching duckdb=={duckdb.__version__}"
        )
    return path


def _extension_files(data: str) -> list[Path]:
    """The files of the lake's extensions, and of httpfs for data on s3://."""
    wanted = EXTENSIONS + ((HTTPFS,) if data.startswith("s3://") else ())
    return [extension_file(package, name) for package, name in wanted]


# The extension files whose signature DuckDB has checked in this process, as _identity gives.
_checked: set[tuple[str, int, int, int, int]] = set()


def _identity(path: Path) -> tuple[str, int, int, int, int]:
    """A file as it is now: a file replaced or rewritten since has another identity."""
    stat = path.stat()
    return str(path), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


def _s3_secret(con: duckdb.DuckDBPyConnection, data: str) -> None:
    """The store of CHIPCOST_S3_* (the archive's too); without its keys, AWS's from the
    environment. Nothing is stored; AWS_ENDPOINT_URL is AWS's, never the store's."""
    try:
        store = object_store(os.environ, f"the lake's data {data}")
    except ChipcostError as exc:
        raise WarehouseError(str(exc)) from exc
    env = os.environ
    fields = {
        "KEY_ID": store.key_id or env.get("AWS_ACCESS_KEY_ID", ""),
        "SECRET": store.secret or env.get("AWS_SECRET_ACCESS_KEY", ""),
        "SESSION_TOKEN": store.session_token if store.key_id else env.get("AWS_SESSION_TOKEN", ""),
        "REGION": store.region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION", ""),
    }
    endpoint = store.endpoint_url
    if endpoint:
        fields["ENDPOINT"] = re.sub(r"^https?://", "", endpoint).rstrip("/")
        fields["URL_STYLE"] = "path"
        fields["USE_SSL"] = "true" if endpoint.startswith("https://") else "false"
    listed = ", ".join(f"{k} {v if k == 'USE_SSL' else _quote(v)}" for k, v in fields.items() if v)
    con.execute(f"CREATE OR REPLACE SECRET chipcost_s3 (TYPE s3{', ' if listed else ''}{listed})")


def _check_data_dir(path: Path) -> None:
    """Refuse a data directory that cannot be made or written, creating nothing."""
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise WarehouseError(
            f"cannot create the lake data directory {path} ({existing} is not a directory): "
            f"fix {LAKE_DATA_ENV} or the directory's permissions"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise WarehouseError(
            f"the lake data directory {path} is not writable ({existing}): fix its "
            f"permissions or point {LAKE_DATA_ENV} elsewhere"
        )


def _make_data_dir(path: Path, con: duckdb.DuckDBPyConnection) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        con.close()
        raise WarehouseError(
            f"cannot create the lake data directory {path} ({exc.strerror}): fix "
            f"{LAKE_DATA_ENV} or the directory's permissions"
        ) from exc


def _attach_message(warehouse: Warehouse, error: Exception) -> str:
    text = _scrub(str(error), warehouse)
    where = f"the lake catalog {warehouse}"
    if "password authentication failed" in text or "no password supplied" in text:
        return f"{where}: PostgreSQL refused the user or password: fix the conninfo's user/password"
    # A server that trusts the host (no password asked) says the role is unknown.
    role = re.search(r'role "([^"]*)" does not exist', text)
    if role:
        return (
            f"{where}: PostgreSQL has no role {role.group(1)}: fix the conninfo's user (or "
            f"create the role: createuser {role.group(1)})"
        )
    # "no pg_hba.conf entry for host ..." or "pg_hba.conf rejects connection for host ...".
    if "pg_hba.conf" in text:
        return (
            f"{where}: PostgreSQL's pg_hba.conf does not admit this host, user and database: "
            "fix the conninfo's host, user or dbname, or admit them in the server's pg_hba.conf "
            "and reload it"
        )
    denied = re.search(r"permission denied for (?:table|schema|relation) (\S+)", text)
    if denied:
        return (
            f"{where}: its PostgreSQL role may not use the lake's catalog (permission denied "
            f"for {denied.group(1)}): connect as the role that created the lake, or grant this "
            "one access to the catalog's tables (readers: GRANT SELECT ON ALL TABLES IN SCHEMA "
            "public TO <role>; collectors need INSERT, UPDATE and DELETE too)"
        )
    if "does not exist" in text and "database" in text:
        return f"{where}: that PostgreSQL database does not exist: create it (createdb) first"
    if "could not translate host name" in text:
        return (
            f"{where}: PostgreSQL is not reachable (the host name is not known here); fix the "
            "conninfo's host"
        )
    if "Connection refused" in text or "could not connect" in text or "timeout" in text.lower():
        return (
            f"{where}: PostgreSQL is not reachable (is the server running, are host and port "
            "right?); start it or fix the conninfo"
        )
    if "creating a new DuckLake is explicitly disabled" in text:
        return (
            f"no chipcost lake in {where} yet: run `chipcost migrate` (or `chipcost collect`) "
            "with this warehouse first"
        )
    mismatch = re.search(r'does not match existing data path (?:in the catalog )?"([^"]*)"', text)
    if mismatch:
        return (
            f"{where} keeps its data at {mismatch.group(1)}, not at {warehouse.lake_data}: set "
            f"{LAKE_DATA_ENV} to {mismatch.group(1)} (the same on every machine and worker "
            "that opens this lake)"
        )
    if "lock" in text.lower():
        return f"{where} is busy: {text}; try again"
    first = text.strip().splitlines()[0] if text.strip() else type(error).__name__
    return f"cannot open {where}: {first}"


def _scrub(text: str, warehouse: Warehouse) -> str:
    conninfo = warehouse.url[len(LAKE_PREFIX) :]
    for secret in (conninfo, conninfo.removeprefix("postgres:")):
        text = text.replace(secret, str(Warehouse(secret)))
    return " ".join(masked(text).split())


def lost(warehouse: Warehouse, error: Exception) -> WarehouseLost | None:
    """The error as WarehouseLost when it says the catalog database went away mid-write;
    None for any other error."""
    text = _scrub(str(error), warehouse)
    found = _LOST.search(text)
    if found is None:
        return None
    # What the extension said, without the conninfo it repeats: the phrase that told.
    said = "Connection refused" if "Connection refused" in text else found.group(0)
    return WarehouseLost(
        f"the lake {warehouse} stopped answering during the load: its PostgreSQL catalog was "
        f"stopped, restarted or cut off ({said}). Nothing of the run was committed; check "
        "that PostgreSQL is running and reachable, then run the same command again"
    )


def maintenance_failed(error: Exception) -> str:
    """What a failed DuckLake CHECKPOINT after a collection means, password masked."""
    text = " ".join(masked(str(error)).split())
    said = text if len(text) <= 200 else text[:197] + "..."
    return (
        f"lake maintenance after the collection (DuckLake's CHECKPOINT: merging small files, "
        f"removing the ones no snapshot needs) failed: {said}. The loads stand and nothing is "
        "lost; the next collection tries again. If it fails every time, report it with this "
        "message"
    )


def busy(warehouse: Warehouse, error: Exception) -> WarehouseBusy:
    """A write that kept losing to other writers: nothing was committed."""
    return WarehouseBusy(
        f"the lake {warehouse} kept changing under this write ({_scrub(str(error), warehouse)}); "
        "nothing was committed: run it again"
    )
