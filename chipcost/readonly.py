"""Ad hoc SQL against the warehouse, refused unless it only reads."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from chipcost.errors import ChipcostError
from warehouse.db import connect

# Statement types that only read. Everything else (INSERT, ATTACH, COPY, INSTALL, SET, ...)
# is refused even though the connection is read-only: ATTACH and COPY ... TO could still
# write other files.
READ_STATEMENTS = {"SELECT", "EXPLAIN"}


def run_readonly(db_path: Path, query: str) -> pl.DataFrame:
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise ChipcostError(f"cannot parse the query: {exc}") from exc
    if len(statements) != 1:
        raise ChipcostError(f"give exactly one SQL statement (got {len(statements)})")
    kind = statements[0].type.name
    if kind not in READ_STATEMENTS:
        raise ChipcostError(
            f"`chipcost sql` only reads: a {kind} statement is refused. Open the file with the "
            "duckdb CLI or Python if you really mean to change it (stop scheduled runs first)"
        )
    con = connect(db_path, read_only=True)
    try:
        return con.sql(query).pl()
    except duckdb.Error as exc:
        raise ChipcostError(f"query failed: {exc}") from exc
    finally:
        con.close()
