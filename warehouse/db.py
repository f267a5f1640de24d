"""Opening the warehouse: paths checked, schema migrated, lock conflicts turned into plain words."""

from __future__ import annotations

import functools
import logging
import time
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import duckdb

from chipcost.core.commands import NEW_WAREHOUSE
from chipcost.core.errors import WarehouseError
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.settings import (
    DB_ENV,
    THREADS_ENV,
    Warehouse,
    named,
    process_variable,
)
from chipcost.warehouse import bound, lake
from chipcost.warehouse.db_file import (
    a_directory,
    check_duckdb_file,
    check_parent,
    damaged,
    opened,
    unopenable,
)
from chipcost.warehouse.lock_wait import open_waiting

log = logging.getLogger("chipcost.warehouse")


def _sql_files(folder: str) -> list[tuple[str, str]]:
    directory = resources.files("chipcost.warehouse").joinpath(*folder.split("/"))
    files = sorted(p for p in directory.iterdir() if p.name.endswith(".sql"))
    return [(p.name, p.read_text(encoding="utf-8")) for p in files]


def _lists(history: str = "price_history") -> dict[str, str]:
    """What a view's SQL names, by its marker: the lists declared elsewhere (`{{figure_kinds}}`,
    `{{same_offer_p_n}}`: rows p and n of one offer, `{{max_rate_age_days}}`,
    `{{usd_per_eur}}`, `{{rated_on_its_day}}`, `{{default_speed}}`, `{{restricted_pattern}}`),
    and the rows of the history a part reads (`{{history}}`: the table or CTE named
    `history`, price_history itself in a view)."""
    from chipcost.core.figures import DEFAULT_SPEED, KIND_CLASSES, KINDS
    from chipcost.core.vocabulary import HISTORY_KEY, RESTRICTED_REGION_PATTERN
    from chipcost.warehouse.fx import MAX_RATE_AGE_DAYS, RATED_ON_ITS_DAY, USD_PER_EUR

    return {
        "{{figure_kinds}}": "[" + ", ".join(f"'{kind}'" for kind in KINDS) + "]",
        "{{figure_classes}}": "[" + ", ".join(str(KIND_CLASSES[kind]) for kind in KINDS) + "]",
        "{{same_offer_p_n}}": " AND ".join(f"p.{c} = n.{c}" for c in HISTORY_KEY),
        "{{max_rate_age_days}}": str(MAX_RATE_AGE_DAYS),
        "{{usd_per_eur}}": USD_PER_EUR.strip(),
        "{{rated_on_its_day}}": RATED_ON_ITS_DAY,
        "{{default_speed}}": bound.literal(DEFAULT_SPEED),
        "{{restricted_pattern}}": bound.literal(RESTRICTED_REGION_PATTERN),
        "{{history}}": history,
    }


def _written(sql: str, lists: dict[str, str]) -> str:
    for marker, values in lists.items():
        sql = sql.replace(marker, values)
    return sql


@functools.cache
def views() -> list[tuple[str, str]]:
    """(file name, SQL) for every file in warehouse/views, in order, with the lists a view
    names written in from where they are declared (_lists), and the parts two views share
    (each file of warehouse/views/parts as `{{its name}}`). Read from the files once."""
    lists = _lists()
    # the parts first, so that the lists they name are written in with the views'
    parts = {
        "{{" + name.removesuffix(".sql") + "}}": sql for name, sql in _sql_files("views/parts")
    }
    lists = parts | lists
    return [(name, _written(sql, lists)) for name, sql in _sql_files("views")]


@functools.cache
def view_part(name: str, history: str = "price_history") -> str:
    """The part of warehouse/views/parts named `name` (its file's name without .sql), with the
    lists it names written in, as a read that runs it beside the views writes it in; on the
    rows `history` (a CTE of the read's: the rows of price_history it has chosen) where the
    part reads the history. Read from its file once, when first asked."""
    return _written(dict(_sql_files("views/parts"))[f"{name}.sql"], _lists(history))


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) for every file in warehouse/migrations, in order."""
    found = []
    for name, sql in _sql_files("migrations"):
        found.append((int(name.split("_", 1)[0]), name, sql))
    return found


SCHEMA_VERSION = max(version for version, _, _ in migrations())

# current_prices' rows (warehouse/views/10_current_prices.sql) without the host specs that
# view fills in: for a read that asks only which chips or sources have a current price, a
# tenth of the view's time.
OPEN_PRICE_ROWS = "SELECT * FROM price_history_usd WHERE valid_to IS NULL"


def dict_rows(
    con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, object] | None = None
) -> list[dict[str, object]]:
    """A query's rows as column -> value: what the terminal tables read, without polars."""
    cursor = bound.execute(con, sql, params)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def connect(
    path: Path | Warehouse, *, read_only: bool = False, wait: float = 0.0
) -> duckdb.DuckDBPyConnection:
    """Open the warehouse; a writer creates and migrates it, a reader needs it to exist.

    A file warehouse held by another process is retried for up to `wait` seconds
    (warehouse/lock_wait.py) before the open fails naming the holder; a lake has no such
    lock (readers see the last committed snapshot).
    """
    options = config()
    if isinstance(path, Warehouse) and path.is_lake:
        return _connect_lake(path, read_only=read_only, options=options)
    warehouse = path if isinstance(path, Warehouse) else Warehouse(str(path))
    path = warehouse.path
    if path.exists() and path.is_dir():
        raise a_directory(warehouse)
    check_duckdb_file(warehouse)
    if read_only and not path.exists():
        raise WarehouseError(
            f"no warehouse at {path}: run `chipcost collect` first (`chipcost demo` loads "
            f"the bundled sample, with no network), or pass {warehouse.voice.option('db')} (or "
            f"set {DB_ENV}) to an existing chipcost DuckDB file"
        )
    if not read_only:
        check_parent(path)
    try:
        con = open_waiting(
            lambda: duckdb.connect(str(path), read_only=read_only, config=options),
            path,
            wait=wait,
            writing=not read_only,
        )
    except duckdb.Error as exc:
        raise unopenable(warehouse, exc) from exc
    opened(path)
    try:
        con.execute("SET TimeZone = 'UTC'").fetchall()
        if read_only:
            _check_version(con, warehouse)
            _read_with_these_views(con)
        else:
            migrate(con, path)
    except duckdb.Error as exc:
        con.close()
        if (damage := damaged(warehouse, exc)) is None:
            raise
        raise damage from exc
    return con


def config() -> dict[str, object]:
    """DuckDB's settings for a warehouse connection: its threads, when CHIPCOST_THREADS says.
    A query never reads a Python variable of the caller for a table it lacks (DuckDB's
    replacement scans: a file without schema_version read the function of that name), and
    never fetches an extension from the network (a lake loads its own files)."""
    threads = process_variable(THREADS_ENV)
    fixed: dict[str, object] = {
        "python_enable_replacements": False,
        "autoinstall_known_extensions": False,
    }
    return fixed if threads is None else {**fixed, "threads": threads}


def checkpoint(con: duckdb.DuckDBPyConnection) -> None:
    """Write committed work into the database file, so that it does not live only in the WAL.

    A WAL torn by a crash or a full disk is replayed up to the tear and the rest dropped
    without a word; after a checkpoint the WAL is empty. A failed checkpoint loses nothing
    (the commit stands in the WAL, as before), so it is logged, not raised.

    A lake has no WAL (a commit is durable in its catalog): there CHECKPOINT is DuckLake's
    maintenance, which `maintain` runs once a collection, not after every load.
    """
    if not lake.is_lake(con):
        _checkpoint(con, "checkpoint after the load failed (the load is committed)")


def maintain(con: duckdb.DuckDBPyConnection) -> None:
    """A lake's maintenance after a collection loaded into it: DuckLake's CHECKPOINT (small
    Parquet files merged, inlined rows flushed, files no snapshot needs removed; half a
    second and more, so once a collection, not per load). Nothing for a file warehouse,
    which is checkpointed after each live load and at the end of a replay. A failure is
    logged: the loads stand, and the next collection tries again."""
    if lake.is_lake(con):
        try:
            con.execute("CHECKPOINT").fetchall()
        except duckdb.Error as exc:
            log.warning("%s", lake.maintenance_failed(exc))


def _checkpoint(con: duckdb.DuckDBPyConnection, failure: str) -> None:
    """CHECKPOINT; a failure is logged as `failure`, not raised: what was committed stands."""
    try:
        con.execute("CHECKPOINT").fetchall()
    except duckdb.Error as exc:
        from chipcost.core.disk import no_room

        full = no_room(exc)
        if full is not None:  # the log holds it: written into the file once there is room
            full = full.replace("nothing of the write was kept", "the log (.wal) keeps it")
        log.warning("%s: %s", failure, full or exc)


def _connect_lake(
    warehouse: Warehouse, *, read_only: bool, options: dict[str, object]
) -> duckdb.DuckDBPyConnection:
    con = lake.connect_lake(warehouse, read_only=read_only, options=options)
    try:
        con.execute("SET TimeZone = 'UTC'").fetchall()
        if read_only:
            _check_version(con, warehouse)
            _read_with_these_views(con)
        else:
            migrate(con, Path(str(warehouse)))
    except BaseException:
        con.close()
        raise
    return con


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> object:
    """The first value of a query's result, read to the end.

    DuckDB 2.0 refuses new work on a connection whose last result was not read fully,
    so never leave a fetchone() behind.
    """
    rows = bound.execute(con, sql, params or []).fetchall()
    return rows[0][0] if rows else None


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    exists = scalar(
        con,
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version' "
        "AND table_catalog = current_database()",
    )
    if not exists:
        return 0
    return int(scalar(con, "SELECT max(version) FROM schema_version") or 0)


def _check_version(con: duckdb.DuckDBPyConnection, where: Warehouse) -> None:
    # A reader asks the table itself (one statement, outside any transaction) rather than the
    # information schema first: 4-5 ms of every read's start.
    try:
        version = int(scalar(con, "SELECT max(version) FROM schema_version") or 0)
    except duckdb.CatalogException:
        version = 0
    if version == 0:
        raise _not_a_warehouse(where)
    if version > SCHEMA_VERSION:
        raise WarehouseError(
            f"{where} has schema version {version}, newer than this chipcost knows "
            f"({SCHEMA_VERSION}): upgrade chipcost"
        )
    if version < SCHEMA_VERSION:
        # A lake's writers migrate it a version per transaction while readers look on.
        meanwhile = (
            "; a collect or migrate may be upgrading it right now: if one is running, try "
            "again once it is done"
            if lake.is_lake(con)
            else ""
        )
        raise WarehouseError(
            f"{where} has schema version {version}; this chipcost needs {SCHEMA_VERSION}: "
            f"run `chipcost migrate` (or any `chipcost collect`) to upgrade it{meanwhile}"
        )


# Two processes migrating one lake at once: the loser's commit conflicts; it waits and
# starts over from the version the winner left. Bounded in time, not in count: on a loaded
# machine the winner's hundred commits can beat the loser five times running.
MIGRATE_RACE_SECONDS = 60.0


def migrate(con: duckdb.DuckDBPyConnection, path: Path | None = None) -> int:
    """Apply pending migrations, each in its own transaction, then the views if they changed."""
    if not lake.is_lake(con):
        return _migrate(con, path, adapt=lambda sql: sql, claim=False)
    give_up, attempt = time.monotonic() + MIGRATE_RACE_SECONDS, 0
    while True:
        attempt += 1
        try:
            return _migrate(con, path, adapt=lake.adapt, claim=True)
        except duckdb.Error as exc:
            if time.monotonic() > give_up or not lake.is_race(exc):
                raise WarehouseError(
                    f"migrating the lake {path} failed ({' '.join(str(exc).split())}); "
                    "nothing half-applied is kept: run `chipcost migrate` again"
                ) from exc
            time.sleep(min(0.2 * attempt, 2.0))


def _not_a_warehouse(warehouse: Warehouse) -> WarehouseError:
    """A DuckDB file (or lake) without chipcost's tables, named as the user gave it, and the
    two ways on: the warehouse collect made, or a new one collect makes."""
    said = named(warehouse.given_by, warehouse) if warehouse.given_by else str(warehouse)
    return WarehouseError(
        f"{said} is not a chipcost warehouse (no schema_version table): point "
        f"{warehouse.voice.option('db')} at the warehouse `chipcost collect` made, or make one "
        f"with `{NEW_WAREHOUSE}` (`chipcost demo` loads the bundled sample)"
    )


def _first_look(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """The schema version, and when it is 0 how many other tables there are, read from one
    snapshot: on a lake another process's first migration can commit between two statements,
    and its tables without its version would look like someone else's database."""
    con.execute("BEGIN TRANSACTION")
    try:
        current = schema_version(con)
        others = 0
        if current == 0:
            sql = (
                "SELECT count(*) FROM information_schema.tables WHERE table_catalog = "
                "current_database() AND table_name <> 'schema_version'"
            )
            others = int(scalar(con, sql))
    except duckdb.Error:
        rollback(con)
        raise
    con.execute("COMMIT")  # read only: nothing to keep
    return current, others


def _migrate(con: duckdb.DuckDBPyConnection, path: Path | None, adapt, claim: bool) -> int:
    """The migrations after the current version, each in a transaction. With `claim` (a lake,
    where another process may be migrating too), each transaction first looks whether the
    version is applied in its own snapshot (another process committed it since the first
    look) and, if not, rewrites the newest schema_version row: two processes applying the
    same migration at once then always conflict, and the later one retries and finds it
    applied. Without both, a migration that changes no table (a version bump) only appends
    its row, which DuckLake commits beside the other's: the version applied twice."""
    current, others = _first_look(con)
    if current == 0:
        # An empty schema_version is ours: created by a migration that has not committed its
        # first step yet (another process's on a lake, or one that died in between).
        if others:
            raise WarehouseError(
                f"{path or 'the file'} is a DuckDB file but not a chipcost warehouse: "
                f"pass {COMMAND_LINE.name('db')} a new path or an existing chipcost warehouse"
            )
        con.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER, file VARCHAR, applied_at TIMESTAMPTZ)"
        )
    if current > SCHEMA_VERSION:
        _check_version(con, Warehouse(str(path or "?")))
    for version, name, sql in migrations():
        if version <= current:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            if claim:
                if scalar(con, "SELECT count(*) FROM schema_version WHERE version = ?", [version]):
                    con.execute("ROLLBACK")
                    continue
                con.execute(
                    "UPDATE schema_version SET applied_at = applied_at "
                    "WHERE version = (SELECT max(version) FROM schema_version)"
                )
            con.execute(adapt(sql))
            bound.execute(
                con,
                "INSERT INTO schema_version VALUES (?, ?, ?)",
                [version, name, datetime.now(UTC)],
            )
            con.execute("COMMIT")
        except duckdb.Error:
            rollback(con)
            raise
    if current < SCHEMA_VERSION or _views_changed(con):
        con.execute("BEGIN TRANSACTION")
        try:
            for _, sql in views():
                con.execute(sql)
            set_state(con, "views", _views_digest())
            con.execute("COMMIT")
        except duckdb.Error:
            rollback(con)
            raise
    return SCHEMA_VERSION


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back if a transaction is still open (a failed COMMIT has already ended it)."""
    try:
        con.execute("ROLLBACK")
    except duckdb.TransactionException:
        pass


def _read_with_these_views(con: duckdb.DuckDBPyConnection) -> None:
    """A reader of a warehouse whose views another chipcost wrote (upgraded since the last
    write open, which rewrites them) reads with this chipcost's: each made a temporary view or
    macro of the connection, which the file's (or lake's) own of that name is then hidden
    behind. The reads' queries name the views' columns as this code writes them; the old
    views failed a read naming a column they lack until the next collect. One statement when
    the views are this chipcost's (the digest compared in DuckDB: no hashlib for a read)."""
    text = bound.literal("".join(sql for _, sql in views()))
    stale = scalar(
        con,
        f"SELECT coalesce(max(digest), '') <> sha256({text}) FROM reference_state "
        "WHERE name = 'views'",
    )
    if stale:
        for _, sql in views():
            con.execute(
                sql.replace("CREATE OR REPLACE VIEW ", "CREATE OR REPLACE TEMP VIEW ").replace(
                    "CREATE OR REPLACE MACRO ", "CREATE OR REPLACE TEMP MACRO "
                )
            )


def _views_digest() -> str:
    import hashlib  # writers only: a read command does not load OpenSSL for it (4 ms)

    return hashlib.sha256("".join(sql for _, sql in views()).encode()).hexdigest()


def _views_changed(con: duckdb.DuckDBPyConnection) -> bool:
    return state(con, "views") != _views_digest()


def state(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    """The digest last stored under `name` in reference_state (None if never)."""
    return scalar(con, "SELECT digest FROM reference_state WHERE name = ?", [name])


def set_state(con: duckdb.DuckDBPyConnection, name: str, digest: str) -> None:
    # Delete then insert rather than INSERT OR REPLACE: a lake table has no primary key.
    bound.execute(con, "DELETE FROM reference_state WHERE name = ?", [name])
    bound.execute(
        con, "INSERT INTO reference_state VALUES (?, ?, ?)", [name, digest, datetime.now(UTC)]
    )
