"""Scale benchmark: years of daily 50,000-offer runs through the real loader, then the reads.

    .venv/bin/python -m benchmarks.scale                    # 3 years x 50,000 offers a day
    .venv/bin/python -m benchmarks.scale --days 90 --offers 20000
    .venv/bin/python -m benchmarks.scale --days 1070 --prefill-days 1055   # years in bulk first
    .venv/bin/python -m benchmarks.scale --days 3650 --prefill-days 3640   # ten years, 3.4 GB
    .venv/bin/python -m benchmarks.scale --reads-only --db FILE           # reads of a kept file

Prints seconds per daily load, file size and bytes per stored price change as history
grows, and the latency of the weekly drift queries, `chipcost prices` and cost per token
over the whole history (docs/performance.md records the figures and the machine).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks import synthetic
from benchmarks.prefill import prefill
from benchmarks.reads import time_reads
from chipcost.core.settings import DEFAULT_OBSERVATIONS_DAYS, observations_days
from chipcost.pipeline.seed import open_warehouse
from chipcost.transform.validate import validate_records
from chipcost.warehouse.db import scalar
from chipcost.warehouse.load import load_run

TARGET_LOAD_SECONDS = 2.0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=3 * 365, help="daily runs to load")
    parser.add_argument("--offers", type=int, default=50_000, help="offers a day")
    parser.add_argument("--db", type=Path, help="warehouse file (default: a temporary one)")
    parser.add_argument(
        "--observations-days",
        default=str(DEFAULT_OBSERVATIONS_DAYS),
        help="observations retention in days, or 'all' (as CHIPCOST_OBSERVATIONS_DAYS)",
    )
    parser.add_argument("--samples", type=int, default=12, help="size samples along the way")
    parser.add_argument(
        "--prefill-days",
        type=int,
        default=0,
        help="write the first N days in bulk (benchmarks/prefill.py), load the rest for real",
    )
    parser.add_argument(
        "--reads-only", action="store_true", help="only time the reads on an existing --db"
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs of each read after its first (the median)"
    )
    return parser.parse_args()


def _size(path: Path) -> int:
    wal = Path(str(path) + ".wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _sample(con, path: Path, day: int) -> dict:
    con.execute("CHECKPOINT")  # sizes are compared between checkpointed files
    return {
        "day": day,
        "bytes": _size(path),
        "history": int(scalar(con, "SELECT count(*) FROM price_history")),
        "observations": int(scalar(con, "SELECT count(*) FROM observations")),
    }


def build_history(
    args: argparse.Namespace, path: Path
) -> tuple[list[float], list[float], list[dict]]:
    """Load `days` synthetic daily runs: wall and CPU seconds of each load, size samples."""
    keep = observations_days(args.observations_days)
    rng = random.Random(11)
    offers = synthetic.offers(args.offers)
    gc.freeze()  # the offer list lives all run long: keep the collector off it
    con = open_warehouse(path)  # seeded, as a collector's first open: cost has figures
    first = min(args.prefill_days, args.days - 1)
    if first > 0:
        begin = time.perf_counter()
        rows = prefill(con, offers, first)
        print(
            f"  prefilled {first} days in bulk: {rows:,} history rows, "
            f"{time.perf_counter() - begin:.0f} s (not through the loader)"
        )
    seconds: list[float] = []
    cpu_seconds: list[float] = []
    samples: list[dict] = []
    every = max(1, (args.days - first) // max(1, args.samples))
    started = time.perf_counter()
    try:
        for day in range(first, args.days):
            if day > first:
                synthetic.advance(offers, rng)
            run = synthetic.run_for(day, offers)
            begin, cpu = time.perf_counter(), time.process_time()
            load_run(con, run, observations_days=keep)
            seconds.append(time.perf_counter() - begin)
            cpu_seconds.append(time.process_time() - cpu)
            if (day + 1 - first) % every == 0 or day + 1 == args.days:
                samples.append(_sample(con, path, day + 1))
                _progress(day + 1, args.days, seconds, samples[-1], started)
    finally:
        con.close()
        gc.unfreeze()
    return seconds, cpu_seconds, samples


def _progress(day: int, days: int, seconds: list[float], sample: dict, started: float) -> None:
    recent = seconds[-30:]
    print(
        f"  day {day:5d}/{days}: load {statistics.mean(recent):.2f} s (last 30), "
        f"{sample['bytes'] / 1e6:8.1f} MB, {sample['history']:>10,} history rows, "
        f"{sample['observations']:>10,} observations, {time.perf_counter() - started:6.0f} s",
        flush=True,
    )


def time_validation(offers: int) -> float:
    """The validation step before every load (pandera over one day's records)."""
    run = synthetic.run_for(0, synthetic.offers(offers))
    records = [r for s in run.sources for r in s.records]
    sources = {r.source: r.provider for r in records}
    begin = time.perf_counter()
    validate_records(records, sources)
    return time.perf_counter() - begin


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _spread(label: str, values: list[float]) -> None:
    last = values[-30:]
    print(
        f"  {label}: mean {statistics.mean(values):.2f}, median {statistics.median(values):.2f}, "
        f"p95 {_percentile(values, 0.95):.2f}, max {max(values):.2f}; last 30 days mean "
        f"{statistics.mean(last):.2f}, max {max(last):.2f}"
    )


def report_loads(
    seconds: list[float], cpu_seconds: list[float], samples: list[dict], settled: int, offers: int
) -> None:
    print(
        f"\ndaily load of {offers:,} offers, {len(seconds)} days "
        f"(target < {TARGET_LOAD_SECONDS} s):"
    )
    _spread("wall seconds", seconds)
    # CPU seconds of all threads: what the load costs when other work shares the machine.
    _spread("CPU seconds ", cpu_seconds)
    # Growth is measured once the observations window is full: from then on only price
    # changes should add bytes.
    first = next((s for s in samples if s["day"] >= settled), None)
    end = samples[-1]
    print(
        f"\nfile: {end['bytes'] / 1e6:.1f} MB, {end['history']:,} price_history rows "
        f"(stored price changes), {end['observations']:,} observations"
    )
    print(f"  bytes per stored price change, whole file: {end['bytes'] / end['history']:.1f}")
    grown = end["history"] - first["history"] if first else 0
    if first is None or grown <= 0:
        print(f"  growth per change: needs samples after day {settled} (observations window full)")
    else:
        slope = (end["bytes"] - first["bytes"]) / grown
        print(f"  growth from day {first['day']} to {end['day']}: {slope:.1f} bytes per change")
    offer_days = offers * end["day"]
    print(
        f"  {offer_days:,} offer-days loaded: {end['history'] / offer_days:.3f} history rows "
        "per offer-day"
    )


def _print_reads(timings: list[tuple[str, int, float, float]], repeat: int) -> None:
    print(f"\nreads over the whole history (seconds: first run, median of {repeat} after):")
    for label, rows, cold, warm in timings:
        print(f"  {label:44s} {cold:6.3f} {warm:6.3f}   ({rows:,} rows)")


def main() -> None:
    args = _arguments()
    workdir = None if args.db else tempfile.TemporaryDirectory(prefix="chipcost-scale-")
    path = args.db or Path(workdir.name) / "scale.duckdb"
    if path.exists() and not args.reads_only:
        raise SystemExit(f"{path} exists: the benchmark builds a new warehouse")
    if args.reads_only:
        print(f"scale benchmark: the reads of {path}, {os.cpu_count()} CPUs")
    else:
        print(
            f"scale benchmark: {args.days} days x {args.offers:,} offers, observations kept "
            f"{args.observations_days} days, {os.cpu_count()} CPUs"
        )
        seconds, cpu_seconds, samples = build_history(args, path)
        keep = observations_days(args.observations_days)
        settled = min(args.prefill_days, args.days - 1) + (keep or 0) + 1
        report_loads(seconds, cpu_seconds, samples, settled, args.offers)
        print(
            f"\nvalidating one day's {args.offers:,} records: {time_validation(args.offers):.2f} s"
        )
    _print_reads(time_reads(path, args.repeat), args.repeat)
    if workdir is not None:
        workdir.cleanup()


if __name__ == "__main__":
    main()
