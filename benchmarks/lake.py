"""Lake vs file warehouse: daily loads, reads, 20 readers during a load, a fanned-out backfill.

    .venv/bin/python -m benchmarks.lake                          # 3 years x 50,000 offers a day
    .venv/bin/python -m benchmarks.lake --days 365 --offers 20000 --versions 6

Each warehouse gets the same synthetic history (benchmarks/synthetic.py): the first days
written in bulk (benchmarks/prefill.py), the last `--loads` days through the real loader.
Then the reads `chipcost prices` and the weekly report make, then one more daily load in
another process while `--readers` threads each open the warehouse read-only and run
`chipcost prices --chip H100-SXM` until it commits. The lake's catalog lives in a throwaway
PostgreSQL 15 cluster started here (tests/pg_server.py). Last, benchmarks/lake_backfill.py
backfills synthetic price list versions with 1, 2 and 4 workers (`--workers`). `--repeat`
sets how many times each read runs after its first (5: the median of 5).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

import duckdb

from benchmarks import synthetic
from benchmarks.lake_backfill import WORKERS
from benchmarks.prefill import prefill
from benchmarks.reads import time_reads
from chipcost.core.runs import RunResult
from chipcost.core.settings import Warehouse
from chipcost.warehouse.db import connect, maintain
from chipcost.warehouse.load import load_run
from chipcost.warehouse.prices import per_chip_prices


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=3 * 365, help="days of history")
    parser.add_argument("--offers", type=int, default=50_000, help="offers a day")
    parser.add_argument("--loads", type=int, default=5, help="last days through the loader")
    parser.add_argument("--readers", type=int, default=20, help="readers during a load")
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs of each read after its first (the median)"
    )
    parser.add_argument("--versions", type=int, default=8, help="backfill: price list versions")
    parser.add_argument("--file-mb", type=int, default=16, help="backfill: MB per region file")
    parser.add_argument(
        "--pace-mb", type=float, default=8.0, help="backfill: MB/s per download (0: unpaced)"
    )
    parser.add_argument(
        "--workers", type=int, nargs="+", default=list(WORKERS), help="backfill: worker counts"
    )
    parser.add_argument("--skip-backfill", action="store_true")
    return parser.parse_args()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """No progress bars from long queries: they would fill the benchmark's output."""
    con.execute("SET enable_progress_bar = false")
    return con


def read_once(warehouse: Warehouse) -> float:
    """`chipcost prices --chip H100-SXM` as a command does it: open, query, close."""
    begin = time.perf_counter()
    con = quiet(connect(warehouse, read_only=True))
    try:
        per_chip_prices(con, chips=["H100-SXM"])
    finally:
        con.close()
    return time.perf_counter() - begin


def build(
    warehouse: Warehouse, args: argparse.Namespace
) -> tuple[list[float], list[float], RunResult]:
    """The history in bulk, then `loads` days through the loader, each followed by what a
    collection does when it ends (`maintain`: a lake's CHECKPOINT, which flushes the rows it
    inlined into its catalog, merges small files and drops what no snapshot needs; nothing for a
    file, which `load_run` checkpoints): the loads' seconds, the maintenances', the next run."""
    rng = random.Random(11)
    offers = synthetic.offers(args.offers)
    first = args.days - args.loads
    con = quiet(connect(warehouse))
    try:
        begin = time.perf_counter()
        rows = prefill(con, offers, first)
        print(f"  prefill: {rows:,} history rows, {time.perf_counter() - begin:.0f} s", flush=True)
        seconds, upkeep = [], []
        for day in range(first, args.days):
            synthetic.advance(offers, rng)
            run = synthetic.run_for(day, offers)
            begin = time.perf_counter()
            load_run(con, run)
            seconds.append(time.perf_counter() - begin)
            begin = time.perf_counter()
            maintain(con)
            upkeep.append(time.perf_counter() - begin)
    finally:
        con.close()
    synthetic.advance(offers, rng)
    return seconds, upkeep, synthetic.run_for(args.days, offers)


def _load_in_child(warehouse: Warehouse, run: RunResult, opened, result) -> None:
    """One daily load in its own process, as a scheduled collection runs beside readers."""
    con = quiet(connect(warehouse))
    opened.set()
    begin = time.perf_counter()
    try:
        load_run(con, run)
    finally:
        con.close()
    result.put((time.perf_counter() - begin, time.time()))  # its seconds, when it committed


def reads_during_load(warehouse: Warehouse, run: RunResult, readers: int) -> dict:
    """Latency of `prices --chip H100-SXM` (open, query, close) while another process loads."""
    spawn = multiprocessing.get_context("spawn")  # no fork of a process holding DuckDB threads
    opened, result, done = spawn.Event(), spawn.Queue(), threading.Event()
    child = spawn.Process(target=_load_in_child, args=(warehouse, run, opened, result))
    child.start()
    opened.wait(300)
    reads: list[tuple[float, float]] = []  # (started, seconds) of each answered read
    refused: list[tuple[float, str]] = []

    def reader() -> None:
        while not done.is_set():
            started = time.time()
            try:
                reads.append((started, read_once(warehouse)))
            except Exception as exc:  # noqa: BLE001 - a refusal is a result here
                refused.append((started, str(exc).split("\n")[0][:160]))
                time.sleep(0.05)

    threads = [threading.Thread(target=reader) for _ in range(readers)]
    for thread in threads:
        thread.start()
    child.join()
    done.set()
    for thread in threads:
        thread.join()
    load, committed = result.get() if not result.empty() else (float("nan"), time.time())
    return {
        "load": load,
        "latencies": [seconds for started, seconds in reads if started < committed],
        "after": sum(started >= committed for started, _ in reads),
        "refused": [message for started, message in refused if started < committed],
    }


def measure(label: str, warehouse: Warehouse, args: argparse.Namespace) -> None:
    print(f"\n{label} warehouse", flush=True)
    seconds, upkeep, next_run = build(warehouse, args)
    print(
        f"  daily load of {args.offers:,} offers, last {len(seconds)} days: mean "
        f"{statistics.mean(seconds):.2f} s, max {max(seconds):.2f} s"
    )
    if warehouse.is_lake:
        print(f"  the lake's maintenance after each load: mean {statistics.mean(upkeep):.2f} s")
    print(f"  reads (seconds: first run, median of {args.repeat} after):")
    for name, rows, cold, warm in time_reads(warehouse, args.repeat):
        print(f"    {name:44s} {cold:6.3f} {warm:6.3f}   ({rows:,} rows)")
    alone = [read_once(warehouse) for _ in range(args.repeat)]
    median = statistics.median(alone)
    print(
        f"  prices --chip H100-SXM with open and close, no load running: median of "
        f"{args.repeat} {median:.3f} s"
    )
    found = reads_during_load(warehouse, next_run, args.readers)
    got = found["latencies"]
    print(
        f"  {args.readers} readers during a {found['load']:.2f} s load in another process: "
        f"{len(got)} reads started before its commit answered, p50 "
        f"{_percentile(got, 0.5):.3f} s, p95 {_percentile(got, 0.95):.3f} s; "
        f"{len(found['refused'])} refused ({found['after']} more answered after the commit)"
    )
    if found["refused"]:
        print(f"    first refusal: {found['refused'][0]}")


def main() -> None:
    from tests import pg_server

    args = _arguments()
    print(
        f"lake benchmark: {args.days} days x {args.offers:,} offers ({args.loads} through the "
        f"loader), {args.readers} readers, {os.cpu_count()} CPUs",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="chipcost-lake-") as tmp, pg_server.running() as pg:
        root = Path(tmp)
        measure("file", Warehouse(str(root / "file.duckdb")), args)
        lake_url = f"ducklake:postgres:{pg.conninfo(pg.new_database())}"
        (root / "lake").mkdir()
        measure("lake", Warehouse(lake_url, str(root / "lake")), args)
        if not args.skip_backfill:
            from benchmarks.lake_backfill import backfill_workers

            backfill_workers(
                root / "backfill", args.versions, args.file_mb, args.pace_mb, args.workers
            )


if __name__ == "__main__":
    main()
