"""The sample replay: as a user runs it (with and without Prefect), and where its time goes.

    .venv/bin/python -m benchmarks.replay [--archive sample/archive] [--repeat 3] [--no-prefect]

First `chipcost collect --replay` in a new process each time, on a new warehouse: the
one-off path (a thread pool, no Prefect) `--repeat` times, then `--prefect` (the collect
flow on a temporary Prefect server) once. Then, in this process, the same work as plain
calls, split into reading the archive, parsing, validating, opening the warehouse,
loading and the checkpoint at the end. Print lines are `step seconds`: wall, then the
process's CPU (every thread's, DuckDB's too).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEPS: dict[str, float] = {}
STEPS_CPU: dict[str, float] = {}
TIMES: dict[str, list[float]] = {}
CPU: dict[str, list[float]] = {}


@contextmanager
def timed(label: str) -> Iterator[None]:
    begin, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        STEPS[label] = STEPS.get(label, 0.0) + time.perf_counter() - begin
        STEPS_CPU[label] = STEPS_CPU.get(label, 0.0) + time.process_time() - cpu


def as_a_user(archive: Path, work: Path, repeat: int, *, prefect: bool = True) -> None:
    """Wall seconds of whole `chipcost collect --replay` processes, each on a new warehouse."""
    chipcost = str(Path(sys.executable).with_name("chipcost"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(PREFECT_HOME=str(work / "prefect-home"), DO_NOT_TRACK="1")
    runs = [("chipcost collect --replay", [])] * repeat
    runs += [("... --prefect", ["--prefect"])] if prefect else []
    for count, (label, extra) in enumerate(runs):
        db = work / f"user-{count}.duckdb"
        command = [chipcost, "collect", "--replay", str(archive), "--db", str(db), *extra]
        begin, cpu = time.perf_counter(), _children_cpu()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
        TIMES.setdefault(label, []).append(time.perf_counter() - begin)
        # CPU of the command and every process it waited for (its Prefect server): on a
        # shared machine this moves far less than the wall time.
        CPU.setdefault(label, []).append(_children_cpu() - cpu)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def without_prefect(archive: Path, work: Path, *, per_source: bool) -> None:
    """The same replay as plain calls: read and parse per source, validate per run (or per
    source, as before the replay validated a run at once), one open of the warehouse, a
    load per run (its own transaction) and one checkpoint at the end, as the command does."""
    from chipcost import archive as archives
    from chipcost.core.runs import OK, RunResult, SourceResult
    from chipcost.core.settings import Settings
    from chipcost.extract import registry
    from chipcost.pipeline.collect import WarehouseSession, load, new_run_id, now
    from chipcost.transform.validate import validate_batches
    from chipcost.warehouse.db import checkpoint
    from chipcost.warehouse.load import loaded_sources

    settings = Settings(data_dir=work, db_path=work / "plain.duckdb")
    sources = registry()
    names = {name: source.provider for name, source in sources.items()}
    with WarehouseSession(settings) as session, session.held():
        with timed("open the writable warehouse (once)"):
            session.con  # noqa: B018 - opens, migrates and seeds the new file
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
            with timed("already-loaded check"):
                loaded_sources(session.con, run_dir.name)
            with timed("load (staging, SCD2; no checkpoint)"):
                load(session, run)
        with timed("the checkpoint at the end"):
            checkpoint(session.con)  # what the end of `held` does; its own is then a no-op


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--archive", type=Path, default=ROOT / "sample" / "archive")
    parser.add_argument("--repeat", type=int, default=3, help="one-off runs to time")
    parser.add_argument(
        "--validate-per-source", action="store_true", help="validate each source alone"
    )
    parser.add_argument(
        "--no-prefect", action="store_true", help="leave out the run with --prefect (about 30 s)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chipcost-replay-") as work:
        as_a_user(args.archive, Path(work), args.repeat, prefect=not args.no_prefect)
        without_prefect(args.archive, Path(work), per_source=args.validate_per_source)
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"sample replay ({os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load {load})")
    for label, times in TIMES.items():
        each = ", ".join(f"{t:.2f}" for t in times)
        cpu = statistics.median(CPU[label])
        print(
            f"  {label:40s} {statistics.median(times):6.2f} s  (median of {each}); CPU {cpu:.2f} s"
        )
    print("  step by step, in one process (wall, CPU):")
    for label, seconds in STEPS.items():
        print(f"  {label:40s} {seconds:6.2f} s  {STEPS_CPU[label]:6.2f} s")
    total, cpu = sum(STEPS.values()), sum(STEPS_CPU.values())
    print(f"  {'the work, in all':40s} {total:6.2f} s  {cpu:6.2f} s")


if __name__ == "__main__":
    main()
