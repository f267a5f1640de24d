"""chipcost's one terminal table writer: the columns that matter kept, cells wrapped to fit.

Every command that prints a table lays it out here: a header, a rule, a line (or a few) per
row, columns three spaces apart. A command names its columns in order of importance: the
essential ones are kept at any width, the others only while the table fits. A cell is kept
whole (an id, a stamp, a label, a number): what does not fit the row's line is folded under
it, column by column, never cut. Only a column of prose (`prose`: a message, a title) wraps,
at spaces, then after '-', '_', '/' or '.', the widest first.

Plain Python: cells are text, never markup (a provider's "[x]" is shown as it is), with a
style only where a renderer gives one (`Styled`). chipcost.cli.consoles writes the laid-out
lines, with their styles on a terminal and as text elsewhere.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from chipcost.cli.formats import numeric_columns, table_value
from chipcost.core.clean import printable


class Measured(Protocol):
    """What a table is laid out to: a stream's width (chipcost.cli.consoles.Screen)."""

    @property
    def width(self) -> int: ...


@dataclass(frozen=True)
class Styled:
    """A piece of a cell in a style chipcost.cli.consoles writes ("yellow", "bold red")."""

    text: str
    style: str


Cell = str | Styled | tuple[str | Styled, ...]
Span = tuple[str, str]  # text, style ("" for none)
Line = list[Span]

# Between two columns.
GAP = 3
# A text column is not narrowed below this (or its widest cell, when narrower).
NARROWEST = 6
# Words up to this long are not broken while another column can give room.
WORD_CAP = 12
HEADER_STYLE = "bold"


def plain(value: object) -> str:
    """Provider or user text as a cell: control and bidi characters out."""
    return printable(str(value))


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    numeric: bool = False
    essential: bool = False  # kept at any width; optional columns are left out to fit
    # The value the table is read (ranked) by, a price: on the row's line at any width, the
    # other columns folded under it first (an id too wide beside it too, whole). Essential.
    primary: bool = False
    # Sentences (a message, a title): wrapped to the column's width. Every other cell is whole,
    # on one line (an id, a stamp, a label): columns are folded under the row to make room.
    prose: bool = False
    # Prose beside the row (a description): shown with --wide only, and the table says so
    # (Fitted.dropped); every other column is kept, on the row's line or folded under it.
    detail: bool = False


@dataclass(frozen=True)
class Fitted:
    lines: list[Line]
    dropped: list[str]  # headers of the detail columns left out (--wide shows them)
    # The keys of the columns on each row's line (the others are folded under it).
    first: tuple[str, ...] = ()

    @property
    def width(self) -> int:
        return max((sum(cell_len(t) for t, _ in line) for line in self.lines), default=0)

    def text(self) -> str:
        """The table as plain text, a line each."""
        return "\n".join("".join(t for t, _ in line) for line in self.lines)


def cell_len(text: str) -> int:
    """Terminal columns `text` takes: East Asian wide characters two, combining marks none."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def _spans(cell: Cell) -> Line:
    if isinstance(cell, str):
        return [(cell, "")]
    if isinstance(cell, Styled):
        return [(cell.text, cell.style)]
    return [_spans(piece)[0] for piece in cell]


def slice_spans(spans: Line, start: int, end: int) -> Line:
    """The characters start:end of the spans' joined text, each in its style."""
    out, at = [], 0
    for text, style in spans:
        lo, hi = max(start - at, 0), min(end - at, len(text))
        if lo < hi:
            out.append((text[lo:hi], style))
        at += len(text)
    return out


# A word longer than its column breaks after one of these when one is in its second half.
_BREAKS = re.compile(r"[-_/.]")


def wrapped(text: str, width: int, *, break_words: bool = True) -> list[tuple[int, int]]:
    """`text` as lines of at most `width` columns, each as (start, end) in `text`: broken at
    line breaks and spaces, a longer word after '-', '_', '/' or '.', else where it reaches
    the width; without `break_words` a longer word (a URL) is a whole line of its own."""
    lines: list[tuple[int, int]] = []
    at = 0
    ascii_text = text.isascii()  # once: each line's checks then read only that line's text
    for part in text.split("\n"):
        start, end = at, at + len(part)
        at = end + 1
        while _fits(text, start, end, width, ascii_text) < end:
            cut = _cut(text, start, end, width, break_words, ascii_text)
            lines.append((start, cut))
            start = cut
            while start < end and text[start] == " ":
                start += 1
        lines.append((start, end))
    return [(s, e - (len(text[s:e]) - len(text[s:e].rstrip(" ")))) for s, e in lines]


def _fits(text: str, start: int, end: int, width: int, ascii_text: bool) -> int:
    """Where the text from `start` passes `width` columns (`end` if it never does), reading
    no further than that: a line's checks cost its own length, not the rest of the cell's
    (a 10-million-character cell took 51 s to wrap when each line measured all that followed)."""
    if ascii_text:
        return min(end, start + width)
    used = 0
    for at in range(start, end):
        char = text[at]
        if unicodedata.combining(char):
            continue
        used += 2 if unicodedata.east_asian_width(char) in "WF" else 1
        if used > width:
            return at
    return end


def _cut(text: str, start: int, end: int, width: int, break_words: bool, ascii_text: bool) -> int:
    """Where a line starting at `start` ends: the last space within `width`, else a break
    after '-', '_', '/' or '.' in the second half, else at `width`."""
    fits = _fits(text, start, end, width, ascii_text)
    fits = max(fits, start + 1)  # a wide character in a one-column cell still moves on
    if fits == end:
        return end
    space = text.rfind(" ", start, fits + 1)
    if space > start:
        return space
    if not break_words:
        space = text.find(" ", fits, end)
        return end if space < 0 else space
    mark = max((m.end() for m in _BREAKS.finditer(text, start, fits)), default=start)
    return mark if mark - start > width // 2 else fits


def _natural(texts: Sequence[str]) -> int:
    return max((cell_len(line) for t in texts for line in t.split("\n")), default=0)


def _longest_word(texts: Sequence[str]) -> int:
    return max((cell_len(word) for t in texts for word in t.split()), default=0)


# A header's words: broken at spaces, and a compound after its hyphen ("flex-" over "start"),
# never inside a word.
_HEAD_WORD = re.compile(r"[^\s-]*-+|[^\s-]+")


def header_words(header: str) -> list[re.Match[str]]:
    return list(_HEAD_WORD.finditer(header))


def _longest_head_word(header: str) -> int:
    return max((cell_len(m[0]) for m in header_words(header)), default=0)


def floor(column: Column, header: str, texts: Sequence[str], level: int = 0) -> int:
    """The narrowest a column gets at each level, tried in turn until the table fits: a
    column not of prose never below its widest cell; prose at level 0 no word broken (up to
    WORD_CAP columns of it), at 1 and 2 down to NARROWEST. At every level a
    header's words are whole (before level 2 each word; at 2 a compound may break after its
    hyphen): a header is never broken inside a word."""
    widest = _natural(texts)
    head_word = _longest_word([header]) if level < 2 else _longest_head_word(header)
    if not column.prose:
        return max(widest, head_word, 1)
    natural = max(widest, cell_len(header))
    if level == 0:
        return min(natural, max(min(_longest_word(texts), WORD_CAP), head_word))
    return min(natural, max(NARROWEST, head_word))


def header_wrapped(header: str, width: int) -> list[tuple[int, int]]:
    """A header as lines of at most `width` columns, as (start, end): its words packed a line
    at a time, a compound wider than `width` broken after its hyphen, never inside a word (a
    word wider than `width` is a line of its own)."""
    units: list[tuple[int, int]] = []
    for word in re.finditer(r"\S+", header):
        if cell_len(word[0]) <= width:
            units.append(word.span())
        else:
            units += [(word.start() + m.start(), word.start() + m.end())
                      for m in header_words(word[0])]  # fmt: skip
    lines: list[tuple[int, int]] = []
    for unit_start, unit_end in units:
        if lines and cell_len(header[lines[-1][0] : unit_end]) <= width:
            lines[-1] = (lines[-1][0], unit_end)
        else:
            lines.append((unit_start, unit_end))
    return lines or [(0, 0)]


def widths_within(naturals: list[int], floors: list[int], width: int) -> list[int]:
    """Each column's width: its natural one, the widest narrowed first until the table fits
    `width` or every column is at its floor."""
    widths = list(naturals)
    excess = sum(widths) + GAP * (len(widths) - 1) - width
    while excess > 0:
        narrowable = [i for i, w in enumerate(widths) if w > floors[i]]
        if not narrowable:
            break
        widest = max(narrowable, key=widths.__getitem__)
        second = max((widths[i] for i in narrowable if i != widest), default=floors[widest])
        step = min(excess, widths[widest] - max(second, floors[widest]) or 1)
        widths[widest] -= step
        excess -= step
    return widths


def lay_out(
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, Cell]],
    width: int | None,
    *,
    header: bool = True,
) -> list[Line]:
    """The table's lines; cells wrapped where the columns are wider than `width` (None: never)."""
    heads, groups, span = _laid(columns, rows, width, header=header)
    if not columns:
        return []
    rule = [[("─" * span, "")]] if header else []
    return [*heads, *rule, *(line for group in groups for line in group)]


def _width(line: Line) -> int:
    return sum(cell_len(t) for t, _ in line)


def _laid(
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, Cell]],
    width: int | None,
    *,
    header: bool = True,
) -> tuple[list[Line], list[list[Line]], int]:
    """The header's lines, each row's lines and the columns' span (gaps included), each
    column as wide as `width` allows."""
    if not columns:
        return [], [], 0
    spans = [[_spans(row[c.key]) for c in columns] for row in rows]
    texts = [["".join(t for t, _ in cell) for cell in line] for line in spans]
    heads = [c.header for c in columns] if header else [""] * len(columns)
    naturals = [_natural([heads[i], *(t[i] for t in texts)]) for i in range(len(columns))]
    widths = naturals
    if width is not None:
        for level in (0, 1, 2):  # a word is broken only where nothing else fits
            floors = [
                floor(c, heads[i], [t[i] for t in texts], level) for i, c in enumerate(columns)
            ]
            widths = widths_within(widths, floors, width)
    head_lines: list[Line] = []
    if header:
        cells = [[(h, HEADER_STYLE)] for h in heads]
        head_lines = _row_lines(columns, cells, heads, widths, wrap=header_wrapped)
    groups = [
        _row_lines(columns, cells, line_texts, widths)
        for cells, line_texts in zip(spans, texts, strict=True)
    ]
    return head_lines, groups, sum(widths) + GAP * (len(widths) - 1)


def _row_lines(
    columns: Sequence[Column],
    cells: Sequence[Line],
    texts: Sequence[str],
    widths: Sequence[int],
    wrap: Callable[[str, int], list[tuple[int, int]]] = wrapped,
) -> list[Line]:
    parts = [wrap(t, w) for t, w in zip(texts, widths, strict=True)]
    lines = []
    for n in range(max(len(p) for p in parts)):
        line: Line = []
        for i, column in enumerate(columns):
            if i:
                line.append((" " * GAP, ""))
            start, end = parts[i][n] if n < len(parts[i]) else (0, 0)
            piece = slice_spans(cells[i], start, end)
            pad = (" " * (widths[i] - cell_len(texts[i][start:end])), "")
            line += [pad, *piece] if column.numeric else [*piece, pad]
        lines.append(_rstripped(line))
    return lines


def _rstripped(line: Line) -> Line:
    while line and not line[-1][0].strip() and not line[-1][1]:
        line = line[:-1]
    if line and not line[-1][1]:
        line[-1] = (line[-1][0].rstrip(" "), "")
    return line


def fit_table(
    console: Measured | int,
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, Cell]],
    *,
    title: str | None = None,
    keep_order: Sequence[str] = (),
    wide: bool = False,
) -> Fitted:
    """The essential columns, then each optional one in `keep_order` (keys, then the rest in
    their order) on the row's line while the table still fits the width without wrapping;
    `wide` keeps every column on one line, unwrapped, however wide. When the essential
    columns do not fit even with their prose wrapped a word a line, those named in
    `keep_order` leave the line, the last named first, then the others, the last declared
    first; a `primary` column (the price the table is read by) never does. An optional column
    takes the line's room only while no essential column with a value has left it: a
    secondary price is never on the row's line where the price it stands beside is not. A
    column that leaves the line but
    holds a value in a row shown is folded, never dropped: under each row, indented, a second
    line holds those columns (headed by a second header line); a column with no value in any
    row is left out, having nothing to say."""
    width = console if isinstance(console, int) else console.width
    titled: list[Line] = [[(title, "")]] if title else []
    if wide:
        return Fitted(titled + lay_out(columns, rows, None), [], tuple(c.key for c in columns))
    details = [c.header for c in columns if c.detail]
    columns = [c for c in columns if not c.detail]
    texts = {c.key: ["".join(t for t, _ in _spans(r[c.key])) for r in rows] for c in columns}
    natural = {c.key: _natural([c.header, *texts[c.key]]) for c in columns}
    least = {c.key: floor(c, c.header, texts[c.key]) for c in columns}
    has_values = {c.key for c in columns if any(t.strip() for t in texts[c.key])}

    def total(keys: set[str], of: dict[str, int]) -> int:
        return sum(of[k] for k in keys) + GAP * (len(keys) - 1)

    essential = {c.key for c in columns if c.essential or c.primary}
    primary = {c.key for c in columns if c.primary}
    kept = set(essential)
    droppable = [k for k in keep_order if k in essential - primary]
    while droppable and total(kept, least) > width:
        kept.discard(droppable.pop())
    # Cells are never cut: while the essential columns at their narrowest (each whole cell
    # whole) are still wider than the width, the last declared leaves the row's line, to be
    # folded under it; the primary one stays, an id too wide beside it folded whole.
    last_first = [c.key for c in reversed(columns) if c.key in kept - primary]
    while last_first and len(kept) > 1 and total(kept, least) > width:
        kept.discard(last_first.pop(0))
    optional = [k for k in keep_order if k in natural and k not in essential]
    optional += [c.key for c in columns if c.key not in essential and c.key not in optional]

    def fill() -> None:
        """The room the row's line has left: the optional columns that fit it whole, once
        every essential column with a value is on it (never ahead of one folded)."""
        if essential & has_values <= kept:
            for key in optional:
                if key not in kept and total(kept | {key}, natural) <= width:
                    kept.add(key)

    fill()
    if has_values and total(has_values, natural) <= width < total(kept | has_values, natural):
        # Every column with a value fits one line, unwrapped, once those without one (an
        # essential one too: it says nothing in the rows shown) give up their room.
        kept = set(has_values)
    elif has_values - kept:  # a second line a row: the first need not wrap to hold more
        while droppable and total(kept, natural) > width:
            kept.discard(droppable.pop())
        fill()
    shown = [c for c in columns if c.key in kept]
    folded = [c for c in columns if c.key not in kept and c.key in has_values]
    if not shown or not folded:  # one line a row (none of the columns fit: all on it)
        one = shown or folded
        return Fitted(titled + lay_out(one, rows, width), details, tuple(c.key for c in one))
    first = tuple(c.key for c in shown)
    return Fitted(titled + _two_lines(shown, folded, rows, width), details, first)


# How far a row's second line (its folded columns) is indented under it.
FOLD_INDENT = 2


def _two_lines(
    shown: Sequence[Column],
    folded: Sequence[Column],
    rows: Sequence[Mapping[str, Cell]],
    width: int,
) -> list[Line]:
    """A table of two lines a row: the columns that fit on the first, the folded ones on an
    indented second (left out where all of a row's folded cells are blank); folded columns
    too wide for one line, their headers' words whole, go on to a third, and so on."""
    heads, groups, span = _laid(shown, rows, width)
    pad: Span = (" " * FOLD_INDENT, "")
    parts = _parts(folded, rows, width)
    laid = [_laid(part, rows, width - FOLD_INDENT) for part in parts]
    lines = [*heads, *([pad, *line] for more_heads, _, _ in laid for line in more_heads)]
    lines.append([("─" * max(span, *(FOLD_INDENT + s for _, _, s in laid)), "")])
    for n, (group, row) in enumerate(zip(groups, rows, strict=True)):
        lines += group
        for part, (_, more_groups, _) in zip(parts, laid, strict=True):
            if any(_text(row[c.key]).strip() for c in part):
                lines += [[pad, *line] for line in more_groups[n]]
    return lines


def _parts(
    folded: Sequence[Column], rows: Sequence[Mapping[str, Cell]], width: int
) -> list[list[Column]]:
    """The folded columns in lines that each fit `width` under the indent at their floors
    (every header word whole), in order."""
    room = width - FOLD_INDENT
    parts: list[list[Column]] = [[]]
    used = 0
    for column in folded:
        least = floor(column, column.header, [_text(r[column.key]) for r in rows], level=2)
        if parts[-1] and used + GAP + least > room:
            parts.append([])
            used = 0
        used += (GAP if parts[-1] else 0) + least
        parts[-1].append(column)
    return parts


def _text(cell: Cell) -> str:
    return "".join(t for t, _ in _spans(cell))


def rows_table(
    columns: Sequence[str], rows: Sequence[Sequence[object]], width: int
) -> Fitted | None:
    """A query's rows as a table no wider than `width` (numbers right-aligned), or None when
    it would be wider (one column: wrapped to the width)."""
    right = numeric_columns(rows, len(columns))
    keys = [str(i) for i in range(len(columns))]
    table = [
        Column(key, plain(name), numeric=numeric, essential=True)
        for key, name, numeric in zip(keys, columns, right, strict=True)
    ]
    cells = [dict(zip(keys, (plain(table_value(v)) for v in row), strict=True)) for row in rows]
    fitted = fit_table(width, table, cells, wide=len(columns) > 1)
    return None if len(columns) > 1 and fitted.width > width else fitted
