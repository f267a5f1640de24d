"""The texts a reject or a note keeps, cut to their bounds with a marker of the bytes cut."""

from __future__ import annotations

import json

from chipcost.core.cut import (
    _TOO_DEEP,
    NAME_CHARS,
    ROOM,
    ROW_DEPTH,
    ROW_VALUES,
    TEXT_CHARS,
    bounded,
    cut,
    cut_row,
    needs_cut,
    row_json,
)
from chipcost.core.record import Reject


def test_a_text_within_its_bound_is_kept_whole():
    assert cut("H100", 4) == "H100" and cut("", 0) == ""
    # within the room a marker takes: a text cut once is not cut again
    assert cut("H100" + "x" * ROOM, 4) == "H100" + "x" * ROOM
    once = cut("A" * 5000, 100)
    assert cut(once, 100) == once and cut_row({"a": once}, 100) == {"a": once}


def test_a_longer_text_says_how_many_bytes_of_utf_8_were_cut():
    assert cut("ab" + "c" * 198, 2) == "ab…[198 more bytes cut; the payload is archived whole]"
    # "é" is two bytes, "€" three, a lone surrogate (escaped JSON can carry one) three
    assert cut("ab" + "é€\udc80" * 100, 2).startswith("ab…[800 more bytes cut")


def test_a_row_is_cut_text_by_text_and_keeps_its_shape():
    row = {"id": "n1", "gpu_model": "A" * 5000, "tags": ["x" * 2000, 3], "k" * 2000: None}
    kept = cut_row(row)
    assert kept["id"] == "n1" and kept["tags"][1] == 3
    assert (
        kept["gpu_model"]
        == "A" * NAME_CHARS + "…[3,976 more bytes cut; the payload is archived whole]"
    )
    assert kept["tags"][0].startswith("x" * NAME_CHARS + "…[976 more bytes cut")
    assert ("k" * NAME_CHARS + "…[976 more bytes cut; the payload is archived whole]") in kept
    assert row["gpu_model"] == "A" * 5000  # the row itself is left as it came


def test_a_row_of_many_values_keeps_the_first_and_says_how_many_were_left():
    kept = cut_row({"offers": list(range(5 * ROW_VALUES))})
    assert kept["offers"][: ROW_VALUES - 1] == list(range(ROW_VALUES - 1))
    assert (
        kept["offers"][-1]
        == f"…[{4 * ROW_VALUES + 1:,} more values cut; the payload is archived whole]"
    )
    assert cut_row(kept) == kept and not needs_cut(kept)  # cut once, not again


def test_a_row_nested_past_pythons_recursion_limit_is_cut_without_recursing():
    deep: list = ["A" * 5000]
    for _ in range(50_000):
        deep = [deep]
    assert needs_cut(deep)
    stored = row_json(deep)
    assert stored == "[" * ROW_DEPTH + json.dumps(_TOO_DEEP) + "]" * ROW_DEPTH
    assert not needs_cut(cut_row(deep))


def test_the_stored_json_of_a_row_is_bounded_and_reads_as_before_when_short():
    assert row_json({"b": 1, "a": "x"}) == json.dumps({"a": "x", "b": 1})
    assert row_json("a text row") == "a text row"
    long = row_json({f"f{n}": "y" * 900 for n in range(500)})
    assert len(long) < TEXT_CHARS + 100 and "more bytes cut" in long


def test_a_reject_within_every_bound_is_the_same_object():
    reject = Reject("lium", "no price", {"id": "n1"}, "n1", "r/lium/0001.json.gz", {"region": "x"})
    assert bounded(reject) is reject


def test_each_text_of_a_reject_past_its_bound_is_cut():
    huge = "A" * 1_000_000
    reject = Reject(
        "lium", huge, {"gpu_model": huge}, huge, "r/lium/0001.json.gz", {"instance_type": huge}
    )
    kept = bounded(reject)
    assert len(kept.reason) < TEXT_CHARS + 100 and len(kept.sku) < NAME_CHARS + 100
    assert len(kept.offer["instance_type"]) < NAME_CHARS + 100
    assert len(kept.row["gpu_model"]) < NAME_CHARS + 100
    assert kept.payload_ref == "r/lium/0001.json.gz"  # where the whole is
