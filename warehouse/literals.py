"""Values written into the text of the read commands' queries, as SQL literals.

DuckDB's binding of a `?` parameter from Python imports pandas when pandas is installed (it
checks every value against pandas' types): about 0.4 s added to `chipcost prices` or `cost`
in any environment that has pandas. Their queries take the values as literals instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date, datetime


def literal(value: str | float | date | None) -> str:
    """A string, number, boolean, day or None as SQL text that reads back as the same value."""
    if value is None:
        return "NULL"
    if isinstance(value, datetime):
        raise TypeError(f"{value!r}: pass its date(), a day is what the queries take")
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} has no SQL literal")
        # From its text: 0.5 alone reads as a DECIMAL, and a DECIMAL of 18 digits made a
        # DOUBLE is not always the same double (0.048308097052996116 came back one off).
        return f"CAST('{value!r}' AS DOUBLE)"
    if "\x00" in value or not value.isascii() and _unencodable(value):
        raise ValueError(f"{value!r} cannot be written into a query (NUL or not UTF-8)")
    return "'" + value.replace("'", "''") + "'"


def _unencodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, e.g. from undecodable command-line bytes
        return True
    return False


def listed(values: Iterable[str | float]) -> str:
    """`(v1, v2, ...)` for an IN list."""
    return "(" + ", ".join(literal(v) for v in values) + ")"


def any_of(column: str, values: Iterable[str] | None, where: list[str]) -> None:
    """Adds `lower(column) IN (...)` to `where` when values are given (any case matches)."""
    if values:
        where.append(f"lower({column}) IN {listed(v.lower() for v in values)}")
