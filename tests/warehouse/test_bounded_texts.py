"""What the warehouse keeps of one oversized field: kilobytes, cut with a marker of the bytes
cut, whichever step made the reject or the note; the payload stays whole in the archive.

QA's case: a lium answer (under the 64 MiB answer cap) whose `gpu_model` was 60 MB of `A`
grew the warehouse from 13 to 313 MB (rejects.row_json 120 MB, sku 60, offer 60,
source_runs.notes 60), again each run. Here 8 MB of it stands for the 60.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import duckdb

from chipcost.archive import ArchiveWriter, read_payloads
from chipcost.core.cut import NAME_CHARS, TEXT_CHARS
from chipcost.core.record import Reject
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.extract.lium import NODES_URL
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.collecting import collect
from tests.paths import FIXTURES

STAMP = "2026-11-21T060000Z"
FETCHED = datetime(2026, 11, 21, 6, 0, 1, tzinfo=UTC)
LONG = 8_000_000


def stored(db, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_replayed_answer_with_one_huge_field_stores_kilobytes_not_megabytes(tmp_path):
    body = json.loads((FIXTURES / "lium" / "nodes.json").read_text())
    body["nodes"][0]["gpu_model"] = "A" * LONG
    ArchiveWriter(tmp_path / "archive", STAMP, "lium").write(
        json.dumps(body).encode(), NODES_URL, fetched_at=FETCHED
    )
    db = warehouses.new(tmp_path / "w.duckdb")
    [outcome] = collect(replay=str(tmp_path / "archive"), db=str(db), data_dir=str(tmp_path))
    [lium] = outcome.run.sources
    assert lium.status == OK and len(lium.records) == 3  # the other markets load
    [(reason, ref, kept)] = stored(db, "SELECT reason, payload_ref, row_json FROM rejects")
    assert reason.startswith(f"GPU model of {LONG:,} characters ('AAAA")
    cut = f"…[{LONG - NAME_CHARS:,} more bytes cut; the payload is archived whole]"
    assert json.loads(kept)["gpu_model"] == "A" * NAME_CHARS + cut
    # ... and the payload is there, whole, where the reject says
    [payload] = read_payloads(tmp_path / "archive" / STAMP, "lium")
    assert ref == payload.ref and len(payload.data) > LONG
    [(rejects, notes, names)] = stored(
        db,
        """SELECT
            (SELECT sum(length(reason) + length(sku) + length(payload_ref) + length(row_json)
                + coalesce(length(offer), 0)) FROM rejects),
            (SELECT sum(length(n)) FROM (SELECT unnest(notes) AS n FROM source_runs)),
            (SELECT max(length(instance_type) + length(sku) + length(extra)) FROM observations)""",
    )
    assert rejects < TEXT_CHARS and notes < TEXT_CHARS and names < NAME_CHARS
    said = stored(db, "SELECT notes FROM source_runs")[0][0]
    assert not [n for n in said if "loaded as 'unknown'" in n]


def test_every_text_a_reject_or_note_stores_is_bounded_whichever_step_made_it(con):
    """A reject made past the kit (the validator's, a source parsing its own way) and a note
    added by any step: cut as they are stored."""
    huge = "€" * 3_000_000  # three bytes each in UTF-8
    reject = Reject(
        "lium", f"refused: {huge}", {"gpu_model": huge, "nested": [[huge]]}, huge,
        f"{STAMP}/lium/0001.json.gz", {"instance_type": huge, "region": "global"},
    )  # fmt: skip
    source = SourceResult(
        "lium", "lium", OK, rejects=[reject], observed_at=FETCHED, notes=[f"note {huge}", "ok"]
    )
    load_run(con, RunResult("r1", FETCHED, FETCHED, "replay", STAMP, False, [source]))
    [(reason, sku, row, offer)] = con.execute(
        "SELECT reason, sku, row_json, offer FROM rejects"
    ).fetchall()
    cut = f"…[{3 * (3_000_000 - NAME_CHARS):,} more bytes cut; the payload is archived whole]"
    assert sku == "€" * NAME_CHARS + cut
    assert json.loads(offer) == {"instance_type": "€" * NAME_CHARS + cut, "region": "global"}
    assert len(reason) < TEXT_CHARS + 100 and reason.endswith("the payload is archived whole]")
    assert len(row) < TEXT_CHARS + 100
    [(notes,)] = con.execute("SELECT notes FROM source_runs").fetchall()
    assert len(notes[0]) < TEXT_CHARS + 100 and notes[1] == "ok"
