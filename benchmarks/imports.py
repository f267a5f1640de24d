"""Whole-process timing of `chipcost throughput import` of N measurements.

    .venv/bin/python -m benchmarks.imports --db FILE [--rows 2000 10000] [--repeat 3]

For each size, a measurements CSV of that many rows (H100-SXM, llama-3-70b, a rate and a note
each) is imported `--repeat` times into a fresh copy of FILE (the sample replay:
`chipcost collect --replay sample/archive --db FILE`), each as a new process; the medians of
wall and CPU (user+sys) seconds are printed, with the load average.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.builds import _load
from benchmarks.cli import CHIPCOST, seconds


def _rows(path: Path, count: int) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["chip", "model", "workload", "tokens_per_second", "notes"])
        for n in range(count):
            writer.writerow(["H100-SXM", "llama-3-70b", "inference", 1000 + n, f"run {n}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a warehouse with the sample")
    parser.add_argument("--rows", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"median of {args.repeat} whole processes each (Python {sys.version.split()[0]}, "
          f"load {_load()})")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        for count in args.rows:
            given, runs = Path(scratch) / f"rows-{count}.csv", []
            _rows(given, count)
            for n in range(args.repeat):
                copy = Path(scratch) / f"w{n}.duckdb"
                shutil.copyfile(args.db, copy)
                runs.append(
                    seconds([CHIPCOST, "throughput", "import", str(given), "--db", str(copy)])
                )
                copy.unlink()
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print(f"  {count:>7,} rows   {wall:6.2f} s wall  {cpu:6.2f} s CPU   (load {_load()})")


if __name__ == "__main__":
    main()
