"""Ad hoc SQL against the warehouse, refused unless it only reads. A query refused, not
parsed, or naming what the warehouse does not have is a UsageError (the asker's to fix)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import duckdb

from chipcost.core.durations import iso_duration
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.settings import Warehouse
from chipcost.core.sql_limits import ROWS_ENV, SqlLimits, check_read_time
from chipcost.warehouse.bound import execute
from chipcost.warehouse.db_file import damaged
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.reader import limit_hit, open_reader

if TYPE_CHECKING:  # `chipcost sql` reads rows without loading polars
    import polars as pl

# DuckDB's errors of the query itself (a table or column it does not have, a type or value it
# cannot take), the asker's to fix: a usage error, as a statement refused or not parsed. The
# others (a lock, a file, an internal error) are chipcost's failures.
QUERY_ERRORS = (duckdb.ProgrammingError, duckdb.DataError, duckdb.NotImplementedException)
# Statement types that only read. Everything else (INSERT, ATTACH, COPY, INSTALL, SET, ...)
# is refused even though the connection is read-only: ATTACH and COPY ... TO could still
# write other files.
READ_STATEMENTS = {"SELECT", "EXPLAIN"}
# EXPLAIN ANALYZE runs the statement it explains: that one must be a read too.
_EXPLAIN = re.compile(r"^\s*explain\s+(analy[sz]e\s+)?", re.IGNORECASE)
# A second line of defence behind the statement check: no file, other database or extension
# can be reached from the session, and no setting can be changed back.
SANDBOX = ("SET enable_external_access = false", "SET lock_configuration = true")


def _sandbox(db_path: Path | Warehouse, con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """SANDBOX; a lake's queries still read its own Parquet files, and only those: where its
    catalog keeps them when no data path is given (a reader needs none)."""
    if not (isinstance(db_path, Warehouse) and db_path.is_lake):
        return SANDBOX
    data = db_path.lake_data or _catalog_data_path(con)
    if not data:
        return SANDBOX
    data = (data.rstrip("/") + "/").replace("'", "''")
    return (f"SET allowed_directories = ['{data}']", *SANDBOX)


def _catalog_data_path(con: duckdb.DuckDBPyConnection) -> str | None:
    found = con.execute(
        "SELECT value FROM __ducklake_metadata_lake.ducklake_metadata "
        "WHERE key = 'data_path' AND scope IS NULL"
    ).fetchall()
    return found[0][0] if found else None


def _statement(kind: str) -> str:
    """'an INSERT', 'a COPY': DuckDB files INSTALL under LOAD, so both are named."""
    kind = "INSTALL or LOAD" if kind == "LOAD" else kind
    return f"{'an' if kind[:1] in 'AEIOU' else 'a'} {kind}"


def _refuse(kind: str) -> UsageError:
    return UsageError(
        f"`chipcost sql` only reads: {_statement(kind)} statement is refused. Open the file "
        "with the "
        "duckdb CLI or Python if you really mean to change it (stop scheduled runs first)"
    )


# Functions that reach past the warehouse though the session is sandboxed: a lake's catalog
# is an attached PostgreSQL database (postgres_query runs any SQL there), `query` runs SQL
# given as text (beyond the checks here), and the secrets hold storage credentials.
# The catalog functions that show how databases are attached (a lake's conninfo, with its
# password) or the settings (allowed paths) are refused too: information_schema and
# duckdb_tables() describe the warehouse without them. No view reads a session variable
# (the point cost asks is throughput_at's and cost_per_token_at's arguments), so getvariable
# would read only what something else set in the session: refused too.
_OUT_OF_REACH = {
    "query",
    "query_table",
    "duckdb_secrets",
    "which_secret",
    "duckdb_databases",
    "pragma_database_list",
    "duckdb_settings",
    "getvariable",
}
# current_setting() of a named setting is a read; of the paths the session may reach (where
# a lake's conninfo shows), or of a name computed in the query, it is refused.
_PATH_SETTINGS = {"allowed_paths", "allowed_directories"}
_OUT_OF_REACH_PREFIX = "postgres_"
# The lake's catalog database, attached under this prefix: its tables are not the warehouse.
_CATALOG_PREFIX = "__ducklake_metadata"


def _reached(tree: object) -> Iterator[str]:
    """Each function and catalog-qualified table the serialized query names."""
    if isinstance(tree, dict):
        if isinstance(tree.get("function_name"), str):
            yield tree["function_name"].lower()
            if tree["function_name"].lower() == "current_setting":
                yield from _setting_reached(tree.get("children") or [])
        if tree.get("type") == "BASE_TABLE":
            # A table function may be named as a table (`FROM pragma_database_list`).
            yield str(tree.get("table_name", "")).lower()
            for part in ("catalog_name", "schema_name"):
                if str(tree.get(part, "")).lower().startswith(_CATALOG_PREFIX):
                    yield str(tree[part])
        for value in tree.values():
            yield from _reached(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from _reached(value)


def _setting_reached(arguments: list) -> Iterator[str]:
    """'current_setting(allowed_paths)' when current_setting reads a path setting or a name
    that is no plain constant; nothing for current_setting('TimeZone')."""
    first = arguments[0] if arguments else {}
    value = first.get("value", {}) if first.get("type") == "VALUE_CONSTANT" else {}
    name = str(value.get("value", "")).lower() if isinstance(value, dict) else ""
    if not name or name in _PATH_SETTINGS:
        yield f"current_setting({name or 'a computed name'})"


def _out_of_reach(name: str) -> bool:
    name = name.lower()
    return (
        name in _OUT_OF_REACH
        or name.startswith("current_setting(")
        or name.startswith(_OUT_OF_REACH_PREFIX)
        or name.startswith(_CATALOG_PREFIX)
    )


def _parser() -> duckdb.DuckDBPyConnection:
    """An empty database to read a query with, as sandboxed as the one that runs it: DuckDB
    expands some statements as it parses them (IMPORT DATABASE reads the folder's schema.sql,
    a PRAGMA of an extension's installs it), and a refused query reaches nothing."""
    return duckdb.connect(
        config={
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
        }
    )


def _check_reach(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse a query naming what reaches past the warehouse (see _OUT_OF_REACH); `con` is
    the _parser() that read it."""
    import json

    serialized = execute(con, "SELECT json_serialize_sql(?::VARCHAR)", [query])
    tree = json.loads(serialized.fetchone()[0])
    if tree.get("error"):  # a statement the serializer does not take: judged by its words
        names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", query)
        if names[:1] and names[0].lower() == "pragma" and len(names) > 1:
            names.append(f"pragma_{names[1]}")  # PRAGMA database_list: its table function
    else:
        names = list(_reached(tree))
    refused = sorted({n for n in names if _out_of_reach(n)})
    if refused:
        raise UsageError(
            f"`chipcost sql` reads only the warehouse: {', '.join(refused)} reaches past it "
            "(the lake's catalog database, other databases, SQL given as text, stored "
            "secrets). Use psql or the duckdb CLI for those"
        )


def _check_reads_only(query: str) -> None:
    """Refuse anything but one SELECT (or an EXPLAIN of one), with a message saying why."""
    with _parser() as con:
        try:
            statements = con.extract_statements(query)
        except duckdb.Error as exc:
            raise UsageError(f"cannot parse the query: {exc}") from exc
        if len(statements) != 1:
            raise UsageError(f"give exactly one SQL statement (got {len(statements)})")
        kind = statements[0].type.name
        if kind == "CALL" and re.match(r"\s*(force\s+)?checkpoint\b", query, re.IGNORECASE):
            kind = "CHECKPOINT"  # DuckDB parses it as a call of its checkpoint function
        if kind not in READ_STATEMENTS:
            raise _refuse(kind)
        if kind == "EXPLAIN":
            explained = _EXPLAIN.sub("", query, count=1)
            try:
                inner = con.extract_statements(explained)
            except duckdb.Error as exc:
                raise UsageError(f"cannot parse the explained query: {exc}") from exc
            if len(inner) != 1 or inner[0].type.name != "SELECT":
                raise _refuse(
                    f"EXPLAIN of {_statement(inner[0].type.name) if inner else 'nothing'}"
                )
            query = explained
        _check_reach(con, query)


def run_readonly(
    db_path: Path | Warehouse, query: str, *, wait: float = 0.0, limits: SqlLimits | None = None
) -> pl.DataFrame:
    """The query's result as a polars frame (for types polars holds; read_rows takes any),
    within `limits` (the read's time, memory and spill; default SqlLimits())."""
    with _sandboxed(db_path, query, wait=wait, limits=limits) as con:
        relation = con.sql(query)
        # polars has no type for an INTERVAL's months and days: every INTERVAL column comes
        # as DuckDB's text, whatever its values (a column's type does not hang on its rows).
        columns = list(zip(relation.columns, [str(t) for t in relation.types], strict=True))
        if any(kind == "INTERVAL" for _, kind in columns):
            relation = relation.project(
                ", ".join(
                    _as_text(n, name) if kind == "INTERVAL" else f"#{n}"
                    for n, (name, kind) in enumerate(columns, start=1)
                )
            )
        from chipcost.core.frames import frame_of  # polars: not for `chipcost sql`

        return frame_of(relation)


def _as_text(n: int, name: str) -> str:
    quoted = name.replace('"', '""')
    return f'CAST(#{n} AS VARCHAR) AS "{quoted}"'


@dataclass(frozen=True)
class Interval:
    """A DuckDB INTERVAL, exact: months and days are not turned into a number of seconds."""

    months: int
    days: int
    micros: int

    def isoformat(self) -> str:
        return iso_duration(self.months, self.days, self.micros)

    def __str__(self) -> str:
        return self.isoformat()


# A NamedTuple rather than a frozen dataclass: defined at import in a millisecond less.
class QueryResult(NamedTuple):
    columns: list[str]
    types: list[str]
    rows: list[tuple]
    freshness: Freshness | None = None  # of the whole warehouse, when asked for
    # The bound the rows stopped at, with its variable, when the result had more ("" if not).
    cut: str = ""
    # Rows past the caller's max_rows, counted, not read (up to the rows bound).
    more: int = 0
    # The rows bound, with its variable, when the count of `more` stopped at it ("" if not):
    # a table says it as a cut, since its line under the rows counts the whole result.
    counted_to: str = ""


# Rows fetched from DuckDB at a time: the result streams, and is cut at a bound as it grows.
BATCH_ROWS = 2048


# Top-level columns of these types are read as DuckDB's own text, which keeps what Python's
# types lose: nanoseconds, years past 9999, 'infinity' (which Python reads as 9999-12-31).
_AS_TEXT = ("TIMESTAMP", "DATE", "TIME")
_OFFSET = re.compile(r"([+-]\d\d)$")
_INTERVAL_PARTS = "datepart(['year', 'month', 'day', 'hour', 'minute', 'microsecond'], #{n})"


def _projection(n: int, kind: str) -> str:
    if kind == "INTERVAL":
        return _INTERVAL_PARTS.format(n=n)
    if kind.startswith(_AS_TEXT):
        return f"CAST(#{n} AS VARCHAR)"
    return f"#{n}"


def _iso_text(text: str | None, kind: str) -> str | None:
    """'2026-11-21 06:00:00+00' -> '2026-11-21T06:00:00+00:00'; 'infinity' stays as it is."""
    if text is None:
        return None
    if kind.startswith("TIMESTAMP"):
        text = text.replace(" ", "T", 1)
    if kind.endswith("WITH TIME ZONE"):
        text = _OFFSET.sub(r"\1:00", text)
    return text


def _interval(parts: dict | None) -> Interval | None:
    if parts is None:
        return None
    micros = (parts["hour"] * 3600 + parts["minute"] * 60) * 1_000_000 + parts["microsecond"]
    return Interval(12 * parts["year"] + parts["month"], parts["day"], micros)


def _value(value: object, kind: str) -> object:
    """A value as read_rows gives it; _projection made an interval the struct of its parts
    and a timestamp, date or time DuckDB's text (NULL stays None)."""
    if kind == "INTERVAL" and isinstance(value, dict):
        return _interval(value)
    if kind.startswith(_AS_TEXT) and isinstance(value, str):
        return _iso_text(value, kind)
    return value


def read_rows(
    db_path: Path | Warehouse,
    query: str,
    *,
    wait: float = 0.0,
    stale_days: int | None = None,
    limits: SqlLimits | None = None,
    max_rows: int | None = None,
) -> QueryResult:
    """The query's result as Python values, every DuckDB type included: top-level intervals
    as Interval, timestamps, dates and times as ISO 8601 text, the rest as DuckDB gives them
    (nested values as lists and dicts, BLOBs as bytes).

    The rows stream in batches and stop at `max_rows` (the caller's --limit), or at the
    limits' rows or bytes (QueryResult.cut says which): a result is never held whole outside
    DuckDB's memory and time limits. With `stale_days`, the warehouse's freshness is read in
    the same open (a lake attaches its catalog on each open).
    """
    limits = limits or SqlLimits()
    with _sandboxed(db_path, query, wait=wait, limits=limits) as con:
        relation = con.sql(query)
        columns = list(relation.columns)
        kinds = [str(t) for t in relation.types]
        projected = ", ".join(_projection(n, k) for n, k in enumerate(kinds, start=1))
        rows, cut, more = _fetched(relation.project(projected), kinds, limits, max_rows)
        fresh = None if stale_days is None else _freshness(con, db_path, stale_days)
    counted_to = ""
    if len(rows) + more > limits.rows:  # counted one past the bound: the result is past it
        more, counted_to = limits.rows - len(rows), f"{limits.rows:,} rows ({ROWS_ENV})"
    return QueryResult(
        columns=columns, types=kinds, rows=rows, freshness=fresh, cut=cut, more=more,
        counted_to=counted_to,
    )  # fmt: skip


def _fetched(
    relation: duckdb.DuckDBPyRelation, kinds: list[str], limits: SqlLimits, wanted: int | None
) -> tuple[list[tuple], str, int]:
    """The relation's rows, converted batch by batch, up to `wanted` or a limit; with the
    limit that cut them ("" when none did) and the rows past `wanted` (counted, not read)."""
    most_rows, most_bytes = limits.rows, limits.result_bytes()
    rows: list[tuple] = []
    held = 0
    while batch := relation.fetchmany(BATCH_ROWS):
        for row in batch:
            if wanted is not None and len(rows) >= wanted:  # as many as asked for: not a cut
                return rows, "", _counted(relation, wanted, most_rows + 1)
            if len(rows) >= most_rows:
                return rows, f"{most_rows:,} rows ({ROWS_ENV})", 0
            held += _held(row)
            if held > most_bytes:
                cut = f"{limits.result or limits.memory} ({limits.result_variable()})"
                return rows, cut, 0
            rows.append(tuple(_value(v, k) for v, k in zip(row, kinds, strict=True)))
        check_read_time()
    return rows, "", 0


def _counted(relation: duckdb.DuckDBPyRelation, read: int, most: int) -> int:
    """The relation's rows past the `read` first, up to `most` rows in all: counted by
    DuckDB, none of them converted into Python (the relation is read no further)."""
    rest = relation.limit(max(most - read, 0), offset=read).aggregate("count(*)")
    return int(rest.fetchall()[0][0])


def _held(value: object) -> int:
    """About the bytes Python holds for a value: its object, and its items' for a row, list
    or mapping (what a result costs outside DuckDB)."""
    size = sys.getsizeof(value)
    if isinstance(value, tuple | list):
        return size + sum(_held(v) for v in value)
    if isinstance(value, dict):
        return size + sum(_held(k) + _held(v) for k, v in value.items())
    return size


def _freshness(con: duckdb.DuckDBPyConnection, db_path: Path | Warehouse, days: int) -> Freshness:
    try:
        return freshness(con, None, stale_days=days)
    except duckdb.Error as exc:  # not the query's fault: said so, not "query failed"
        raise damaged(db_path, exc) or ChipcostError(
            f"the query ran, but the warehouse's sources could not be read: {exc}"
        ) from exc


@contextmanager
def _sandboxed(
    db_path: Path | Warehouse, query: str, *, wait: float = 0.0, limits: SqlLimits | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only, sandboxed connection for one checked query, within its time, memory and
    temporary-disk limits; DuckDB errors in plain words."""
    _check_reads_only(query)
    limits = limits or SqlLimits()
    con = open_reader(db_path, wait=wait, limits=limits)
    try:
        for setting in _sandbox(db_path, con):
            con.execute(setting).fetchall()
        yield con
    except (duckdb.InterruptException, duckdb.OutOfMemoryException) as exc:
        raise limit_hit(exc, limits) or exc from exc
    except duckdb.PermissionException as exc:
        raise UsageError(
            f"`chipcost sql` reads only the warehouse: files, other databases and extensions "
            f"are out of its reach ({exc}). Use the duckdb CLI for those"
        ) from exc
    except duckdb.Error as exc:
        if found := damaged(db_path, exc):
            raise found from exc
        asker = isinstance(exc, QUERY_ERRORS)
        said = in_their_words(exc, query)
        raise (UsageError if asker else ChipcostError)(f"query failed: {said}") from exc
    finally:
        con.close()


# DuckDB's context under its message: "LINE n: " and the line of the SQL it ran (cut short
# with "..." at either end), then a caret under the place.
_CONTEXT = re.compile(r"\n\s*\nLINE \d+: (?P<line>[^\n]*)(?:\n[ \t]*\^)?\s*$")


def in_their_words(error: duckdb.Error, query: str) -> str:
    """DuckDB's message, its LINE and caret left out when the line is not of the query the
    user gave (the reader's own wrapper around it, or DuckDB's rewrite of it)."""
    text = str(error)
    context = _CONTEXT.search(text)
    if context is None:
        return text
    quoted = context["line"].removeprefix("...").removesuffix("...")
    return text if quoted in query else text[: context.start()]
