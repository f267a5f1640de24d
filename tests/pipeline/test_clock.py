"""Time is checked: a payload whose fetched_at is far from its run's stamp (a replay) or ahead
of the clock (live) is refused for its source, and the history keeps what it had.

On main at 368c4bd one source's payloads dated 2099 pruned the observations of every source to
a handful and froze that source's prices; a payload dated years back dated the whole run then.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from chipcost import archive
from chipcost.core.errors import ChipcostError
from chipcost.core.payload import Payload
from chipcost.core.runs import FAILED, OK, RunResult
from chipcost.core.settings import load_settings
from chipcost.pipeline.clock import check_dates
from chipcost.pipeline.collect import WarehouseSession, collect_source, load, select_sources
from chipcost.warehouse.db import connect
from tests import warehouses
from tests.paths import ROOT

SAMPLE = ROOT / "sample" / "archive"
RUNS = sorted(p for p in SAMPLE.iterdir() if p.is_dir())
SKEWED = "lium"


def _replay(settings, run_dir: Path) -> RunResult:
    names = set(archive.archived_sources(run_dir))
    results = [
        collect_source(s, settings=settings, stamp=run_dir.name, replay_dir=run_dir)
        for s in select_sources(None)
        if s.name in names
    ]
    when = min(r.observed_at for r in results if r.observed_at and r.status == OK)
    run = RunResult(f"{run_dir.name}-t", when, when, "replay", run_dir.name, True, results)
    with WarehouseSession(settings) as session:
        load(session, run)
    return run


def _dated(run_dir: Path, source: str, fetched_at: str, tmp_path: Path) -> Path:
    """A copy of a sample run whose `source` payloads say they were fetched at `fetched_at`."""
    copy = tmp_path / "archive" / run_dir.name
    shutil.copytree(run_dir, copy)
    manifest = copy / source / "manifest.json"
    body = json.loads(manifest.read_text())
    for entry in body["payloads"]:
        entry["fetched_at"] = fetched_at
    manifest.write_text(json.dumps(body))
    return copy


def _counts(path: Path) -> tuple[int, dict[str, float]]:
    con = connect(path, read_only=True)
    try:
        observations = con.execute("SELECT count(*) FROM observations").fetchone()[0]
        prices = con.execute(
            "SELECT instance_type || pricing_model, price_per_hour FROM current_prices "
            f"WHERE source = '{SKEWED}'"
        ).fetchall()
    finally:
        con.close()
    return observations, dict(prices)


@pytest.mark.parametrize("fetched_at", ["2099-01-01T00:00:00+00:00", "2019-05-01T00:00:00+00:00"])
def test_a_payload_dated_far_from_its_run_is_refused_and_the_history_keeps_what_it_had(
    tmp_path, fetched_at
):
    # The sample's first run, replayed once for the test run (tests/warehouses.py).
    db = warehouses.sample(tmp_path / "w.duckdb", first=1)
    settings = load_settings(db=db, data_dir=tmp_path)
    before_observations, before_prices = _counts(settings.db_path)
    run = _replay(settings, _dated(RUNS[1], SKEWED, fetched_at, tmp_path))
    [skewed] = [s for s in run.sources if s.source == SKEWED]
    assert skewed.status == FAILED
    assert fetched_at[:10] in skewed.message and RUNS[1].name in skewed.message
    assert all(s.status == OK for s in run.sources if s.source != SKEWED)
    observations, prices = _counts(settings.db_path)
    assert observations > before_observations  # nothing pruned: the other sources added theirs
    assert prices == before_prices  # the skewed source's prices are the day before's
    assert run.observed_at.year == 2026


def _payload(fetched_at: datetime) -> Payload:
    return Payload(b"{}", "https://example.test/x", fetched_at, "p", "run/src/p")


def test_a_live_payload_ahead_of_the_clock_is_refused_naming_both():
    now = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
    check_dates("demo", "2026-11-23T060000Z", [_payload(now + timedelta(minutes=5))], now=now)
    with pytest.raises(ChipcostError, match="this machine's clock says 2026-11-23 06:00:00 UTC"):
        check_dates("demo", "2026-11-23T060000Z", [_payload(now + timedelta(days=1))], now=now)


@pytest.mark.parametrize(
    ("offset", "refused"),
    [(timedelta(minutes=-5), False), (timedelta(hours=11), False),
     (timedelta(minutes=-11), True), (timedelta(hours=13), True)],
)  # fmt: skip
def test_a_replayed_payload_must_fall_within_its_runs_hours(offset, refused):
    stamp = "2026-11-14T060000Z"
    moment = archive.parse_stamp(stamp)
    if refused:
        with pytest.raises(ChipcostError, match="its run 2026-11-14T060000Z began at"):
            check_dates("demo", stamp, [_payload(moment + offset)])
    else:
        check_dates("demo", stamp, [_payload(moment + offset)])
