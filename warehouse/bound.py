"""Queries with parameters, their values written into an EXECUTE as SQL literals.

DuckDB's Python client imports pandas, where it is installed, on the first statement given
Python parameters (to recognise pandas' own values among them): 0.4-0.9 s, most of a read
command. A read prepares its query and executes it with literal arguments instead, which the
client passes to DuckDB as text. A value with no literal form here is bound as before.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime

import duckdb

Params = Mapping[str, object] | Sequence[object] | None

# Each prepared statement its own name: a relation runs its EXECUTE when it is read, so a
# name is never reused for another query on the same connection.
_names = itertools.count()


class _Unwritable(Exception):
    """A value with no literal form here: the statement is bound by the client instead."""


def literal(value: object) -> str:
    """The value as a DuckDB literal of the type the client would bind it as."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value) if math.isfinite(value) else str(value)
        return f"CAST('{text}' AS DOUBLE)"
    if isinstance(value, str):
        if "\x00" in value:
            raise _Unwritable(value)
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, datetime):
        kind = "TIMESTAMPTZ" if value.tzinfo is not None else "TIMESTAMP"
        return f"{kind} '{value.isoformat()}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise _Unwritable(value)


def _statement(con: duckdb.DuckDBPyConnection, sql: str, params: Params) -> str | None:
    """`EXECUTE name(args)` of the query prepared on `con`, or None to bind it as before."""
    try:
        if isinstance(params, Mapping):
            args = ", ".join(f'"{name}" := {literal(v)}' for name, v in params.items())
        else:
            args = ", ".join(literal(v) for v in params or ())
    except _Unwritable:
        return None
    name = f"chipcost_bound_{next(_names)}"
    con.execute(f"PREPARE {name} AS {sql.strip().rstrip(';')}")
    return f"EXECUTE {name}({args})"


def execute(
    con: duckdb.DuckDBPyConnection, sql: str, params: Params = None
) -> duckdb.DuckDBPyConnection:
    """con.execute(sql, params), with no Python parameter bound."""
    if not params:
        return con.execute(sql)
    statement = _statement(con, sql, params)
    return con.execute(statement) if statement else con.execute(sql, params)


def relation(con: duckdb.DuckDBPyConnection, sql: str, params: Params = None):
    """con.sql(sql, params=params), with no Python parameter bound."""
    if not params:
        return con.sql(sql)
    statement = _statement(con, sql, params)
    return con.sql(statement) if statement else con.sql(sql, params=params)
