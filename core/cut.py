"""Texts a reject or a note keeps, cut to a bound with a marker saying how much was cut.

A provider's row is stored beside its reason when refused (rejects.row_json), and the notes
of a run in source_runs: one field of 60 MB in an answer must not become 60 MB in every table
it reaches, each run. What is cut is never lost: the payload stays whole in the archive, and
the reject's payload_ref names it there.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from chipcost.core.record import Reject

# The most of a name or an id a reject keeps (its sku, each field of its offer, each text of
# its row): a provider's names are tens of characters (the longest of the sample's: 52).
NAME_CHARS = 1_024
# The most of a longer text one keeps: a row as JSON, a reason, a note (the sample's longest
# row 982 characters, note 521, reason 95).
TEXT_CHARS = 8_192
# The most values of a row a reject keeps (its fields and list items, at every level): the
# sample's rows hold at most a few dozen.
ROW_VALUES = 1_000
# The deepest a row a reject keeps nests: a provider's rows nest a few levels (AWS's terms, six);
# deeper, a container is kept as a marker, so that writing the row as JSON (which recurses a
# level at a time) never meets the interpreter's recursion limit.
ROW_DEPTH = 100
_TOO_DEEP = f"…[nested deeper than {ROW_DEPTH} levels: cut; the payload is archived whole]"
# The marker put where a text was cut, and the most it adds: a text within that much past its
# bound is kept whole, so that a text cut once is never cut again (a reject's, by the parse,
# then as it is stored).
MARKER = "…[{:,} more bytes cut; the payload is archived whole]"
ROOM = len(MARKER.format(10**18))
_CHUNK = 1 << 20


def cut(text: str, most: int = TEXT_CHARS) -> str:
    """`text`, or, when longer than `most` and ROOM, its first `most` characters and a marker
    saying how many bytes (UTF-8) were cut."""
    if len(text) <= most + ROOM:
        return text
    return text[:most] + MARKER.format(_utf8_bytes(text, most))


def _utf8_bytes(text: str, start: int) -> int:
    """The bytes text[start:] takes in UTF-8, counted a slice at a time (never one copy)."""
    if text.isascii():
        return len(text) - start
    return sum(
        len(text[at : at + _CHUNK].encode("utf-8", "surrogatepass"))
        for at in range(start, len(text), _CHUNK)
    )


def _containers(value: Any) -> bool:
    return isinstance(value, dict | list | tuple)


def needs_cut(row: Any, most: int = NAME_CHARS) -> bool:
    """Whether `row` holds a text longer than `most` (a key or a value, at any level), more
    than ROW_VALUES values or levels past ROW_DEPTH: read without recursion, and no further
    than the first found."""
    if isinstance(row, str):
        return len(row) > most
    if not _containers(row):
        return False
    seen, stack = 0, [(row, 1)]
    while stack:
        items, depth = stack.pop()
        for key, value in items.items() if isinstance(items, dict) else enumerate(items):
            seen += not _is_marker(value)
            if seen > ROW_VALUES or (isinstance(key, str) and len(key) > most + ROOM):
                return True
            if isinstance(value, str):
                if len(value) > most + ROOM:
                    return True
            elif _containers(value):
                if depth >= ROW_DEPTH:
                    return True
                stack.append((value, depth + 1))
    return False


def first_long(value: Any, most: int) -> tuple[str, str] | None:
    """The first text longer than `most` in `value` (a key or a value, at any level) and the
    key it is under ("" at the top or in a list), or None: read without recursion. (A bound
    to refuse by, not to cut to: no ROOM.)"""
    if isinstance(value, str):
        return ("", value) if len(value) > most else None
    stack = [value] if _containers(value) else []
    while stack:
        items = stack.pop()
        for key, inner in items.items() if isinstance(items, dict) else enumerate(items):
            named = key if isinstance(key, str) else ""
            if len(named) > most:
                return "", named
            if isinstance(inner, str) and len(inner) > most:
                return named, inner
            if _containers(inner):
                stack.append(inner)
    return None


def cut_row(row: Any, most: int = NAME_CHARS) -> Any:
    """A copy of `row` with every text longer than `most` cut (cut()), no more than
    ROW_VALUES values kept (a container past that ends with a marker of how many of its own
    values were left out) and a container past ROW_DEPTH levels a marker. Lists and tuples
    become lists (the same JSON); any other value is kept as it is. Made without recursion,
    however deep the row."""
    if isinstance(row, str):
        return cut(row, most)
    if not _containers(row):
        return row
    top: dict | list = {} if isinstance(row, dict) else []
    kept, stack = 0, [(row, top, 1)]
    while stack:
        source, copy, depth = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for n, (key, value) in enumerate(items):
            if _is_marker(value):  # of a row cut before: kept as it is
                pass
            elif kept >= ROW_VALUES:
                left = f"…[{len(source) - n:,} more values cut; the payload is archived whole]"
                if isinstance(copy, dict):
                    copy["…"] = left
                else:
                    copy.append(left)
                break
            else:
                kept += 1
            if isinstance(value, str):
                value = cut(value, most)
            elif _containers(value) and depth >= ROW_DEPTH:
                value = _TOO_DEEP
            elif _containers(value):
                inner: dict | list = {} if isinstance(value, dict) else []
                stack.append((value, inner, depth + 1))
                value = inner
            if isinstance(copy, dict):
                copy[cut(key, most) if isinstance(key, str) else key] = value
            else:
                copy.append(value)
    return top


def _is_marker(value: Any) -> bool:
    """A value cut_row put in place of the values it left out or a container too deep."""
    return isinstance(value, str) and value.startswith("…[") and value.endswith(" whole]")


def row_json(row: Any) -> str:
    """What rejects.row_json keeps of a refused row: its JSON (a text row as it is), each text
    in it cut to NAME_CHARS, and the whole to TEXT_CHARS."""
    if isinstance(row, str):
        return cut(row)
    kept = cut_row(row) if needs_cut(row) else row
    return cut(json.dumps(kept, default=lambda value: cut(str(value)), sort_keys=True))


def bounded(reject: Reject) -> Reject:
    """`reject` with the texts it keeps bounded: its reason, its sku and the fields of its
    offer, and its row (cut_row). The same object when nothing is past a bound."""
    names = [reject.sku, *reject.offer.values()]
    if not (
        len(reject.reason) > TEXT_CHARS + ROOM
        or any(isinstance(name, str) and len(name) > NAME_CHARS + ROOM for name in names)
        or needs_cut(reject.row)
    ):
        return reject
    return replace(
        reject,
        reason=cut(reject.reason),
        sku=_name(reject.sku),
        offer={field: _name(value) for field, value in reject.offer.items()},
        row=cut_row(reject.row),
    )


def _name(value: Any) -> Any:
    return cut(value, NAME_CHARS) if isinstance(value, str) else value
