"""Where the sample replay's time goes: Prefect's server start, its flow and task runs, the work.

    .venv/bin/python -m benchmarks.replay [--archive sample/archive]

In one process, step by step: importing Prefect and the flow; starting the temporary
server (as `chipcost collect` does); the replay through the flow on that server; then the
same work without Prefect, split into reading the archive, parsing, validating, opening the
warehouse and loading. The flow's time minus the work is the flow and task runs' overhead.
Print lines are `step seconds`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEPS: dict[str, float] = {}


@contextmanager
def timed(label: str) -> Iterator[None]:
    begin = time.perf_counter()
    try:
        yield
    finally:
        STEPS[label] = STEPS.get(label, 0.0) + time.perf_counter() - begin


def through_prefect(archive: Path, work: Path) -> None:
    """Import, server start, the flow run, and the server's stop, each timed."""
    with timed("import prefect and the collect flow"):
        from chipcost.flows.collect import run_collect
    from chipcost.cli.prefect_server import temporary_server

    server = temporary_server()
    with timed("start the temporary Prefect server"):
        server.__enter__()
    try:
        with timed("replay through the flow"):
            run_collect(replay=str(archive), db=str(work / "flow.duckdb"), data_dir=str(work))
    finally:
        with timed("drain logs, stop the server"):
            server.__exit__(None, None, None)


def without_prefect(archive: Path, work: Path, *, per_source: bool) -> None:
    """The same replay as plain calls: read and parse per source, validate per run (or per
    source, as before the replay validated a run at once), open and load per run."""
    from chipcost import archive as archives
    from chipcost.core.runs import OK, RunResult, SourceResult
    from chipcost.core.settings import Settings
    from chipcost.extract import registry
    from chipcost.pipeline.collect import load, new_run_id, now
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.transform.validate import validate_batches
    from chipcost.warehouse.load import loaded_sources

    settings = Settings(data_dir=work, db_path=work / "plain.duckdb")
    sources = registry()
    names = {name: source.provider for name, source in sources.items()}
    for run_dir in archives.run_directories(str(archive)):
        results, parsed = [], []
        for name in archives.archived_sources(run_dir):
            with timed("read the archive"):
                payloads = archives.read_payloads(run_dir, name)
            with timed("parse"):
                parsed.append(sources[name].parse(payloads))
            result = SourceResult(source=name, provider=sources[name].provider, status=OK)
            result.observed_at = min(p.fetched_at for p in payloads)
            result.seen_keys = {r.offer_key() for r in parsed[-1].records}
            results.append(result)
        with timed("validate (pandera)"):
            batches = [p.records for p in parsed]
            if per_source:
                valid = [validate_batches([b], names)[0] for b in batches]
            else:
                valid = validate_batches(batches, names)
        for result, checked in zip(results, valid, strict=True):
            result.records, result.frame = checked.records, checked.frame
        started = now()
        stamp = run_dir.name
        run = RunResult(new_run_id(started), started, started, "replay", stamp, True, results)
        session = _Session(settings)
        with timed("open the writable warehouse (one per run)"):
            session.con = open_warehouse(settings.db_path)
        with timed("already-loaded check"):
            loaded_sources(session.con, run_dir.name)
        with timed("load (staging, SCD2, checkpoint)"):
            load(session, run)
        session.con.close()


class _Session:
    """What `load` reads of a WarehouseSession."""

    def __init__(self, settings) -> None:
        self.settings = settings
        self.con = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--archive", type=Path, default=ROOT / "sample" / "archive")
    parser.add_argument(
        "--validate-per-source", action="store_true", help="validate each source alone"
    )
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "CRITICAL")
    begin = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="chipcost-replay-") as work:
        through_prefect(args.archive, Path(work))
        flow = STEPS["replay through the flow"]
        without_prefect(args.archive, Path(work), per_source=args.validate_per_source)
    total = time.perf_counter() - begin
    print(f"sample replay, step by step ({os.cpu_count()} CPUs, Python {sys.version.split()[0]})")
    for label, seconds in STEPS.items():
        print(f"  {label:40s} {seconds:6.2f} s")
    work_seconds = sum(s for label, s in STEPS.items() if label not in _PREFECT_STEPS)
    print(f"  {'the work without Prefect, in all':40s} {work_seconds:6.2f} s")
    print(f"  {'flow and task-run overhead':40s} {flow - work_seconds:6.2f} s")
    print(f"  {'this script, whole':40s} {total:6.2f} s")


_PREFECT_STEPS = {
    "import prefect and the collect flow",
    "start the temporary Prefect server",
    "replay through the flow",
    "drain logs, stop the server",
}


if __name__ == "__main__":
    main()
