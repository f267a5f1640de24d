"""Queries with parameters, their values written into the query as SQL literals.

DuckDB's Python client imports pandas, where it is installed, on the first statement given
Python parameters (to recognise pandas' own values among them): 0.4-0.9 s, most of a read
command; where it is not, it looks for pandas again on every such statement (0.1-0.3 ms). A
query's placeholders (`?`, `$1`, `$name`, outside its quoted text and comments) are replaced by
their values as literals instead, and DuckDB binds the query once (a prepared statement and
its EXECUTE bound a view's whole plan twice: 4 ms of a 33 ms read). A value with no literal
form here, or placeholders that do not match the values, are bound by the client as before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime

import duckdb

Params = Mapping[str, object] | Sequence[object] | None

# A query's parts a placeholder may sit beside, by kind: text this reads whole (quoted text and
# identifiers, comments), which keeps its ? and $name; text it does not (an E'' string's
# backslashes, a $$ or $tag$ string, a comment within a comment) and DuckDB's numbered ?1,
# which leave the query to the client's binding; and the placeholders themselves.
_PARTS = re.compile(
    r"(?P<unread>(?<![\w$])[eE]'|\$\w*\$|\?\d|/\*(?:(?!\*/).)*?/\*)"
    r"|(?P<kept>'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/)"
    r"|(?P<placeholder>\$\w+|\?)",
    re.S,
)


class _Unwritable(Exception):
    """A value with no literal form here: the statement is bound by the client instead."""


def literal(value: object) -> str:
    """The value as a DuckDB literal of the type the client would bind it as."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):  # of the type the client binds it as (INTEGER if it fits)
        if -(2**31) <= value < 2**31:
            return f"CAST({value} AS INTEGER)"
        if -(2**63) <= value < 2**63:
            return f"CAST({value} AS BIGINT)"
        raise _Unwritable(value)
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
        if len({type(v) for v in value if v is not None}) > 1:
            raise _Unwritable(value)  # the client finds the list's one type
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise _Unwritable(value)


def inlined(sql: str, params: Params) -> str | None:
    """`sql` with each placeholder replaced by its value as a literal, or None to bind it as
    before (a value with no literal form, a placeholder without a value or a value without
    one)."""
    named = isinstance(params, Mapping)
    values: dict[object, object] = (
        dict(params) if isinstance(params, Mapping) else dict(enumerate(params or ()))
    )
    used: set[object] = set()
    place = iter(range(len(values)))

    def value(part: re.Match[str]) -> str:
        text = part.group(0)
        if part.group("unread"):
            raise _Unwritable(text)
        if part.group("kept"):
            return text
        if text == "?":
            key: object = next(place, None)
        else:
            name = text[1:]
            key = name if named else (int(name) - 1 if name.isdigit() else None)
        if key is None or key not in values:
            raise _Unwritable(text)
        used.add(key)
        return literal(values[key])

    try:
        written = _PARTS.sub(value, sql)
    except _Unwritable:
        return None
    return written if len(used) == len(values) else None


def execute(
    con: duckdb.DuckDBPyConnection, sql: str, params: Params = None
) -> duckdb.DuckDBPyConnection:
    """con.execute(sql, params), with no Python parameter bound."""
    if not params:
        return con.execute(sql)
    written = inlined(sql, params)
    return con.execute(written) if written is not None else con.execute(sql, params)


def relation(con: duckdb.DuckDBPyConnection, sql: str, params: Params = None):
    """con.sql(sql, params=params), with no Python parameter bound."""
    if not params:
        return con.sql(sql)
    written = inlined(sql, params)
    return con.sql(written) if written is not None else con.sql(sql, params=params)
