"""End-to-end timing of the daily job over the sample archive, Prefect's start included.

    .venv/bin/python -m benchmarks.e2e [--archive sample/archive] [--repeat 3]

Times `chipcost collect --replay` as a user runs it (a new process, Prefect's temporary
server started on a fresh PREFECT_HOME), then the same work without Prefect, step by step
(parse and validate per source, load per run), so the difference is what Prefect costs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHIPCOST = str(Path(sys.executable).with_name("chipcost"))


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(
        PREFECT_HOME=str(home),
        DO_NOT_TRACK="1",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_LOGGING_LEVEL="WARNING",
    )
    return env


def time_command(args: list[str], env: dict[str, str]) -> float:
    begin = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - begin
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return seconds


def time_cli(archive: Path, work: Path) -> dict[str, float]:
    """Wall seconds of the import, and of whole collections on a new and a used Prefect home."""
    home = work / "prefect-home"
    env = _environment(home)
    found = {
        "import chipcost CLI": time_command([sys.executable, "-c", "import chipcost.cli.main"], env)
    }
    for label in ("collect, new Prefect home", "collect, Prefect home reused"):
        db = work / f"{len(found)}.duckdb"
        found[label] = time_command(
            [CHIPCOST, "collect", "--replay", str(archive), "--db", str(db)], env
        )
    return found


def time_steps(archive: Path, work: Path) -> tuple[dict[str, float], float]:
    """The same replay without Prefect: seconds per source (all runs) and for the loads."""
    from chipcost.archive import archived_sources, run_directories
    from chipcost.core.runs import RunResult
    from chipcost.core.settings import Settings
    from chipcost.extract import registry
    from chipcost.pipeline.collect import WarehouseSession, collect_source, load, new_run_id, now

    settings = Settings(data_dir=work, db_path=work / "steps.duckdb")
    per_source: dict[str, float] = defaultdict(float)
    loading = 0.0
    for run_dir in run_directories(archive):
        results = []
        for name in archived_sources(run_dir):
            result = collect_source(
                registry()[name], settings=settings, stamp=run_dir.name, replay_dir=run_dir
            )
            per_source[name] += result.seconds
            results.append(result)
        started = now()
        run = RunResult(
            new_run_id(started), started, started, "replay", run_dir.name, True, results
        )
        begin = time.perf_counter()
        with WarehouseSession(settings) as session:
            load(session, run)
        loading += time.perf_counter() - begin
    return dict(per_source), loading


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--archive", type=Path, default=ROOT / "sample" / "archive")
    parser.add_argument("--repeat", type=int, default=1, help="repeat the CLI timings")
    args = parser.parse_args()
    print(f"end-to-end over {args.archive} ({os.cpu_count()} CPUs)")
    cli: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="chipcost-e2e-") as work:
            for label, seconds in time_cli(args.archive, Path(work)).items():
                cli[label].append(seconds)
    for label, values in cli.items():
        print(f"  {label:32s} {statistics.median(values):6.2f} s (median of {len(values)})")
    with tempfile.TemporaryDirectory(prefix="chipcost-e2e-") as work:
        per_source, loading = time_steps(args.archive, Path(work))
    work_seconds = sum(per_source.values()) + loading
    print(f"\nthe same replay without Prefect: {work_seconds:.2f} s")
    for name, seconds in sorted(per_source.items(), key=lambda item: -item[1]):
        print(f"  {name:32s} {seconds:6.2f} s (fetch from archive, parse, validate)")
    print(f"  {'loads (one per run)':32s} {loading:6.2f} s")
    reused = statistics.median(cli["collect, Prefect home reused"])
    print(f"\nPrefect and process start: about {reused - work_seconds:.1f} s of {reused:.1f} s")


if __name__ == "__main__":
    main()
