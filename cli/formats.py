"""Output for scripts: `--format table|csv|json`, with one conversion of values for every command.

JSON is an array of objects, one per row, with the column names as keys: timestamps and dates
in ISO 8601, durations as ISO 8601 durations (P1DT2H), binary values in base64, nested values
(lists, structs, maps) as JSON arrays and objects, NaN and infinities as null, repeated column
names made unique (a, a_2). CSV has a header row; the same conversions and names, with nested
values as JSON text in their cell and null as an empty cell. Notices a human
should see (SAMPLE DATA, stale sources) go to stderr in csv and json, so stdout stays parseable.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum, StrEnum
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any

from chipcost.core.clean import CONTROL, printable, spreadsheet_text
from chipcost.core.durations import iso_timedelta

if TYPE_CHECKING:
    import polars as pl

# csv, json, base64 and decimal are imported where a value or a format needs them: a table of
# plain numbers and text (most of what `chipcost sql` prints) needs none.


class OutputFormat(StrEnum):
    """What a read command writes to stdout."""

    table = "table"
    csv = "csv"
    json = "json"


class PriceFormat(StrEnum):
    """`chipcost prices` also writes FOCUS's columns (chipcost.transform.focus), as CSV."""

    table = "table"
    csv = "csv"
    json = "json"
    focus = "focus"


# The declared fields' kinds that are formats (chipcost.core.questions), and their enums: the
# choices of the command line's --format (chipcost.cli.parser).
FORMAT_KINDS: dict[str, type[StrEnum]] = {"format": OutputFormat, "price-format": PriceFormat}


def json_value(value: Any) -> Any:
    """A value as JSON can hold it (see the module docstring for each kind)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    from decimal import Decimal

    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, timedelta):
        return iso_timedelta(value)
    if isinstance(value, datetime | date | time) or hasattr(value, "isoformat"):
        # Dates and times, and the warehouse's exact intervals (chipcost.warehouse.readonly).
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        import base64

        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)  # UUIDs and anything else as their text


def text_value(value: Any) -> str:
    """A value as one CSV or table cell: nested values as JSON text, None as empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, dict | list | tuple):
        import json

        return json.dumps(json_value(value), ensure_ascii=False)
    converted = json_value(value)
    return converted if isinstance(converted, str) else str(converted)


def table_value(value: Any) -> str:
    """A value as a cell of the `sql` table: as text_value, but a float to six decimals at
    most (2.5072666666666668 -> 2.507267); csv and json keep every digit."""
    if isinstance(value, float) and math.isfinite(value) and value:
        if 1e-4 <= abs(value) < 1e15:
            return f"{value:.6f}".rstrip("0").rstrip(".")
        return f"{value:.6g}"
    if isinstance(value, float) and value == 0:
        return "0"
    return text_value(value)


def numeric_columns(rows: Any, width: int) -> list[bool]:
    """Per column, whether every value set is a number (not a bool): those align right."""
    import decimal

    kinds = (int, float, decimal.Decimal)
    numeric = [True] * width
    seen = [False] * width
    for row in rows:
        for i, value in enumerate(row):
            if value is None:
                continue
            seen[i] = True
            if isinstance(value, bool) or not isinstance(value, kinds):
                numeric[i] = False
    return [n and s for n, s in zip(numeric, seen, strict=True)]


def _csv_cell(value: Any) -> str:
    """A CSV cell: as text_value, but NaN and infinities empty, as JSON's null; control and
    bidi characters out as the table has them (a provider's ESC, BEL or OSC 8 would reach
    the terminal), then text a spreadsheet would run as a formula defused: a string, and a
    list, object or interval written as text ('["a, -b"]'). Numbers are left as they are
    (-3.5 stays a number)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return _csv_text(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal | date | time):
        return text_value(value)  # digits, signs and ISO dates: nothing to take out or defuse
    return spreadsheet_text(printable(text_value(value)))


@lru_cache(maxsize=8192)
def _csv_text(text: str) -> str:
    """A text cell, cleaned and defused once per distinct text: a price list repeats its
    providers, regions and pricing models on every row (`prices --format csv` of the sample,
    82,000 cells: 0.26 s cleaned cell by cell)."""
    return spreadsheet_text(printable(text))


_CONTROL = re.compile(CONTROL)


def _escaped(text: str) -> str:
    """JSON text with every control and bidi character written as its \\u escape: the same
    JSON, nothing a terminal acts on (json.dumps leaves C1 controls and bidi marks raw)."""
    return _CONTROL.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


def _unique(columns: Sequence[str]) -> list[str]:
    """Column names made unique (a, a_2, ...): a JSON object cannot hold a key twice."""
    seen: dict[str, int] = {}
    names = []
    for name in columns:
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return names


def _whole_counts(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterable[Sequence[Any]]:
    from chipcost.core.vocabulary import WHOLE_COUNTS

    at = [i for i, name in enumerate(columns) if name in WHOLE_COUNTS]
    if not at:
        return rows
    return (
        [
            int(v) if i in at and isinstance(v, float) and v.is_integer() else v
            for i, v in enumerate(row)
        ]
        for row in rows
    )


def write_rows(
    fmt: OutputFormat,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    stream: IO[str] | None = None,
) -> None:
    """Rows as csv or json on `stream` (stdout by default); a whole chip count as an integer."""
    stream = stream or sys.stdout
    rows = _whole_counts(columns, rows)
    if fmt is OutputFormat.csv:
        import csv

        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(_unique(columns))
        for row in rows:
            writer.writerow([_csv_cell(v) for v in row])
        return
    if fmt is not OutputFormat.json:
        raise ValueError(f"write_rows writes csv or json, not {fmt.value}")
    import json

    keys = _unique(columns)
    # Escaped (\u00e9) where the stream cannot hold every character: still the same JSON.
    ascii_only = not (getattr(stream, "encoding", None) or "utf").lower().startswith("utf")
    stream.write("[")
    for n, row in enumerate(rows):
        record = dict(zip(keys, (json_value(v) for v in row), strict=True))
        text = json.dumps(record, ensure_ascii=ascii_only)
        stream.write(("," if n else "") + "\n" + _escaped(text))
    stream.write("\n]\n")


def write_frame(fmt: OutputFormat, frame: pl.DataFrame, stream: IO[str] | None = None) -> None:
    """A polars frame as csv or json (same conversions as write_rows)."""
    write_rows(fmt, frame.columns, frame.iter_rows(), stream)


def with_currency(frame: pl.DataFrame, currency: str) -> pl.DataFrame:
    """A read's prices as csv and json write them: a `currency` on every row, whether or not
    the read converted them (a converted read's query adds it, with its rate: warehouse.fx),
    so that a script never takes euros for dollars, and the currency its provider states the
    price in (`stated_currency`) last, where the read has it: the columns before keep their
    places. FOCUS's files have their own column."""
    import polars as pl

    if "currency" not in frame.columns:
        frame = frame.with_columns(pl.lit(currency, dtype=pl.String).alias("currency"))
    if "stated_currency" in frame.columns:
        frame = frame.select(pl.exclude("stated_currency"), "stated_currency")
    return frame
