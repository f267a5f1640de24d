"""A price jump in the bundled sample shows in the run's notes and its Prefect artifact."""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from chipcost.flows.collect import collect
from tests.shared_prefect import artifacts_of

pytestmark = pytest.mark.usefixtures("prefect_server")

JUMP = "1x H100 SXM5 us-central on demand jumped 2.09 → 16.72 (×8.0)"


def test_the_day_6_jump_is_flagged_in_notes_and_artifact(tmp_path, sample_runs):
    archive = tmp_path / "archive"
    for run in sample_runs[4:6]:  # days 5 and 6
        shutil.copytree(run / "spheron", archive / run.name / "spheron")
    db = tmp_path / "w.duckdb"
    state = collect(
        replay=str(archive),
        db=str(db),
        data_dir=str(tmp_path),
        sources=["spheron"],
        return_state=True,
    )
    outcomes = state.result()
    day5, day6 = (o.run.sources[0] for o in outcomes)
    assert not [n for n in day5.notes if "jumped" in n]
    assert [n for n in day6.notes if "jumped" in n] == [
        f"{JUMP} since 2026-11-18: loaded; check the page"
    ]
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = con.execute(
            "SELECT s.notes, p.price_per_hour FROM source_runs s, current_prices p "
            "WHERE s.run_id = ? AND p.source = 'spheron' AND p.instance_type = '1x H100 SXM5' "
            "AND p.region = 'us-central' AND p.pricing_model = 'on_demand'",
            [outcomes[1].run.run_id],
        ).fetchall()
    finally:
        con.close()
    [(notes, price)] = stored
    assert price == 16.72 and any(JUMP in note for note in notes)  # flagged, and loaded

    tables = [a for a in artifacts_of(state) if a.key == "collect-summary"]
    rows = [row for a in tables for row in json.loads(a.data)]
    assert any(JUMP in row["notes"] for row in rows if row["source"] == "spheron")
