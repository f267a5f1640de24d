"""Hypothesis strategies that damage recorded payloads the way networks and providers do."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import strategies as st

# Values a provider might send where another type was expected.
ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", "-1", "0", "0.0000", "1e309", "NaN", "Infinity", "N/A", "$1,234.50"]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)
JSON_OPS = ("delete", "retype", "swap", "duplicate")


def _container(value: Any) -> tuple[Any, bool] | None:
    """A dict or list to walk into, and whether it was a JSON string (AWS nests those)."""
    if isinstance(value, dict | list):
        return value, False
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            decoded = json.loads(value)
        except ValueError:
            return None
        if isinstance(decoded, dict | list):
            return decoded, True
    return None


def _keys(container: dict | list) -> list:
    return list(container) if isinstance(container, dict) else list(range(len(container)))


def _apply(copy: dict | list, key: Any, keys: list, draw: st.DrawFn) -> None:
    op = draw(st.sampled_from(JSON_OPS))
    if op == "delete":
        del copy[key]
    elif op == "retype":
        copy[key] = draw(ODD_VALUES)
    elif op == "swap":
        other = draw(st.sampled_from(keys))
        copy[key], copy[other] = copy[other], copy[key]
    elif isinstance(copy, list):
        copy.insert(key, copy[key])
    else:
        copy[key] = [copy[key], copy[key]]


@st.composite
def mutated_json(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """`value` with one change (delete, retype, swap, duplicate) at the end of a random path."""
    found = _container(value)
    if found is None:
        return draw(ODD_VALUES)
    container, was_text = found
    keys = _keys(container)
    if not keys:
        return draw(ODD_VALUES)
    copy = dict(container) if isinstance(container, dict) else list(container)
    key = draw(st.sampled_from(keys))
    deeper = _container(copy[key]) is not None and depth < 16
    if deeper and draw(st.integers(0, 4)) > 0:
        copy[key] = draw(mutated_json(copy[key], depth + 1))
    else:
        _apply(copy, key, keys, draw)
    return json.dumps(copy, default=_odd) if was_text else copy


def _odd(value: Any) -> str:
    return repr(value)


class Damaged(bytes):
    """Damaged payload bytes that print short in a failing example."""

    def __repr__(self) -> str:
        return f"Damaged({len(self)} bytes: {bytes(self[:80])!r}...)"


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """Raw damage: flipped bytes, a truncation, a cut-out slice, or nothing at all."""
    kind = draw(st.sampled_from(("flip", "truncate", "splice", "empty", "json")))
    size = len(data)
    if kind == "empty" or size == 0:
        return Damaged(b"")
    if kind == "truncate":
        return Damaged(data[: draw(st.integers(0, size - 1))])
    if kind == "splice":
        start = draw(st.integers(0, size - 1))
        cut = draw(st.integers(1, min(4096, size - start)))
        return Damaged(data[:start] + data[start + cut :])
    if kind == "json":
        try:
            document = json.loads(data)
        except ValueError:
            kind = "flip"
        else:
            changed = draw(mutated_json(document))
            return Damaged(json.dumps(changed, default=_odd, allow_nan=True).encode("utf-8"))
    damaged = bytearray(data)
    for _ in range(draw(st.integers(1, 8))):
        position = draw(st.integers(0, size - 1))
        damaged[position] ^= draw(st.integers(1, 255))
    return Damaged(damaged)


def finite_or_none(value: float | None) -> bool:
    return value is None or (isinstance(value, float | int) and math.isfinite(value))
