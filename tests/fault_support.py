"""A warehouse holding yesterday, and today's run with one faulty source among healthy ones.

The load after a fault is one code path whatever the fault: a case loads the faulty source
beside one healthy source, the smallest of today's; one case loads it beside all of them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import duckdb

from chipcost.core.runs import FAILED, OK, RunResult, SourceResult
from chipcost.core.settings import Settings
from chipcost.extract import registry
from chipcost.pipeline.collect import WarehouseSession, collect_source, load

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample" / "archive"
YESTERDAY, TODAY = sorted(p for p in SAMPLE.iterdir() if p.is_dir())[:2]


@cache
def replayed(run_dir: Path) -> tuple[SourceResult, ...]:
    """Every registered source of one sample run, parsed and validated (reused across tests)."""
    settings = Settings(data_dir=ROOT / "unused", db_path=ROOT / "unused.duckdb")
    return tuple(
        collect_source(source, settings=settings, stamp=run_dir.name, replay_dir=run_dir)
        for source in registry().values()
        if (run_dir / source.name / "manifest.json").is_file()
    )


def _run(run_dir: Path, sources: list[SourceResult]) -> RunResult:
    moment = datetime.now(UTC)
    return RunResult(
        run_id=f"{run_dir.name}-{moment:%H%M%S%f}",
        started_at=moment,
        observed_at=min(s.observed_at for s in sources if s.observed_at),
        mode="live",
        archive_run=run_dir.name,
        sample=True,
        sources=sources,
    )


def preloaded_warehouse(directory: Path) -> Path:
    """A warehouse file holding the first sample run of every source."""
    settings = Settings(data_dir=directory, db_path=directory / "yesterday.duckdb")
    sources = list(replayed(YESTERDAY))
    assert all(s.status == OK for s in sources), [(s.source, s.message) for s in sources]
    with WarehouseSession(settings) as session:
        load(session, _run(YESTERDAY, sources))
    return settings.db_path


def load_day(settings: Settings, result: SourceResult, every_source: bool = False) -> RunResult:
    """Load today's run: `result` in place of its source, beside the smallest other source
    replayed, or every other source replayed."""
    others = [s for s in replayed(TODAY) if s.source != result.source]
    if not every_source:
        others = [min((s for s in others if s.records), key=lambda s: (len(s.records), s.source))]
    run = _run(TODAY, [*others, result])
    with WarehouseSession(settings) as session:
        load(session, run)
    return run


def _rows(db: Path, source: str) -> tuple[list, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        mine = con.execute(
            "SELECT * FROM price_history WHERE source = ? ORDER BY ALL", [source]
        ).fetchall()
        total = con.execute("SELECT count(*) FROM price_history").fetchall()[0][0]
        return mine, total
    finally:
        con.close()


def contained(settings: Settings, result: SourceResult, every_source: bool = False) -> RunResult:
    """The failed source changes nothing it loaded before; the others load (load_day)."""
    assert result.status == FAILED
    assert "Traceback" not in result.message
    before, total_before = _rows(settings.db_path, result.source)
    assert before, f"{result.source} had no history to protect"
    run = load_day(settings, result, every_source)
    after, total_after = _rows(settings.db_path, result.source)
    assert after == before, "a failed source must not withdraw or touch its offers"
    assert total_after >= total_before
    assert run.status == "partial" and len(run.sources) == (
        len(replayed(TODAY)) if every_source else 2
    )
    assert all(s.status == OK for s in run.sources if s.source != result.source), [
        (s.source, s.status, s.message) for s in run.sources if s.status != OK
    ]
    con = duckdb.connect(str(settings.db_path), read_only=True)
    try:
        status = con.execute(
            "SELECT status, message FROM source_runs WHERE run_id = ? AND source = ?",
            [run.run_id, result.source],
        ).fetchall()
    finally:
        con.close()
    assert status == [(FAILED, result.message)]
    return run
