"""Ad hoc SQL against the warehouse, refused unless it only reads."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl

from chipcost.core.errors import ChipcostError
from chipcost.warehouse.db import connect, damaged

# Statement types that only read. Everything else (INSERT, ATTACH, COPY, INSTALL, SET, ...)
# is refused even though the connection is read-only: ATTACH and COPY ... TO could still
# write other files.
READ_STATEMENTS = {"SELECT", "EXPLAIN"}
# EXPLAIN ANALYZE runs the statement it explains: that one must be a read too.
_EXPLAIN = re.compile(r"^\s*explain\s+(analy[sz]e\s+)?", re.IGNORECASE)
# A second line of defence behind the statement check: no file, other database or extension
# can be reached from the session, and no setting can be changed back.
SANDBOX = ("SET enable_external_access = false", "SET lock_configuration = true")


def _refuse(kind: str) -> ChipcostError:
    return ChipcostError(
        f"`chipcost sql` only reads: a {kind} statement is refused. Open the file with the "
        "duckdb CLI or Python if you really mean to change it (stop scheduled runs first)"
    )


def _check_reads_only(query: str) -> None:
    """Refuse anything but one SELECT (or an EXPLAIN of one), with a message saying why."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise ChipcostError(f"cannot parse the query: {exc}") from exc
    if len(statements) != 1:
        raise ChipcostError(f"give exactly one SQL statement (got {len(statements)})")
    kind = statements[0].type.name
    if kind not in READ_STATEMENTS:
        raise _refuse(kind)
    if kind == "EXPLAIN":
        explained = _EXPLAIN.sub("", query, count=1)
        try:
            inner = duckdb.extract_statements(explained)
        except duckdb.Error as exc:
            raise ChipcostError(f"cannot parse the explained query: {exc}") from exc
        if len(inner) != 1 or inner[0].type.name != "SELECT":
            raise _refuse(f"EXPLAIN of a {inner[0].type.name if inner else 'missing'}")


def run_readonly(db_path: Path, query: str) -> pl.DataFrame:
    _check_reads_only(query)
    con = connect(db_path, read_only=True)
    try:
        for setting in SANDBOX:
            con.execute(setting).fetchall()
        return con.sql(query).pl()
    except duckdb.PermissionException as exc:
        raise ChipcostError(
            f"`chipcost sql` reads only the warehouse: files, other databases and extensions "
            f"are out of its reach ({exc}). Use the duckdb CLI for those"
        ) from exc
    except duckdb.Error as exc:
        raise damaged(db_path, exc) or ChipcostError(f"query failed: {exc}") from exc
    finally:
        con.close()
