"""AWS price list CSVs: the metadata lines, columns by name, and a filter that streams the file.

An EC2 region file is ~300 MB of which a few thousand rows are accelerator prices. DuckDB's
CSV reader streams it with a WHERE on the filter columns, so memory stays flat whatever the
file size; the kept rows are written back in AWS's own quoting as a small extract.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb

from chipcost.core.errors import ParseError

# The five "key","value" lines every price list CSV opens with, then the header line.
METADATA_KEYS = ("FormatVersion", "Disclaimer", "Publication Date", "Version", "OfferCode")
HEAD_LINES = len(METADATA_KEYS) + 1
# One thread and an 8 MiB read buffer keep peak memory flat at any file size (more threads
# each hold buffers, and RSS then grew with the file); one thread still reads ~70-90 MB/s,
# faster than the download it follows (docs/performance.md). memory_limit is a ceiling.
DUCKDB_CONFIG = {"memory_limit": "256MB", "threads": "1"}
READ_BUFFER = 8 << 20
# By name and as text: the header is read first and handed over as the column list, so no
# sniffing; allow_quoted_nulls=false keeps "" apart from a bare empty field (NULL), which
# lets an extract row be written back exactly as AWS wrote it.
READ_CSV = (
    "read_csv(?, skip=5, header=true, auto_detect=false, columns=?, delim=',', quote='\"', "
    f"escape='\"', allow_quoted_nulls=false, buffer_size={READ_BUFFER})"
)


@dataclass(frozen=True)
class CsvHead:
    """A price list CSV's metadata and columns, and its first six lines exactly as written."""

    metadata: dict[str, str]
    columns: tuple[str, ...]
    text: str

    @property
    def version(self) -> str:
        return self.metadata.get("Version", "")

    @property
    def offer_code(self) -> str:
        return self.metadata.get("OfferCode", "")


def parse_head(lines: list[str], where: str) -> CsvHead:
    """The head of a price list CSV; ParseError when it is not one."""
    if len(lines) < HEAD_LINES or not lines[-1].endswith("\n"):
        raise ParseError(
            f"{where} ends before its header line ({len(lines)} line(s)): the file is cut off; "
            "delete it and fetch it again"
        )
    try:
        rows = list(csv.reader(lines, strict=True))
    except csv.Error as exc:
        raise ParseError(
            f"{where} has a header that is not valid CSV ({exc}): the file is damaged; "
            "delete it and fetch it again"
        ) from exc
    # An unquoted value (the savings-plan files quote nothing) may itself hold commas.
    metadata = {row[0]: ",".join(row[1:]) for row in rows[:5] if len(row) >= 2}
    if [row[0] for row in rows[:5] if row] != list(METADATA_KEYS) or len(metadata) != 5:
        first = lines[0].strip()[:80]
        raise ParseError(
            f"{where} is not an AWS price list CSV (it starts {first!r}, expected the five "
            f"lines {', '.join(METADATA_KEYS)}): the server may have sent an error page; "
            "fetch it again, or report a format change"
        )
    return CsvHead(metadata, tuple(rows[5]), "".join(lines))


def read_head(path: Path, where: str) -> CsvHead:
    with path.open("r", encoding="utf-8", newline="") as handle:
        lines = [line for line in (handle.readline() for _ in range(HEAD_LINES)) if line]
    return parse_head(lines, where)


def split(data: bytes, where: str) -> tuple[CsvHead, str]:
    """A CSV payload as (head, body text)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{where} is not UTF-8 text ({exc}): fetch it again") from exc
    lines = text.splitlines(keepends=True)
    head = parse_head(lines[:HEAD_LINES], where)
    return head, text[len(head.text) :]


def rows(head: CsvHead, body: str, where: str) -> Iterator[dict[str, str]]:
    """The data rows by column name; a cut-off or malformed row is a ParseError."""
    reader = csv.reader(io.StringIO(body, newline=""), strict=True)
    width = len(head.columns)
    try:
        for row in reader:
            if len(row) != width:
                raise ParseError(
                    f"{where} line {HEAD_LINES + reader.line_num} has {len(row)} fields, the "
                    f"header {width}: the file is cut off or malformed; fetch it again"
                )
            yield dict(zip(head.columns, row, strict=True))
    except csv.Error as exc:
        raise ParseError(
            f"{where} line {HEAD_LINES + reader.line_num} is not valid CSV ({exc}): the file is "
            "cut off or malformed; fetch it again"
        ) from exc


def quoted(name: str) -> str:
    """A column name as a SQL identifier (AWS's names have spaces and slashes)."""
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Selection:
    """Which rows of a price list file a source keeps: the same test in SQL and in Python.

    `match` applies to the columns a file has (older files lack some), `required` columns
    must all be present, and `scope` is a SQL condition with its Python twin.
    """

    name: str
    required: tuple[str, ...]
    match: dict[str, tuple[str, ...]]
    scope_sql: str
    scope_params: tuple[object, ...]
    scope: Callable[[Mapping[str, str]], bool]

    def keeps(self, row: Mapping[str, str]) -> bool:
        """The Python twin of where(): a missing value ('' here, NULL there) matches nothing."""
        if not self.scope(row):
            return False
        return all(row[c] in values for c, values in self.match.items() if c in row)

    def missing(self, columns: tuple[str, ...]) -> list[str]:
        return [c for c in self.required if c not in columns]

    def where(self, columns: tuple[str, ...]) -> tuple[str, list[object]]:
        clauses, params = [f"({self.scope_sql})"], list(self.scope_params)
        for column, values in self.match.items():
            if column in columns:
                clauses.append(f"{quoted(column)} IN ({', '.join('?' for _ in values)})")
                params.extend(values)
        return " AND ".join(clauses), params

    def fingerprint(self) -> str:
        text = json.dumps([self.name, self.match, self.scope_sql, self.scope_params], default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def filter_file(path: Path, selection: Selection, head: CsvHead, where: str) -> bytes:
    """The file's six head lines and the selected rows, in AWS's quoting: the extract."""
    clause, params = selection.where(head.columns)
    columns = {name: "VARCHAR" for name in head.columns}
    con = duckdb.connect(config=DUCKDB_CONFIG)
    try:
        found = con.execute(
            f"SELECT * FROM {READ_CSV} WHERE {clause}", [str(path), columns, *params]
        ).fetchall()
    except duckdb.Error as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ParseError(
            f"{where} cannot be read as CSV ({detail}): the file is cut off or malformed; "
            "delete it and fetch it again"
        ) from exc
    finally:
        con.close()
    return (head.text + "".join(csv_line(row) for row in found)).encode("utf-8")


def csv_line(values: tuple[str | None, ...]) -> str:
    """One row as AWS writes it: every value quoted, an empty (null) field left bare."""
    return ",".join("" if v is None else '"' + v.replace('"', '""') + '"' for v in values) + "\n"
