"""One field of an answer longer than any name: its row refused by the kit, saying so, with
what the reject and the notes keep cut to a few kilobytes, and the notes on GPU names no chip
maps to saying whether their rows were loaded.

QA's case: a lium answer whose `gpu_model` was 60 MB of `A`. The record made of it was refused
by the validator only, its reject kept the model three times over (row, sku, offer), and the
note named it in full as "loaded as 'unknown'": 300 MB more in the warehouse each run. Here 2 MB
of it stands for the 60 (tests/warehouse/test_bounded_texts.py loads one).
"""

from __future__ import annotations

import json

from chipcost.core.cut import NAME_CHARS, TEXT_CHARS, row_json
from chipcost.extract import fluidstack, lium
from chipcost.extract._kit import LONGEST_NAME
from tests.paths import FIXTURES
from tests.sources import payloads_of

LONG = 2_000_000
MARKER = "more bytes cut; the payload is archived whole]"


def lium_answer(**first_node: object) -> object:
    body = json.loads((FIXTURES / "lium" / "nodes.json").read_text())
    body["nodes"][0].update(first_node)
    return payloads_of("lium", lium.NODES_URL)("long.json", data=json.dumps(body).encode())


def kept_bytes(result) -> int:
    """What the parse's rejects and notes would store, as the warehouse stores it."""
    stored = [row_json(r.row) + r.reason + r.sku + json.dumps(r.offer) for r in result.rejects]
    return sum(map(len, stored + result.notes))


def test_a_gpu_model_longer_than_any_name_refuses_its_row_in_a_few_kilobytes():
    recorded = lium.parse([lium_answer()])
    result = lium.parse([lium_answer(gpu_model="A" * LONG)])
    [refused] = result.rejects
    assert refused.reason.startswith(f"GPU model of {LONG:,} characters ('AAAA")
    assert f"longer than any provider's name ({LONGEST_NAME} at most)" in refused.reason
    assert refused.payload_ref.endswith("/lium/long.json")  # where it is whole
    assert refused.row["gpu_model"] == "A" * NAME_CHARS + f"…[{LONG - NAME_CHARS:,} {MARKER}"
    # The other nodes' markets load as before; nothing of the model is in a record or a note.
    assert len(result.records) == len(recorded.records) - 1
    assert not [n for n in result.notes if "loaded as 'unknown'" in n or "AAAA" * 100 in n]
    assert kept_bytes(result) < TEXT_CHARS


def test_an_id_longer_than_any_name_refuses_its_row_not_the_market():
    """A node's id goes into its market's record (its cheapest node): refused there too."""
    result = lium.parse([lium_answer(id="n" * LONG)])
    [refused] = result.rejects
    assert refused.reason.startswith(f"extra 'node' of {LONG:,} characters ('nnnn")
    assert refused.offer["instance_type"] == "1x RTX 5090 32GB"  # its market stays open
    assert not any("nnnn" * 100 in json.dumps(r.extra) for r in result.records)
    assert kept_bytes(result) < TEXT_CHARS


def test_an_unknown_gpu_of_a_refused_row_is_not_said_to_be_loaded():
    """Fluidstack reads the chip before the GPU counts: a row whose counts are all refused
    made no record, so its unknown name was loaded nowhere (on c96d2408 the note said
    "were loaded as 'unknown'" of it); a row that made one still says so."""
    rows = [
        {"gpu_type": "ZORP_9000", "gpu_counts": [0], "price_per_gpu_hr": 1.5, "regions": ["X"]},
        {"gpu_type": "QUUX_7", "gpu_counts": [1], "price_per_gpu_hr": 1.5, "regions": ["X"]},
    ]
    payload = payloads_of("fluidstack", fluidstack.CONFIGURATIONS_URL)
    result = fluidstack.parse([payload("rows.json", data=json.dumps(rows).encode())])
    [loaded] = result.records
    assert loaded.chip == "unknown" and loaded.sku == "QUUX_7"
    names = [n for n in result.notes if "map to no canonical chip" in n]
    assert names == [
        "1 GPU name(s) map to no canonical chip and were loaded as 'unknown': QUUX_7; add them "
        "to core/data/chip_aliases.csv if they name a known chip",
        "1 GPU name(s) map to no canonical chip, in rows refused for another reason (none "
        "loaded): ZORP_9000; add them to core/data/chip_aliases.csv if they name a known chip",
    ]
