"""AWS price list CSVs: metadata lines, columns by name, and a filter that scans raw bytes."""

from __future__ import annotations

import bisect
import csv
import functools
import hashlib
import io
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from chipcost.core.errors import ParseError

# The five "key","value" lines every price list CSV opens with, then the header line.
METADATA_KEYS = ("FormatVersion", "Disclaimer", "Publication Date", "Version", "OfferCode")
HEAD_LINES = len(METADATA_KEYS) + 1
# The filter reads the file into one reused buffer of this size, so memory stays flat at any
# file size. From 256 KiB up the size makes no measurable difference to speed (the scan's
# passes and the per-read work are the same); 4 MiB keeps the peak low.
BLOCK_SIZE = 4 << 20
NEWLINE = b"\n"
# The most bytes a file's six head lines are read from: AWS's take about 3 KB (the column
# header 2 KB); a file with no line break in them is refused as cut off, not read whole.
HEAD_MAX_BYTES = 64 << 10
# The longest line a price list holds: a row of AWS's is 1-2 KB (the EC2 header 2 KB). A line
# longer than this is no row: refused as soon as it is, never gathered to the file's end (a
# 200 MB field without its closing quote held 200 MB, read as no row at all).
MAX_LINE_BYTES = 1 << 20
# The lines the filter parses beyond those holding a mark, so that a file whose body is not
# rows fails rather than yield no row: every line of the body's first EXACT_BYTES (all of a
# small file's), the first and last line of every block read, and one line in every
# SAMPLE_BYTES. AWS's own files are rows throughout; a page, text or binary in place of rows
# is caught there, a lone line of it among 300 MB of rows need not be (checking every line
# took about five times the filter's time on a 300 MB file). A line holding a mark is always
# parsed: a row the selection keeps is never taken from a malformed line.
EXACT_BYTES = 1 << 20
SAMPLE_BYTES = 256 << 10
# What a file that is no CSV text begins with: gzip's magic (an answer coded although asked
# for as it is), a UTF-16 byte order mark; a page is told by its first tag within PAGE_LOOK.
GZIP_MAGIC = b"\x1f\x8b"
UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
PAGE_LOOK = 4096
PAGE_TITLE = re.compile(rb"<(?:title|code)>([^<]{1,80})<", re.IGNORECASE)
# What to do about a file that is not a price list: AWS's own files are UTF-8 CSV.
FETCH_AGAIN = (
    "run again to fetch it again; if it comes back the same, check CHIPCOST_AWS_PRICE_LIST_URL "
    "and any proxy between chipcost and it"
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
    if len(rows) <= len(METADATA_KEYS) or not rows[-1]:  # a line of the six split or blank
        raise ParseError(
            f"{where} has no column header after its five metadata lines: the file is damaged; "
            "delete it and fetch it again"
        )
    return CsvHead(metadata, tuple(rows[5]), "".join(lines))


def read_head(path: Path, where: str) -> CsvHead:
    """The head of a price list CSV file; a ParseError saying what the file is instead (an
    HTML page, gzip, UTF-16, bytes that are not UTF-8), read from its first HEAD_MAX_BYTES."""
    with path.open("rb") as handle:
        start = handle.read(HEAD_MAX_BYTES)
    return parse_head(head_lines(start, where), where)


def split(data: bytes, where: str) -> tuple[CsvHead, str]:
    """A CSV payload as (head, body text)."""
    head = parse_head(head_lines(data[:HEAD_MAX_BYTES], where), where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{where} is not UTF-8 text ({exc}): {FETCH_AGAIN}") from exc
    return head, text[len(head.text) :]


def head_lines(start: bytes, where: str) -> list[str]:
    """The first HEAD_LINES lines of a file that begins with `start`, as text; a ParseError
    naming what the file is when it is no CSV text: the first thing a read of it does."""
    if what := not_a_csv(start):
        raise ParseError(f"{where} is {what}, not an AWS price list CSV: {FETCH_AGAIN}")
    lines = start.splitlines(keepends=True)[:HEAD_LINES]
    text = []
    for number, line in enumerate(lines, start=1):
        try:
            text.append(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            if not line.endswith((b"\n", b"\r")):  # cut at HEAD_MAX_BYTES: parse_head says
                text.append(line.decode("utf-8", "replace"))
                break
            raise ParseError(
                f"{where} is not UTF-8 text (line {number}: {exc}): {FETCH_AGAIN}"
            ) from exc
    return text


def not_a_csv(start: bytes) -> str:
    """What a file beginning with `start` is when it cannot be a price list CSV (gzip, UTF-16,
    an HTML or XML page), else ''."""
    if start.startswith(GZIP_MAGIC):
        return "gzip-compressed (sent coded, although chipcost asks for the file as it is)"
    if start.startswith(UTF16_MARKS):
        return "UTF-16 text"
    page = start[:PAGE_LOOK].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not page.startswith(b"<"):
        return ""
    title = PAGE_TITLE.search(page)  # an HTML page's title, an S3 error's code
    named = f" ({title[1].decode('utf-8', 'replace').strip()!r})" if title else ""
    html = b"<html" in page.lower() or page.lower().startswith(b"<!doctype")
    kind = "an HTML page" if html else "an XML page"
    return f"{kind}{named} sent instead of the file (by the server, a proxy or a login)"


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


@dataclass(frozen=True)
class Selection:
    """Which rows of a price list file a source keeps, and the text that finds them fast.

    `match` applies to the columns a file has (older files lack some), `required` columns
    must all be present, and `scope` narrows further (`scope_sql` is its SQL twin, for
    queries on an extract). `marks`: text of which the line of every row `keeps` accepts
    holds at least one; the filter csv-parses only the lines holding a mark (every line when
    there are none), so a kept row that could lack every mark would be lost.
    """

    name: str
    required: tuple[str, ...]
    match: dict[str, tuple[str, ...]]
    scope_sql: str
    scope_params: tuple[object, ...]
    scope: Callable[[Mapping[str, str]], bool]
    marks: tuple[str, ...] = ()

    def keeps(self, row: Mapping[str, str]) -> bool:
        """Whether a row is selected: a missing value ('') matches nothing."""
        if not self.scope(row):
            return False
        return all(row[c] in values for c, values in self.match.items() if c in row)

    def missing(self, columns: tuple[str, ...]) -> list[str]:
        return [c for c in self.required if c not in columns]

    def fingerprint(self) -> str:
        text = json.dumps([self.name, self.match, self.scope_sql, self.scope_params], default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def filter_file(path: Path, selection: Selection, head: CsvHead, where: str) -> bytes:
    """The file's six head lines and the selected rows, each byte for byte AWS's own line.

    ParseError when the file is not rows of the header's width where it is read (every line
    holding a mark, the lines EXACT_BYTES and SAMPLE_BYTES say), when a line is longer than
    MAX_LINE_BYTES, or when the header is followed by no row at all: such a file yields no
    row, and a region's file yielding none would withdraw every offer of that region.
    """
    found = _Filter(path, selection, head, where)
    with path.open("rb") as handle:
        try:
            for piece in _pieces(handle, len(found.head)):
                found.take(piece)
        except _LongLine as long:
            raise found.error(
                long.offset, f"a line of more than {MAX_LINE_BYTES:,} bytes"
            ) from None
    if not found.body:
        raise ParseError(
            f"{where} has its header and no row after it: a price list file lists rows, so it "
            "is cut off or not the price list; delete it and fetch it again"
        )
    return found.head + b"".join(found.kept)


def body_rows(extract: bytes) -> int:
    """How many lines follow the head lines of an extract (its rows)."""
    at = 0
    for _ in range(HEAD_LINES):
        at = extract.find(NEWLINE, at) + 1
        if not at:
            return 0
    body = extract[at:]
    return body.count(NEWLINE) + (1 if body and not body.endswith(NEWLINE) else 0)


class _LongLine(Exception):
    """Internal: the line from byte `offset` on is longer than MAX_LINE_BYTES."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


@dataclass(frozen=True)
class _Piece:
    """data[start:end]: whole lines of the file from byte `offset` on, each with its newline
    unless `ended` is false (the file's last line, without one)."""

    offset: int
    data: bytes | bytearray
    start: int
    end: int
    ended: bool = True


def _pieces(handle: io.BufferedIOBase, offset: int) -> Iterator[_Piece]:
    """The file from `offset` on in whole lines, read in blocks into one reused buffer.

    A line that straddles two reads comes as a piece of its own; so does a last line
    without its newline, which is how a file cut off inside a row ends.
    """
    handle.seek(offset)
    buffer, tail = bytearray(BLOCK_SIZE), b""
    view = memoryview(buffer)
    while size := handle.readinto(buffer):
        first = buffer.find(NEWLINE, 0, size) + 1
        if not first:  # a line longer than the buffer: gather it, up to MAX_LINE_BYTES
            tail += view[:size]
            if len(tail) > MAX_LINE_BYTES:
                raise _LongLine(offset)
            continue
        begin = 0
        if tail:
            straddling = tail + view[:first]
            yield _Piece(offset, straddling, 0, len(straddling))
            offset, begin = offset + len(straddling), first
        last = buffer.rfind(NEWLINE, 0, size) + 1
        yield _Piece(offset, buffer, begin, last)
        offset, tail = offset + last - begin, bytes(view[last:size])
        if len(tail) > MAX_LINE_BYTES:
            raise _LongLine(offset)
    if tail:
        yield _Piece(offset, tail, 0, len(tail), ended=False)


class _Filter:
    """The kept lines of one file, gathered piece by piece."""

    def __init__(self, path: Path, selection: Selection, head: CsvHead, where: str) -> None:
        self.path, self.selection, self.columns, self.where = path, selection, head.columns, where
        self.head = head.text.encode("utf-8")
        self.scan = scanner(selection.marks)
        # A match column with one allowed value puts that value in a kept row's raw line (AWS
        # doubles only quotes): a substring test first spares most candidates the csv parse.
        self.needed = tuple(
            values[0].encode("utf-8")
            for column, values in selection.match.items()
            if column in head.columns and len(values) == 1 and '"' not in values[0]
        )
        self.kept: list[bytes] = []
        self.body = False  # whether a line follows the head
        self.exact_until = len(self.head) + EXACT_BYTES  # every line before it is parsed
        self.sample_at = self.exact_until  # the next line parsed only to check the file

    def take(self, piece: _Piece) -> None:
        if piece.end <= piece.start:  # a read that ended where a straddling line did
            return
        self.body = True
        if not piece.ended:
            # A last line without its newline is always parsed: a download cut off inside a
            # row ends so, and that must be an error, not a shorter extract.
            self._keep(bytes(piece.data[piece.start : piece.end]), piece.offset)
            return
        self._check(piece)
        for at, line in _candidates(self.scan, piece.data, piece.start, piece.end):
            if all(map(line.__contains__, self.needed)):
                self._keep(line, piece.offset + at - piece.start)

    def _check(self, piece: _Piece) -> None:
        """Parse the piece's lines that tell whether the file is rows (EXACT_BYTES,
        SAMPLE_BYTES): a ParseError naming the first that is not one of the header's width."""
        data, start, end = piece.data, piece.start, piece.end
        starts = {start, data.rfind(NEWLINE, start, end - 1) + 1 or start}
        offset = piece.offset - start  # data[at] is byte offset + at of the file
        exact = min(end, self.exact_until - offset)
        at = start
        while at < exact:  # the body's first EXACT_BYTES: every line
            starts.add(at)
            at = data.find(NEWLINE, at, end) + 1 or end
        while self.sample_at < offset + end:  # one line in every SAMPLE_BYTES
            at = max(start, self.sample_at - offset)
            starts.add(data.rfind(NEWLINE, start, at) + 1 or start)
            self.sample_at += SAMPLE_BYTES
        for at in sorted(starts):
            stop = data.find(NEWLINE, at, end) + 1 or end
            self._row(bytes(data[at:stop]), offset + at)

    def _keep(self, line: bytes, offset: int) -> None:
        if self.selection.keeps(self._row(line, offset)):
            self.kept.append(line)

    def _row(self, line: bytes, offset: int) -> dict[str, str]:
        try:
            fields = next(csv.reader((line.decode("utf-8"),), strict=True), [])
        except (UnicodeDecodeError, csv.Error) as exc:
            raise self.error(offset, str(exc)) from exc
        if len(fields) != len(self.columns):
            raise self.error(offset, f"{len(fields)} fields, the header {len(self.columns)}")
        return dict(zip(self.columns, fields, strict=True))

    def error(self, offset: int, detail: str) -> ParseError:
        return ParseError(
            f"{self.where} cannot be read as CSV (line {_line_number(self.path, offset)}: "
            f"{detail}): the file is cut off or malformed; delete it and fetch it again"
        )


def _candidates(
    scan: Scanner | None, data: bytes | bytearray, start: int, end: int
) -> Iterator[tuple[int, bytes]]:
    """(position, line) of each line of data[start:end] holding a mark, or of every line."""
    if scan is None:
        at = start
        while at < end:
            stop = data.find(NEWLINE, at, end) + 1 or end
            yield at, bytes(data[at:stop])
            at = stop
        return
    for begin in scan.line_starts(data, start, end):
        stop = data.find(NEWLINE, begin, end) + 1 or end
        yield begin, bytes(data[begin:stop])


class Scanner(Protocol):
    def line_starts(self, data: bytes | bytearray, start: int, end: int) -> list[int]:
        """Where the lines of data[start:end] holding a mark begin, in order."""
        ...


def scanner(marks: tuple[str, ...], *, native: bool = True) -> Scanner | None:
    """How the filter finds the lines holding a mark (None: there are no marks, every line
    is parsed). Hyperscan where its wheel installed (x86-64, macOS, Windows: pyproject.toml),
    one pass for every mark; else the passes of `re` and `bytes.find` below."""
    encoded = [mark.encode("utf-8") for mark in marks]
    if not encoded:
        return None
    if any(not mark or NEWLINE in mark for mark in encoded):
        raise ValueError(f"a mark is empty or spans lines: {marks}")
    if native and (found := _NativeScan.of(encoded)) is not None:
        return found
    return _Scan.of(encoded)


class _NativeScan:
    """Every mark in one pass of Hyperscan's literal matcher (SIMD): about twice as fast on
    an EC2 file as the three passes of _Scan (docs/performance.md)."""

    def __init__(self, database: Any) -> None:
        from hyperscan import Scratch

        self.database = database
        # Scratch space is per scanner, and a scanner per file filter: never shared by threads
        # (the compiled database is, read only).
        self.scratch = Scratch(database)

    @classmethod
    def of(cls, marks: list[bytes]) -> _NativeScan | None:
        try:
            import hyperscan  # noqa: F401
        except ImportError:  # no wheel for this platform: the pure-Python scan
            return None
        return cls(_compiled(tuple(marks)))

    def line_starts(self, data: bytes | bytearray, start: int, end: int) -> list[int]:
        """Where the lines of data[start:end] holding a mark begin, in order.

        Hyperscan reports where each occurrence of each mark ends; a mark holds no newline,
        so the occurrence's last byte lies in the line that holds it.
        """
        hits: list[int] = []
        # The handler returns None (list.append's): a true value would stop the scan.
        self.database.scan(
            memoryview(data)[start:end],
            match_event_handler=lambda _id, _from, to, _flags, _ctx: hits.append(start + to - 1),
            scratch=self.scratch,
        )
        hits.sort()

        def find(at: int) -> int:
            i = bisect.bisect_left(hits, at)
            return hits[i] if i < len(hits) else -1

        return list(_lines_hit(data, start, end, find))


@functools.cache
def _compiled(marks: tuple[bytes, ...]) -> Any:
    """The marks compiled for Hyperscan, once per process (every EC2 file has the same)."""
    import hyperscan

    database = hyperscan.Database()
    database.compile(expressions=list(marks), elements=len(marks), flags=0, literal=True)
    return database


@dataclass(frozen=True)
class _Scan:
    """The pure-Python scan: a few passes over the raw bytes, each in C."""

    literals: tuple[bytes, ...]
    dotted: re.Pattern[bytes] | None

    @classmethod
    def of(cls, marks: list[bytes]) -> _Scan:
        literals = tuple(mark for mark in marks if b"." not in mark)
        return cls(literals, _dotted_pattern([mark for mark in marks if b"." in mark]))

    def line_starts(self, data: bytes | bytearray, start: int, end: int) -> list[int]:
        """Where the lines of data[start:end] holding a mark begin, in order."""
        found: set[int] = set()
        for literal in self.literals:
            found.update(_lines_hit(data, start, end, _finder(literal, data, end)))
        if self.dotted is not None:
            found.update(_lines_hit(data, start, end, _searcher(self.dotted, data, end)))
        return sorted(found)


def _dotted_pattern(marks: list[bytes]) -> re.Pattern[bytes] | None:
    """One search for all the marks that hold a dot, anchored on their (first) dot.

    re scans for a pattern's first byte, then tries the rest there. A quote opens every
    value of an EC2 row, about 80 a row, where a dot comes about 7 times: starting at the
    dot and looking back for the mark's first part is about ten times faster than starting
    at the quote of "<family>.", and one pass for all families beats one find per family.
    """
    if not marks:
        return None
    groups: dict[tuple[int, bytes], list[bytes]] = {}
    for mark in marks:
        before, _, after = mark.partition(b".")
        groups.setdefault((len(before), after), []).append(before)
    # A lookbehind has a fixed width: one per length of the part before the dot.
    tries = b"|".join(_behind(befores) + re.escape(after) for (_, after), befores in groups.items())
    screen = _screen([mark.partition(b".")[0] for mark in marks])
    return re.compile(rb"\." + screen + b"(?:" + tries + b")")


def _screen(befores: list[bytes]) -> bytes:
    """One lookbehind on the one or two bytes before the dot, each a byte class: cheap, it
    turns most dots away (most prices' dots follow a quote or a digit no family ends with)
    before the marks are tried one by one."""
    if not all(befores):
        return b""
    classes = [_byte_class({before[-1] for before in befores})]
    if all(len(before) > 1 for before in befores):
        classes.insert(0, _byte_class({before[-2] for before in befores}))
    return b"(?<=" + b"".join(classes) + rb"\.)"


def _byte_class(values: set[int]) -> bytes:
    return b"[" + b"".join(re.escape(bytes([value])) for value in sorted(values)) + b"]"


def _behind(texts: list[bytes]) -> bytes:
    """A lookbehind for any of `texts` (all of one length) followed by the dot."""
    return b"(?<=(?:" + b"|".join(map(re.escape, texts)) + rb")\.)"


def _finder(literal: bytes, data: bytes | bytearray, end: int) -> Callable[[int], int]:
    return lambda at: data.find(literal, at, end)


def _searcher(
    pattern: re.Pattern[bytes], data: bytes | bytearray, end: int
) -> Callable[[int], int]:
    def search(at: int) -> int:
        found = pattern.search(data, at, end)
        return found.start() if found else -1

    return search


def _lines_hit(
    data: bytes | bytearray, start: int, end: int, find: Callable[[int], int]
) -> Iterator[int]:
    """Where each line of data[start:end] in which find(at) finds something begins."""
    at = find(start)
    while at >= 0:
        newline = data.rfind(NEWLINE, start, at)
        yield start if newline < 0 else newline + 1
        stop = data.find(NEWLINE, at, end)
        if stop < 0:
            return
        at = find(stop + 1)


def _line_number(path: Path, offset: int) -> int:
    """The number of the line holding byte `offset`; for messages, so it reads the file again."""
    number, done = 1, 0
    with path.open("rb") as handle:
        while done < offset and (block := handle.read(min(BLOCK_SIZE, offset - done))):
            number += block.count(NEWLINE)
            done += len(block)
    return number
